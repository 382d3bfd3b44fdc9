/* kinds: binary trees of 3-word nodes {vtable, left, right} allocated four ways through bdwgc, to
 * choose how compiled `new C(...)` allocates (bench/gc_kinds/README.md). The same output as
 * bench/core/binarytrees_classes.c. Usage: kinds MAX_DEPTH MODE, MODE one of
 *   malloc  GC_malloc: scanned conservatively, bdwgc's thread-local lists behind a call
 *   typed   GC_malloc_explicitly_typed with a GC_make_descriptor bitmap (words 1 and 2)
 *   gcj     GC_gcj_malloc: the bitmap descriptor in the vtable's second word
 *   inline  a per-thread free list popped inline, refilled by GC_generic_malloc_many (what
 *           runtime_cpp/gc/freelists.cpp and compiler/lower/gcalloc.py do) */
#define GC_THREADS
#include <gc/gc.h>
#include <gc/gc_gcj.h>
#include <gc/gc_inline.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    void *vt;
    struct node *left, *right;
} node;

enum { MALLOC, TYPED, GCJ, INLINE };
static int mode;
static GC_descr typed_descr;
static void *vtable[2]; /* [class, GC descriptor (gcj)] */
static void **fl;       /* inline: list heads by granules, in an uncollectable block */

static node *new_node(node *l, node *r) {
    node *n;
    if (mode == MALLOC) {
        n = GC_malloc(sizeof *n);
    } else if (mode == TYPED) {
        n = GC_malloc_explicitly_typed(sizeof *n, typed_descr);
    } else if (mode == GCJ) {
        n = GC_gcj_malloc(sizeof *n, vtable);
    } else {
        void **head = fl + 2; /* 24 bytes and the collector's extra byte: 2 granules */
        if (!*head)
            GC_generic_malloc_many(2 * GC_GRANULE_BYTES, GC_I_NORMAL, head);
        n = *head;
        *head = *(void **)n;
    }
    if (!n) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    n->vt = vtable;
    n->left = l;
    n->right = r;
    return n;
}

static node *bottom_up(long depth) {
    if (depth > 0) {
        node *l = bottom_up(depth - 1);
        node *r = bottom_up(depth - 1);
        return new_node(l, r);
    }
    return new_node(NULL, NULL);
}

static long check(const node *n) { return n->left == NULL ? 1 : 1 + check(n->left) + check(n->right); }

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: kinds MAX_DEPTH malloc|typed|gcj|inline\n", stderr);
        return 2;
    }
    long max_depth = atol(argv[1]);
    const char *names[] = {"malloc", "typed", "gcj", "inline"};
    for (mode = 0; mode < 4 && strcmp(argv[2], names[mode]) != 0; mode++) {
    }
    if (mode == 4) {
        fprintf(stderr, "unknown mode %s\n", argv[2]);
        return 2;
    }
    if (!getenv("GC_MARKERS"))
        GC_set_markers_count(1); /* as the Neve runtime does on 2 cores */
    GC_INIT();
    GC_set_free_space_divisor(1);
    GC_word bits[1] = {0};
    GC_set_bit(bits, 1);
    GC_set_bit(bits, 2);
    if (mode == TYPED)
        typed_descr = GC_make_descriptor(bits, 3);
    if (mode == GCJ) {
        GC_init_gcj_malloc(0, NULL);
        vtable[1] = (void *)(((GC_word)3 << (8 * sizeof(GC_word) - 3)) | GC_DS_BITMAP);
    }
    if (mode == INLINE)
        fl = GC_malloc_uncollectable(GC_TINY_FREELISTS * sizeof(void *));
    long min_depth = 4, stretch = max_depth + 1;
    printf("stretch tree of depth %ld check: %ld\n", stretch, check(bottom_up(stretch)));
    node *long_lived = bottom_up(max_depth);
    for (long d = min_depth; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + min_depth), total = 0;
        for (long i = 0; i < iterations; i++)
            total += check(bottom_up(d));
        printf("%ld trees of depth %ld check: %ld\n", iterations, d, total);
    }
    printf("long lived tree of depth %ld check: %ld\n", max_depth, check(long_lived));
    return 0;
}
