// `xs reduce op` and `xs scan op` (4.7) on numeric arrays; op 0 '+', 1 '*', 2 min, 3 max.
// Integers wrap (arithmetic done on unsigned 64-bit, then truncated to the element type);
// bf16 and half accumulate in float and are rounded when stored. Float min/max propagate NaN.
#include <cmath>
#include <cstring>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"

namespace {

// Each element kind: how to load a slot into the accumulator type and store it back.
template <class T>
struct IntK {
    using Acc = T;
    static Acc load(const char* p) { T v; memcpy(&v, p, sizeof v); return v; }
    static void store(char* p, Acc v) { memcpy(p, &v, sizeof v); }
    static Acc add(Acc x, Acc y) { return (T)((uint64_t)x + (uint64_t)y); }
    static Acc mul(Acc x, Acc y) { return (T)((uint64_t)x * (uint64_t)y); }
    static bool nan(Acc) { return false; }
};

template <class T>
struct FloatK {
    using Acc = T;
    static Acc load(const char* p) { T v; memcpy(&v, p, sizeof v); return v; }
    static void store(char* p, Acc v) { memcpy(p, &v, sizeof v); }
    static Acc add(Acc x, Acc y) { return x + y; }
    static Acc mul(Acc x, Acc y) { return x * y; }
    static bool nan(Acc x) { return std::isnan(x); }
};

template <float (*ToF)(int32_t), int32_t (*FromF)(float)>
struct Storage16K {
    using Acc = float;
    static Acc load(const char* p) { uint16_t v; memcpy(&v, p, 2); return ToF(v); }
    static void store(char* p, Acc v) { uint16_t b = (uint16_t)FromF(v); memcpy(p, &b, 2); }
    static Acc add(Acc x, Acc y) { return x + y; }
    static Acc mul(Acc x, Acc y) { return x * y; }
    static bool nan(Acc x) { return std::isnan(x); }
};

template <class K>
typename K::Acc step(int32_t op, typename K::Acc acc, typename K::Acc x) {
    switch (op) {
        case 0: return K::add(acc, x);
        case 1: return K::mul(acc, x);
        case 2: return K::nan(acc) || !(K::nan(x) || x < acc) ? acc : x;
        default: return K::nan(acc) || !(K::nan(x) || acc < x) ? acc : x;
    }
}

// Runs the fold; when `out_arr` is given, stores every running result into it (scan).
template <class K>
void fold(const NvArray* a, int32_t op, void* out, char* out_arr) {
    using Acc = typename K::Acc;
    int64_t sz = a->elem->size;
    if (a->len == 0) {
        if (!out) return;   // scan of nothing is an empty array
        if (op == 2) rt_panic("min of empty array");
        if (op == 3) rt_panic("max of empty array");
        K::store((char*)out, op == 1 ? (Acc)1 : (Acc)0);
        return;
    }
    Acc acc = K::load(a->data);
    if (out_arr) K::store(out_arr, acc);
    for (int64_t i = 1; i < a->len; i++) {
        acc = step<K>(op, acc, K::load(a->data + i * sz));
        if (out_arr) K::store(out_arr + i * sz, acc);
    }
    if (out) K::store((char*)out, acc);
}

void dispatch(const NvArray* a, int32_t op, void* out, char* out_arr) {
    if (op < 0 || op > 3) rt_panicf("reduce: unknown operator %d", op);
    switch (a->elem->kind) {
        case NV_INT: fold<IntK<int64_t>>(a, op, out, out_arr); break;
        case NV_I8: fold<IntK<int8_t>>(a, op, out, out_arr); break;
        case NV_I16: fold<IntK<int16_t>>(a, op, out, out_arr); break;
        case NV_I32: fold<IntK<int32_t>>(a, op, out, out_arr); break;
        case NV_U8: fold<IntK<uint8_t>>(a, op, out, out_arr); break;
        case NV_U16: fold<IntK<uint16_t>>(a, op, out, out_arr); break;
        case NV_U32: fold<IntK<uint32_t>>(a, op, out, out_arr); break;
        case NV_U64: fold<IntK<uint64_t>>(a, op, out, out_arr); break;
        case NV_FLOAT: fold<FloatK<float>>(a, op, out, out_arr); break;
        case NV_F64: fold<FloatK<double>>(a, op, out, out_arr); break;
        case NV_BF16: fold<Storage16K<nv_bf16_to_f32, nv_f32_to_bf16>>(a, op, out, out_arr); break;
        case NV_HALF: fold<Storage16K<nv_half_to_f32, nv_f32_to_half>>(a, op, out, out_arr); break;
        default:
            rt_panicf("reduce: elements of type %s are not numbers",
                      a->elem->name ? a->elem->name : "?");
    }
}

}  // namespace

extern "C" void nv_array_reduce(const NvArray* a, int32_t op, void* out) {
    dispatch(a, op, out, nullptr);
}

extern "C" NvArray* nv_array_scan(const NvArray* a, int32_t op) {
    NvArray* r = rt_array_make(a->elem, a->len, a->len);
    dispatch(a, op, nullptr, r->data);
    return r;
}
