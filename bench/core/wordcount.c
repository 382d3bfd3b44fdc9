/* wordcount: counts N words from a fixed seeded generator in an open-addressing hash map with string
 * keys (FNV-1a hash, linear probing, power-of-two capacity, grown at 1/2 load; keys copied with
 * malloc on insertion). The generator is a 64-bit LCG whose top 31 bits give two draws a, b per word;
 * the word is "w" + decimal(a % (1 + b % 100000)), so small numbers are frequent (a skewed vocabulary
 * of about 10^5 words). Prints the number of distinct words, the largest count and a digest that does
 * not depend on iteration order. Usage: wordcount N */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key; /* NULL: empty slot */
    size_t len;
    uint64_t hash;
    long count;
} slot;

typedef struct {
    slot *slots;
    size_t cap, size; /* cap: a power of two */
} strmap;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static uint64_t fnv1a(const char *s, size_t len) {
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void grow(strmap *m) {
    size_t cap = m->cap ? 2 * m->cap : 64;
    slot *slots = xcalloc(cap, sizeof(slot));
    for (size_t i = 0; i < m->cap; i++) {
        slot *s = &m->slots[i];
        if (s->key) {
            size_t j = s->hash & (cap - 1);
            while (slots[j].key)
                j = (j + 1) & (cap - 1);
            slots[j] = *s;
        }
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
}

/* The count of key, inserted with count 0 when absent. */
static long *count_of(strmap *m, const char *key, size_t len) {
    if (2 * (m->size + 1) > m->cap)
        grow(m);
    uint64_t h = fnv1a(key, len);
    size_t j = h & (m->cap - 1);
    for (;;) {
        slot *s = &m->slots[j];
        if (!s->key) {
            s->key = malloc(len + 1);
            if (!s->key) {
                fputs("out of memory\n", stderr);
                exit(1);
            }
            memcpy(s->key, key, len + 1);
            s->len = len;
            s->hash = h;
            s->count = 0;
            m->size++;
            return &s->count;
        }
        if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
            return &s->count;
        j = (j + 1) & (m->cap - 1);
    }
}

/* Writes "w" followed by the decimal digits of k (k >= 0) into buf; returns the length. */
static size_t make_word(char *buf, long k) {
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + k % 10);
        k /= 10;
    } while (k > 0);
    size_t len = 0;
    buf[len++] = 'w';
    while (n > 0)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    strmap counts = {0};
    uint64_t x = 20240607;
    char word[32];
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        long a = (long)(x >> 33);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        long b = (long)(x >> 33);
        size_t len = make_word(word, a % (1 + b % 100000));
        *count_of(&counts, word, len) += 1;
    }
    long most = 0, digest = 0;
    for (size_t i = 0; i < counts.cap; i++) {
        slot *s = &counts.slots[i];
        if (!s->key)
            continue;
        if (s->count > most)
            most = s->count;
        long h = 0;
        for (size_t k = 0; k < s->len; k++)
            h = (h * 31 + (unsigned char)s->key[k]) % 1000000007;
        digest = (digest + s->count * h) % 1000000007;
        free(s->key);
    }
    free(counts.slots);
    printf("%zu distinct, max count %ld, digest %ld\n", counts.size, most, digest);
    return 0;
}
