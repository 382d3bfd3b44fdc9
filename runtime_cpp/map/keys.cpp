// Hashing and equality of map keys by descriptor (3.4): str by bytes (nil is ""), integers,
// char and bool by value, floats by value (-0.0 == 0.0; NaN equals nothing, so a NaN key is
// never found), tuples and fixed arrays element-wise, every other kind (classes, foreign
// types, arrays, maps, channels, functions, buffers, any) by the identity of its reference.
// Bytes hash by rt_hash_bytes (map/hash.cpp).
#include <cmath>
#include <cstring>
#include "neve_rt.h"
#include "map/maps.h"
#include "map/mix.h"
#include "str/strs.h"
#include "types/values.h"

namespace {

using namespace nv_mix;

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
        case NV_STR: return rt_str_hash(load<const NvStr*>(p));   // cached in the string
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
