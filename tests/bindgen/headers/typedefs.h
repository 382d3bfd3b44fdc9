/* Typedefs are followed to the type they name (LANGUAGE.md 11.3). */
#include <stdint.h>

typedef struct image image;
typedef int64_t idx_t;
typedef idx_t count_t;
typedef double (*fn_t)(double);
typedef const char* cstr;
typedef float real;
typedef real vec[];

idx_t first_index(const image* im);
count_t count_all(count_t n, idx_t step);
double integrate(fn_t f, double lo, double hi);
cstr name_of(image* im);
real dot(const real* a, const real* b, idx_t n);
void scale(vec v, real by);
