/* sieve: sieve of Eratosthenes up to N, one byte per number. Prints the prime count and sum.
 * Usage: sieve N */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    bool *composite = calloc(n + 1, sizeof(bool));
    long count = 0, total = 0;
    for (long i = 2; i <= n; i++) {
        if (!composite[i]) {
            count += 1;
            total += i;
            for (long j = i * i; j <= n; j += i)
                composite[j] = true;
        }
    }
    printf("%ld %ld\n", count, total);
    free(composite);
    return 0;
}
