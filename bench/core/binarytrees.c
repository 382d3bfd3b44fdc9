/* binarytrees: the Benchmarks Game allocation test on arrays. A tree is two growable arrays of child
 * indices (left[k], right[k]; -1 for a leaf), built by appending, checked, then freed; like the Neve
 * version, which has no classes yet. Usage: binarytrees MAX_DEPTH */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    long *data;
    long size, cap;
} vec;

static void push(vec *v, long x) {
    if (v->size == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 8;
        v->data = realloc(v->data, v->cap * sizeof(long));
    }
    v->data[v->size++] = x;
}

/* Appends a full tree of the given depth; returns the index of its root. */
static long build(vec *left, vec *right, long depth) {
    long node = left->size;
    push(left, -1);
    push(right, -1);
    if (depth > 0) {
        long l = build(left, right, depth - 1);
        long r = build(left, right, depth - 1);
        left->data[node] = l;
        right->data[node] = r;
    }
    return node;
}

static long check(const vec *left, const vec *right, long node) {
    if (left->data[node] < 0)
        return 1;
    return 1 + check(left, right, left->data[node]) + check(left, right, right->data[node]);
}

static long tree_check(long depth) {
    vec left = {0}, right = {0};
    long root = build(&left, &right, depth);
    long c = check(&left, &right, root);
    free(left.data);
    free(right.data);
    return c;
}

int main(int argc, char **argv) {
    long max_depth = argc > 1 ? atol(argv[1]) : 10;
    long min_depth = 4;
    long stretch = max_depth + 1;
    printf("stretch tree of depth %ld check: %ld\n", stretch, tree_check(stretch));
    vec long_left = {0}, long_right = {0};
    long long_root = build(&long_left, &long_right, max_depth);
    for (long d = min_depth; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + min_depth);
        long total = 0;
        for (long i = 0; i < iterations; i++)
            total += tree_check(d);
        printf("%ld trees of depth %ld check: %ld\n", iterations, d, total);
    }
    printf("long lived tree of depth %ld check: %ld\n", max_depth,
           check(&long_left, &long_right, long_root));
    free(long_left.data);
    free(long_right.data);
    return 0;
}
