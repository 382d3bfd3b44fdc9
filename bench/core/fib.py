"""fib: naive doubly recursive Fibonacci (calls and integer arithmetic). Usage: fib.py N"""
import sys


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


if __name__ == "__main__":
    print(fib(int(sys.argv[1])))
