// Random numbers (14.3, 14.4 shuffle): one generator per thread.
//
// Generator: xoshiro256** 1.0 by David Blackman and Sebastiano Vigna (public domain,
// https://prng.di.unimi.it/xoshiro256starstar.c); its 256-bit state is filled from a 64-bit
// seed with splitmix64 (Sebastiano Vigna, public domain, https://prng.di.unimi.it/splitmix64.c),
// as the authors recommend. A thread's state is seeded lazily from the OS (getrandom) unless
// seed() (nv_seed) or nv_rng_adopt ran on that thread first. nv_rng_fork draws a child
// thread's seed from the parent's generator, so a seeded program that starts threads in a
// fixed order is reproducible.
//
// Derived values:
//   randint   Lemire's multiply-shift bounded integers with rejection ("Fast Random Integer
//             Generation in an Interval", 2019): exactly uniform, no modulo bias
//   randu     lo + (hi - lo) * u with u = 24 random bits / 2^24 (the float mantissa), kept < hi
//   randn     Box-Muller: sqrt(-2 ln u1) * cos(2 pi u2), u1 in (0, 1], u2 in [0, 1) from 53
//             random bits each; one normal per call (no cached second value)
//   shuffle   Fisher-Yates from the last element down, with randint's bounded integers
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"

namespace {

struct Rng {
    uint64_t s[4];
    bool seeded;
};

__thread Rng t_rng;

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

inline uint64_t splitmix64(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void seed_with(Rng& r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r.s[i] = splitmix64(&x);
    r.seeded = true;   // splitmix64 never yields four zero words in a row from one seed
}

void seed_from_os(Rng& r) {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
               ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&r;
    }
    seed_with(r, seed);
}

inline Rng& rng() {
    Rng& r = t_rng;
    if (__builtin_expect(!r.seeded, 0)) seed_from_os(r);
    return r;
}

inline uint64_t next(Rng& r) {
    uint64_t* s = r.s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

// Uniform in [0, n) for n >= 1 (Lemire).
inline uint64_t below(Rng& r, uint64_t n) {
    __uint128_t m = (__uint128_t)next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (__uint128_t)next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

// Uniform in [lo, hi], lo <= hi.
inline int64_t in_range(Rng& r, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span == UINT64_MAX) return (int64_t)next(r);
    return (int64_t)((uint64_t)lo + below(r, span + 1));
}

inline float uniform_f(Rng& r, float lo, float hi) {
    float u = (float)(next(r) >> 40) * 0x1p-24f;   // 24 bits: exact in a float, < 1
    float x = (float)((double)lo + ((double)hi - (double)lo) * (double)u);
    if (lo < hi && x >= hi) x = std::nextafter(hi, lo);   // rounding may reach hi
    return x;
}

void check_range(const char* fn, int64_t lo, int64_t hi) {
    if (lo > hi) rt_panicf("%s: empty range, lo %" PRId64 " > hi %" PRId64, fn, lo, hi);
}

}  // namespace

extern "C" {

void nv_seed(int64_t s) { seed_with(t_rng, (uint64_t)s); }

int64_t nv_randint(int64_t lo, int64_t hi) {
    check_range("randint", lo, hi);
    return in_range(rng(), lo, hi);
}

float nv_randu(float lo, float hi) { return uniform_f(rng(), lo, hi); }

float nv_randn(float mean, float std) {
    Rng& r = rng();
    double u1 = (double)((next(r) >> 11) + 1) * 0x1p-53;   // (0, 1]: log is finite
    double u2 = (double)(next(r) >> 11) * 0x1p-53;         // [0, 1)
    double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    return (float)((double)mean + (double)std * z);
}

NvArray* nv_randint_array(int64_t n, int64_t lo, int64_t hi) {
    check_range("randint_array", lo, hi);
    NvArray* a = rt_array_make(&nv_type_int, n, n);
    int64_t* p = (int64_t*)a->data;
    Rng& r = rng();
    for (int64_t i = 0; i < a->len; i++) p[i] = in_range(r, lo, hi);
    return a;
}

NvArray* nv_randfloat_array(int64_t n, float lo, float hi) {
    NvArray* a = rt_array_make(&nv_type_float, n, n);
    float* p = (float*)a->data;
    Rng& r = rng();
    for (int64_t i = 0; i < a->len; i++) p[i] = uniform_f(r, lo, hi);
    return a;
}

void nv_array_shuffle(NvArray* a) {
    if (!a || a->len < 2) return;
    Rng& r = rng();
    int64_t sz = a->elem->size;
    char* d = a->data;
    char tmp[64];
    for (int64_t i = a->len - 1; i > 0; i--) {
        int64_t j = (int64_t)below(r, (uint64_t)i + 1);
        if (j == i) continue;
        char* x = d + i * sz;
        char* y = d + j * sz;
        switch (sz) {
            case 8: { uint64_t t; memcpy(&t, x, 8); memcpy(x, y, 8); memcpy(y, &t, 8); break; }
            case 4: { uint32_t t; memcpy(&t, x, 4); memcpy(x, y, 4); memcpy(y, &t, 4); break; }
            case 1: { char t = *x; *x = *y; *y = t; break; }
            default:
                for (int64_t k = 0; k < sz; k += (int64_t)sizeof tmp) {
                    size_t c = (size_t)(sz - k < (int64_t)sizeof tmp ? sz - k : (int64_t)sizeof tmp);
                    memcpy(tmp, x + k, c);
                    memcpy(x + k, y + k, c);
                    memcpy(y + k, tmp, c);
                }
        }
    }
}

uint64_t nv_rng_fork(void) { return next(rng()); }

void nv_rng_adopt(uint64_t seed) { seed_with(t_rng, seed); }

}  // extern "C"
