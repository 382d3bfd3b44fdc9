// Split arguments (9.3): thread t of n receives its own new array (a shallow copy).
//   '>' balanced contiguous chunks: q = L / n, r = L % n; thread t gets q + (t < r) elements
//       starting at t*q + min(t, r).
//   ':' strided: v[t], v[t+n], v[t+2n], ...
// A nil array splits into empty arrays.
#include <cstring>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"

namespace {

NvArray* split(const NvArray* v, const NvType* elem, int64_t t, int64_t n, int32_t mode) {
    if (v) elem = v->elem;
    int64_t len = v ? v->len : 0;
    if (n <= 0 || t < 0 || t >= n) len = 0;
    if (mode != '>' && mode != ':') rt_panicf("split: unknown mode %d", mode);
    if (len == 0) return rt_array_make(elem, 0, 0);
    int64_t sz = elem->size > 0 ? elem->size : 1;
    if (mode == '>') {
        int64_t q = len / n, r = len % n;
        int64_t cnt = q + (t < r ? 1 : 0);
        int64_t start = t * q + (t < r ? t : r);
        NvArray* a = rt_array_make(elem, cnt, cnt);
        if (cnt) memcpy(a->data, v->data + start * sz, (size_t)(cnt * sz));
        return a;
    }
    int64_t cnt = t < len ? (len - t + n - 1) / n : 0;
    NvArray* a = rt_array_make(elem, cnt, cnt);
    const char* src = v->data + t * sz;
    char* dst = a->data;
    for (int64_t i = 0; i < cnt; i++, src += n * sz, dst += sz) memcpy(dst, src, (size_t)sz);
    return a;
}

}  // namespace

extern "C" NvArray* nv_split_chunk(const NvArray* v, int64_t t, int64_t n, int32_t mode) {
    return split(v, nullptr, t, n, mode);
}

extern "C" NvArray* nv_split_chunk_elem(const NvArray* v, int64_t t, int64_t n, int32_t mode,
                                        const NvType* elem) {
    return split(v, elem, t, n, mode);
}
