"""binarytrees: the Benchmarks Game allocation test on arrays. A tree is two lists of child indices
(left[k], right[k]; -1 for a leaf), built by appending, checked, then dropped; like the Neve version,
which has no classes yet. Usage: binarytrees.py MAX_DEPTH"""
import sys

sys.setrecursionlimit(10_000)


def build(left, right, depth):
    """Appends a full tree of the given depth; returns the index of its root."""
    node = len(left)
    left.append(-1)
    right.append(-1)
    if depth > 0:
        l = build(left, right, depth - 1)
        r = build(left, right, depth - 1)
        left[node] = l
        right[node] = r
    return node


def check(left, right, node):
    if left[node] < 0:
        return 1
    return 1 + check(left, right, left[node]) + check(left, right, right[node])


def tree_check(depth):
    left, right = [], []
    root = build(left, right, depth)
    return check(left, right, root)


def main(max_depth):
    min_depth = 4
    stretch = max_depth + 1
    print(f"stretch tree of depth {stretch} check: {tree_check(stretch)}")
    long_left, long_right = [], []
    long_root = build(long_left, long_right, max_depth)
    for d in range(min_depth, max_depth + 1, 2):
        iterations = 1 << (max_depth - d + min_depth)
        total = 0
        for _ in range(iterations):
            total += tree_check(d)
        print(f"{iterations} trees of depth {d} check: {total}")
    print(f"long lived tree of depth {max_depth} check: {check(long_left, long_right, long_root)}")


if __name__ == "__main__":
    main(int(sys.argv[1]))
