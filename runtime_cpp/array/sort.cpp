// sort() (14.4): stable and ascending. Primitive elements are sorted as typed values (NaN
// last); other orderable elements through an index permutation and rt_value_cmp; sort(key = f),
// sort(less = f) and reverse = true through a permutation too, with compiler-made adapters
// that call the Neve function value f.
#include <gc.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "neve_rt.h"
#include "error/panic.h"
#include "types/values.h"

namespace {

template <class T>
void sort_plain(NvArray* a) {
    T* p = (T*)a->data;
    std::sort(p, p + a->len);   // equal integers are indistinguishable: stability is moot
}

template <class T>
void sort_float(NvArray* a) {
    T* p = (T*)a->data;
    // stable: -0.0 and 0.0 compare equal but print differently
    std::stable_sort(p, p + a->len, [](T x, T y) {
        return x < y || (!std::isnan(x) && std::isnan(y));
    });
}

template <class ToF>
void sort_storage_float(NvArray* a, ToF to_f) {
    uint16_t* p = (uint16_t*)a->data;
    std::stable_sort(p, p + a->len, [to_f](uint16_t x, uint16_t y) {
        float fx = to_f(x), fy = to_f(y);
        return fx < fy || (!std::isnan(fx) && std::isnan(fy));
    });
}

void sort_generic(NvArray* a) {
    const NvType* t = a->elem;
    size_t sz = (size_t)t->size;
    std::vector<int64_t> order((size_t)a->len);
    for (int64_t i = 0; i < a->len; i++) order[(size_t)i] = i;
    const char* d = a->data;
    std::stable_sort(order.begin(), order.end(), [d, sz, t](int64_t x, int64_t y) {
        return rt_value_cmp(d + x * sz, d + y * sz, t) < 0;
    });
    // The permuted copy lives in malloc memory only briefly; the originals stay reachable
    // through a->data meanwhile, so the collector loses no pointer.
    char* tmp = (char*)malloc(sz * (size_t)a->len);
    if (!tmp) rt_panic("out of memory");
    for (int64_t i = 0; i < a->len; i++) memcpy(tmp + (size_t)i * sz, d + order[(size_t)i] * sz, sz);
    memcpy(a->data, tmp, sz * (size_t)a->len);
    free(tmp);
}

}  // namespace

extern "C" void nv_array_sort(NvArray* a) {
    if (a->len < 2) return;
    switch (a->elem->kind) {
        case NV_INT: sort_plain<int64_t>(a); break;
        case NV_I8: sort_plain<int8_t>(a); break;
        case NV_I16: sort_plain<int16_t>(a); break;
        case NV_I32: sort_plain<int32_t>(a); break;
        case NV_U16: sort_plain<uint16_t>(a); break;
        case NV_U32: sort_plain<uint32_t>(a); break;
        case NV_U64: sort_plain<uint64_t>(a); break;
        case NV_U8:
        case NV_CHAR:
        case NV_BOOL: sort_plain<uint8_t>(a); break;
        case NV_FLOAT: sort_float<float>(a); break;
        case NV_F64: sort_float<double>(a); break;
        case NV_BF16: sort_storage_float(a, [](uint16_t x) { return nv_bf16_to_f32(x); }); break;
        case NV_HALF: sort_storage_float(a, [](uint16_t x) { return nv_half_to_f32(x); }); break;
        case NV_STR: {
            NvStr** p = (NvStr**)a->data;
            std::stable_sort(p, p + a->len,
                             [](const NvStr* x, const NvStr* y) { return nv_str_cmp(x, y) < 0; });
            break;
        }
        default: sort_generic(a); break;
    }
}

extern "C" int64_t nv_array_index(const NvArray* a, const void* v) {
    const NvType* t = a->elem;
    int64_t sz = t->size;
    if (t->kind == NV_INT) {
        int64_t x;
        memcpy(&x, v, 8);
        const int64_t* p = (const int64_t*)a->data;
        for (int64_t i = 0; i < a->len; i++)
            if (p[i] == x) return i;
        return -1;
    }
    for (int64_t i = 0; i < a->len; i++)
        if (nv_value_eq(a->data + i * sz, v, t)) return i;
    return -1;
}

namespace {

// Reorder a's elements by the permutation `order` (see sort_generic on why malloc is safe).
void permute(NvArray* a, const std::vector<int64_t>& order) {
    size_t sz = (size_t)a->elem->size, n = (size_t)a->len;
    char* tmp = (char*)malloc(sz * n);
    if (!tmp) rt_panic("out of memory");
    for (size_t i = 0; i < n; i++) memcpy(tmp + i * sz, a->data + order[i] * sz, sz);
    memcpy(a->data, tmp, sz * n);
    free(tmp);
}

std::vector<int64_t> identity(int64_t n) {
    std::vector<int64_t> order((size_t)n);
    for (int64_t i = 0; i < n; i++) order[(size_t)i] = i;
    return order;
}

// f may change the array it sorts (it is ordinary Neve code): refuse rather than misplace.
void check_unchanged(const NvArray* a, int64_t len, const char* data) {
    if (a->len != len || a->data != data) rt_panic("array modified during sort");
}

}  // namespace

extern "C" void nv_array_sort_key(NvArray* a, const void* fn, NvSortKey key, const NvType* kt,
                                  int32_t reverse) {
    int64_t n = a->len;
    if (n < 2) return;
    const char* data = a->data;
    size_t esz = (size_t)a->elem->size;
    const char* keys = data;
    if (key) {
        size_t ksz = (size_t)kt->size;
        char* k = (char*)GC_MALLOC(ksz * (size_t)n);   // keys may hold pointers (str, tuples)
        if (!k) rt_panic("out of memory");
        for (int64_t i = 0; i < n; i++) key(fn, data + (size_t)i * esz, k + (size_t)i * ksz);
        check_unchanged(a, n, data);
        keys = k;
    } else {
        kt = a->elem;
    }
    size_t ksz = (size_t)kt->size;
    std::vector<int64_t> order = identity(n);
    // stable both ways: equal keys keep their order, also under reverse
    std::stable_sort(order.begin(), order.end(), [keys, ksz, kt, reverse](int64_t x, int64_t y) {
        int c = rt_value_cmp(keys + (size_t)x * ksz, keys + (size_t)y * ksz, kt);
        return reverse ? c > 0 : c < 0;
    });
    permute(a, order);
}

extern "C" void nv_array_sort_less(NvArray* a, const void* fn, NvSortLess less, int32_t reverse) {
    int64_t n = a->len;
    if (n < 2) return;
    const char* data = a->data;
    size_t esz = (size_t)a->elem->size;
    std::vector<int64_t> order = identity(n);
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        const char* px = data + (size_t)x * esz;
        const char* py = data + (size_t)y * esz;
        return (reverse ? less(fn, py, px) : less(fn, px, py)) != 0;
    });
    check_unchanged(a, n, data);
    permute(a, order);
}
