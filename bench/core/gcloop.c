/* gcloop: N iterations that each build a string and a 16-element array, grow the array by one, read
 * them and drop them (free here; the Neve version leaves it to its collector). Prints a checksum.
 * Usage: gcloop N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long total = 0;
    for (long i = 0; i < n; i++) {
        char *s = malloc(32);
        snprintf(s, 32, "item %ld", i);
        long *a = calloc(16, sizeof(long));
        a[i % 16] = i;
        a = realloc(a, 17 * sizeof(long)); /* append */
        a[16] = (long)strlen(s);
        total += a[i % 16] + a[16] + 17;
        free(a);
        free(s);
    }
    printf("%ld\n", total);
    return 0;
}
