/* Pointers to opaque or incomplete structs are foreign types (11.3); complete ones too, with
   their layout (`proto struct`); integers cast to pointer types are `any` constants. */
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
typedef void (*release_fn)(void*);
#define RELEASE_COPY ((release_fn)-1)
#define RELEASE_NONE ((release_fn)0)
#define NO_CTX ((ctx_t *) 0)
#define NOT_A_POINTER ((long)-1)
struct tree { struct tree* left; struct tree* right; const char* label; unsigned short depth;
              int flags : 3; char code[4]; point at; };
int tree_size(struct tree* t);
