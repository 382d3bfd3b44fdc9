// Equality (4.3) and ordering of values by descriptor, used by arrays (index, sort, ==) and
// later by maps.
#include <cmath>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "types/values.h"

namespace {

template <class T>
T load(const void* p) {
    T v;
    memcpy(&v, p, sizeof v);
    return v;
}

template <class T>
int cmp3(T x, T y) {
    return x < y ? -1 : y < x ? 1 : 0;
}

int fcmp(double x, double y) {
    bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx || ny) return nx == ny ? 0 : nx ? 1 : -1;
    return cmp3(x, y);
}

int seq_cmp(const char* a, int64_t na, const char* b, int64_t nb, const NvType* et) {
    int64_t n = na < nb ? na : nb;
    for (int64_t i = 0; i < n; i++)
        if (int c = rt_value_cmp(a + i * et->size, b + i * et->size, et)) return c;
    return cmp3(na, nb);
}

bool seq_eq(const char* a, const char* b, int64_t n, const NvType* et, bool arrays_by_identity) {
    for (int64_t i = 0; i < n; i++)
        if (!rt_value_eq(a + i * et->size, b + i * et->size, et, arrays_by_identity)) return false;
    return true;
}

}  // namespace

int rt_value_cmp(const void* pa, const void* pb, const NvType* t) {
    const char* a = (const char*)pa;
    const char* b = (const char*)pb;
    switch (t->kind) {
        case NV_INT: return cmp3(load<int64_t>(a), load<int64_t>(b));
        case NV_I8: return cmp3(load<int8_t>(a), load<int8_t>(b));
        case NV_I16: return cmp3(load<int16_t>(a), load<int16_t>(b));
        case NV_I32: return cmp3(load<int32_t>(a), load<int32_t>(b));
        case NV_U16: return cmp3(load<uint16_t>(a), load<uint16_t>(b));
        case NV_U32: return cmp3(load<uint32_t>(a), load<uint32_t>(b));
        case NV_U64: return cmp3(load<uint64_t>(a), load<uint64_t>(b));
        case NV_U8:
        case NV_BOOL:
        case NV_CHAR: return cmp3(load<uint8_t>(a), load<uint8_t>(b));
        case NV_FLOAT: return fcmp(load<float>(a), load<float>(b));
        case NV_F64: return fcmp(load<double>(a), load<double>(b));
        case NV_BF16: return fcmp(nv_bf16_to_f32(load<uint16_t>(a)), nv_bf16_to_f32(load<uint16_t>(b)));
        case NV_HALF: return fcmp(nv_half_to_f32(load<uint16_t>(a)), nv_half_to_f32(load<uint16_t>(b)));
        case NV_STR: return nv_str_cmp(load<const NvStr*>(a), load<const NvStr*>(b));
        case NV_TUPLE:
            for (int32_t i = 0; i < t->count; i++)
                if (int c = rt_value_cmp(a + t->offsets[i], b + t->offsets[i], t->elems[i])) return c;
            return 0;
        case NV_FIXED: return seq_cmp(a, t->count, b, t->count, t->elems[0]);
        case NV_ARRAY: {
            const NvArray* x = load<const NvArray*>(a);
            const NvArray* y = load<const NvArray*>(b);
            if (!x || !y) return cmp3(x != nullptr, y != nullptr);   // nil first
            return seq_cmp(x->data, x->len, y->data, y->len, x->elem);
        }
        default:
            rt_panicf("values of type %s have no order", t->name ? t->name : "?");
    }
}

bool rt_value_eq(const void* pa, const void* pb, const NvType* t, bool arrays_by_identity) {
    const char* a = (const char*)pa;
    const char* b = (const char*)pb;
    switch (t->kind) {
        case NV_INT: return load<int64_t>(a) == load<int64_t>(b);
        case NV_I8:
        case NV_U8:
        case NV_CHAR: return load<uint8_t>(a) == load<uint8_t>(b);
        case NV_BOOL: return (load<uint8_t>(a) != 0) == (load<uint8_t>(b) != 0);
        case NV_I16: return load<int16_t>(a) == load<int16_t>(b);
        case NV_I32: return load<int32_t>(a) == load<int32_t>(b);
        case NV_U16: return load<uint16_t>(a) == load<uint16_t>(b);
        case NV_U32: return load<uint32_t>(a) == load<uint32_t>(b);
        case NV_U64: return load<uint64_t>(a) == load<uint64_t>(b);
        // by value: NaN is unequal to everything, -0.0 == 0.0
        case NV_FLOAT: return load<float>(a) == load<float>(b);
        case NV_F64: return load<double>(a) == load<double>(b);
        case NV_BF16: return nv_bf16_to_f32(load<uint16_t>(a)) == nv_bf16_to_f32(load<uint16_t>(b));
        case NV_HALF: return nv_half_to_f32(load<uint16_t>(a)) == nv_half_to_f32(load<uint16_t>(b));
        case NV_STR: return nv_str_eq(load<const NvStr*>(a), load<const NvStr*>(b));
        case NV_TUPLE:
            for (int32_t i = 0; i < t->count; i++)
                if (!rt_value_eq(a + t->offsets[i], b + t->offsets[i], t->elems[i],
                                 arrays_by_identity))
                    return false;
            return true;
        case NV_FIXED: return seq_eq(a, b, t->count, t->elems[0], arrays_by_identity);
        case NV_ARRAY: {
            const NvArray* x = load<const NvArray*>(a);
            const NvArray* y = load<const NvArray*>(b);
            if (!x || !y || arrays_by_identity) return x == y;
            return x->len == y->len && seq_eq(x->data, y->data, x->len, x->elem, false);
        }
        case NV_FOREIGN_REF: {   // by C address: two wrappers of one pointer are equal (11.2)
            const NvForeign* x = load<const NvForeign*>(a);
            const NvForeign* y = load<const NvForeign*>(b);
            return (x ? x->addr : nullptr) == (y ? y->addr : nullptr);
        }
        default:
            // maps, classes, channels, functions, any, buffers, foreign: identity of the
            // reference (a buffer's first word is its address)
            return load<const void*>(a) == load<const void*>(b);
    }
}

extern "C" int32_t nv_value_eq(const void* a, const void* b, const NvType* t) {
    return rt_value_eq(a, b, t, false);
}
