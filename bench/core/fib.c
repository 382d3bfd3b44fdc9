/* fib: naive doubly recursive Fibonacci (calls and integer arithmetic). Usage: fib N */
#include <stdio.h>
#include <stdlib.h>

static long fib(long n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 35;
    printf("%ld\n", fib(n));
    return 0;
}
