#include <stdint.h>

typedef struct image image;
image* image_create(const char* path);
int64_t image_width(image* im);
void image_destroy(image* im);
