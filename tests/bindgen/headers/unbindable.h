/* Declarations 11.2 cannot bind are skipped with one problem each; the rest still bind. */
#include <stdint.h>

struct vec2 { double x, y; };
typedef struct vec2 vec2;
union num { int64_t i; double f; };
enum mode { MODE_A, MODE_B };
typedef enum { RED, GREEN } color;

double vec2_len(vec2 v);
vec2 vec2_make(double x, double y);
int64_t num_bits(union num n);
int log_msg(const char* fmt, ...);
void set_mode(enum mode m);
color paint(int64_t id);
long double precise(double x);
void apply_all(struct vec2 pts[4], int64_t n);
static inline int helper(int x) { return x + 1; }
int64_t still_bound(int64_t x);
