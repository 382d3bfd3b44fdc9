/* Parameter names are kept when they are valid Neve names; reserved ones are dropped. */
#include <stdint.h>

int64_t window(int64_t in, int64_t from, int64_t lock, int64_t self);
void types_as_names(int str, double map, char any, int type);
void unnamed(int, double);
int spawn(int n);
int no_params(void);
int kr_style();
int twice_declared(int a);
int twice_declared(int b);
long twice_declared(long c);
typedef struct map map;
map* map_new(void);
void sys(int x);
