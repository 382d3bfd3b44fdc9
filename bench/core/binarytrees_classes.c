/* binarytrees_classes: the Benchmarks Game allocation test on objects, in the usual C reference
 * style: a tree is malloc'd nodes with two child pointers (NULL for a leaf), built bottom-up by
 * recursion, checked, then freed node by node. Same output as binarytrees.c.
 * Usage: binarytrees_classes MAX_DEPTH */
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
    struct node *left, *right;
} node;

static node *new_node(node *left, node *right) {
    node *n = malloc(sizeof *n);
    if (!n) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    n->left = left;
    n->right = right;
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

static long check(const node *n) {
    if (n->left == NULL)
        return 1;
    return 1 + check(n->left) + check(n->right);
}

static void free_tree(node *n) {
    if (n->left != NULL) {
        free_tree(n->left);
        free_tree(n->right);
    }
    free(n);
}

int main(int argc, char **argv) {
    long max_depth = argc > 1 ? atol(argv[1]) : 10;
    long min_depth = 4;
    long stretch = max_depth + 1;
    node *t = bottom_up(stretch);
    printf("stretch tree of depth %ld check: %ld\n", stretch, check(t));
    free_tree(t);
    node *long_lived = bottom_up(max_depth);
    for (long d = min_depth; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + min_depth);
        long total = 0;
        for (long i = 0; i < iterations; i++) {
            t = bottom_up(d);
            total += check(t);
            free_tree(t);
        }
        printf("%ld trees of depth %ld check: %ld\n", iterations, d, total);
    }
    printf("long lived tree of depth %ld check: %ld\n", max_depth, check(long_lived));
    free_tree(long_lived);
    return 0;
}
