/* Pointers to opaque or incomplete structs are foreign types (11.3); complete ones are not. */
struct node;
typedef struct ctx_s ctx_t;
typedef struct ctx_s* ctx_h;
typedef struct { int x, y; } point;
struct pair { int a, b; };
union cell;

struct node* node_next(struct node* n);
ctx_t* ctx_open(const char* path);
void ctx_close(ctx_h c);
int ctx_all(ctx_t** out, long n);
void cell_clear(union cell* c);
void point_move(point* p, int dx);
int pair_sum(const struct pair* p);
struct ctx_s* ctx_parent(struct ctx_s* c);
#include <stdio.h>
int ctx_dump(ctx_t* c, FILE* to);
