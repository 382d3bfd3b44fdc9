// Hashing and equality of map keys by descriptor (3.4): str by bytes (nil is ""), integers,
// char and bool by value, floats by value (-0.0 == 0.0; NaN equals nothing, so a NaN key is
// never found), tuples and fixed arrays element-wise, every other kind (classes, foreign
// types, arrays, maps, channels, functions, buffers, any) by the identity of its reference.
//
// The byte hash follows the structure of wyhash (Wang Yi, public domain): 64x64->128-bit
// multiply-and-fold mixing over 16-byte blocks. Its exact output is not part of any ABI.
#include <cmath>
#include <cstring>
#include "neve_rt.h"
#include "map/maps.h"
#include "str/strs.h"
#include "types/values.h"

namespace {

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;

inline uint64_t mum(uint64_t a, uint64_t b) {
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

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

template <class T>
T load(const void* p) {
    T v;
    memcpy(&v, p, sizeof v);
    return v;
}

inline uint64_t hash_word(uint64_t x) { return mum(x ^ kP0, kP1); }

uint64_t hash_f64(double d) {
    if (d == 0) d = 0.0;   // -0.0 and 0.0 are one key
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return hash_word(bits);
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

uint64_t rt_key_hash(const void* pv, const NvType* t) {
    const char* p = (const char*)pv;
    switch (t->kind) {
        case NV_INT: return hash_word((uint64_t)load<int64_t>(p));
        case NV_I8: return hash_word((uint64_t)(int64_t)load<int8_t>(p));
        case NV_I16: return hash_word((uint64_t)(int64_t)load<int16_t>(p));
        case NV_I32: return hash_word((uint64_t)(int64_t)load<int32_t>(p));
        case NV_U8:
        case NV_CHAR: return hash_word(load<uint8_t>(p));
        case NV_U16: return hash_word(load<uint16_t>(p));
        case NV_U32: return hash_word(load<uint32_t>(p));
        case NV_U64: return hash_word(load<uint64_t>(p));
        case NV_BOOL: return hash_word(load<uint8_t>(p) != 0);
        case NV_FLOAT: return hash_f64(load<float>(p));
        case NV_F64: return hash_f64(load<double>(p));
        case NV_BF16: return hash_f64(nv_bf16_to_f32(load<uint16_t>(p)));
        case NV_HALF: return hash_f64(nv_half_to_f32(load<uint16_t>(p)));
        case NV_STR: {
            return rt_str_hash(load<const NvStr*>(p));   // cached in the string
        }
        case NV_TUPLE: {
            uint64_t h = kP2 ^ (uint64_t)t->count;
            for (int32_t i = 0; i < t->count; i++)
                h = mum(h ^ rt_key_hash(p + t->offsets[i], t->elems[i]), kP1);
            return h;
        }
        case NV_FIXED: {
            uint64_t h = kP2 ^ (uint64_t)t->count;
            const NvType* et = t->elems[0];
            for (int32_t i = 0; i < t->count; i++)
                h = mum(h ^ rt_key_hash(p + (int64_t)i * et->size, et), kP1);
            return h;
        }
        case NV_FOREIGN_REF: {   // the C address (11.2)
            const NvForeign* w = load<const NvForeign*>(p);
            return hash_word((uint64_t)(uintptr_t)(w ? w->addr : nullptr));
        }
        default:   // references and any: the first word is the identity
            return hash_word((uint64_t)(uintptr_t)load<const void*>(p));
    }
}

bool rt_key_eq(const void* a, const void* b, const NvType* t) {
    return rt_value_eq(a, b, t, true);   // keys: value equality, arrays by identity
}
