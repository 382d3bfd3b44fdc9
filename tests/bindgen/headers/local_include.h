/* A header that includes another local header: both are bound, in declaration order. */
#include <stdint.h>
#include "include/shapes.h"

int64_t scene_add(shape* s);
void scene_clear(void);
