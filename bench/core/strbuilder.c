/* strbuilder: builds the N-character string of strconcat in a doubling buffer (linear).
 * Prints its length and a checksum. Usage: strbuilder N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    long len = 0, cap = 16;
    char *s = malloc(cap);
    for (long i = 0; i < n; i++) {
        if (len == cap) s = realloc(s, cap *= 2);
        s[len++] = (char)(97 + i % 26);
    }
    long sum = 0;
    for (long i = 0; i < n; i += 997) sum += (unsigned char)s[i];
    printf("%ld %ld\n", len, sum);
    return 0;
}
