// The byte hash of str keys, following the structure of wyhash (Wang Yi, public domain):
// 64x64->128-bit multiply-and-fold mixing over 16-byte blocks. Its output is no ABI, but the
// compiler computes it for literals (compiler/lower/str_hash.py), so the two change together.
// Alone in its file so that a test can link its own (tests/runtime/c/map_collide.cpp).
#include <cstring>
#include "map/maps.h"
#include "map/mix.h"

namespace {

using namespace nv_mix;

inline uint64_t r8(const char* p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

inline uint64_t r4(const char* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

}  // namespace

uint64_t rt_hash_bytes(const char* p, int64_t len) {
    uint64_t n = (uint64_t)len;
    uint64_t seed = kP0 ^ mum(n ^ kP1, kP2);
    uint64_t a, b;
    if (n <= 16) {
        if (n >= 4) {
            a = (r4(p) << 32) | r4(p + ((n >> 3) << 2));
            b = (r4(p + n - 4) << 32) | r4(p + n - 4 - ((n >> 3) << 2));
        } else if (n > 0) {
            a = ((uint64_t)(unsigned char)p[0] << 16) | ((uint64_t)(unsigned char)p[n >> 1] << 8) |
                (unsigned char)p[n - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        uint64_t i = n;
        if (i > 48) {
            uint64_t s1 = seed, s2 = seed;
            do {
                seed = mum(r8(p) ^ kP1, r8(p + 8) ^ seed);
                s1 = mum(r8(p + 16) ^ kP2, r8(p + 24) ^ s1);
                s2 = mum(r8(p + 32) ^ kP0, r8(p + 40) ^ s2);
                p += 48;
                i -= 48;
            } while (i > 48);
            seed ^= s1 ^ s2;
        }
        while (i > 16) {
            seed = mum(r8(p) ^ kP1, r8(p + 8) ^ seed);
            p += 16;
            i -= 16;
        }
        a = r8(p + i - 16);
        b = r8(p + i - 8);
    }
    return mum(kP1 ^ n, mum(a ^ kP1, b ^ seed));
}
