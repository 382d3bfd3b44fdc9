/* Function pointers become Function<R, A...>, mapped recursively (11.3). */
#include <stdint.h>

typedef void (*visit_fn)(const char* key, int64_t value);
typedef double (*binop)(double, double);

void each(visit_fn fn);
double fold(const double* xs, int64_t n, binop op, double init);
int64_t sort_ints(int64_t* xs, int64_t n, int (*cmp)(const int64_t*, const int64_t*));
binop pick(int which);
void nest(double (*outer)(binop inner, double x));
void log_with(void (*logger)(const char* fmt, ...));
