/* strconcat: builds an N-character string the way `s += c` on immutable strings does: each step
 * allocates len + 1 bytes and copies (quadratic). Prints its length and a checksum. Usage: strconcat N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    char *s = malloc(1);
    long len = 0;
    for (long i = 0; i < n; i++) {
        char *t = malloc(len + 2);
        memcpy(t, s, len);
        t[len++] = (char)(97 + i % 26);
        free(s);
        s = t;
    }
    long sum = 0;
    for (long i = 0; i < n; i += 997) sum += (unsigned char)s[i];
    printf("%ld %ld\n", len, sum);
    return 0;
}
