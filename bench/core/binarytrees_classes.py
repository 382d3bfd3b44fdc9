"""binarytrees_classes: the Benchmarks Game allocation test on objects. A tree is a Node with two
child references (None for a leaf), built bottom-up by recursion, checked, then dropped. Same output
as binarytrees.py. Usage: binarytrees_classes.py MAX_DEPTH"""
import sys

sys.setrecursionlimit(10_000)


class Node:
    __slots__ = ("left", "right")

    def __init__(self, left, right):
        self.left = left
        self.right = right


def bottom_up(depth):
    if depth > 0:
        return Node(bottom_up(depth - 1), bottom_up(depth - 1))
    return Node(None, None)


def check(node):
    if node.left is None:
        return 1
    return 1 + check(node.left) + check(node.right)


def main(max_depth):
    min_depth = 4
    stretch = max_depth + 1
    print(f"stretch tree of depth {stretch} check: {check(bottom_up(stretch))}")
    long_lived = bottom_up(max_depth)
    for d in range(min_depth, max_depth + 1, 2):
        iterations = 1 << (max_depth - d + min_depth)
        total = 0
        for _ in range(iterations):
            total += check(bottom_up(d))
        print(f"{iterations} trees of depth {d} check: {total}")
    print(f"long lived tree of depth {max_depth} check: {check(long_lived)}")


if __name__ == "__main__":
    main(int(sys.argv[1]))
