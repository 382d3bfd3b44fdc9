/* Included by local_include.h: a non-system header, so its functions bind too. */
#include <stdint.h>

typedef struct shape shape;
shape* shape_new(int64_t sides);
double shape_perimeter(const shape* s);
struct shape by_value(void);
