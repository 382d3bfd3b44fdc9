// Creating, joining, comparing, indexing and slicing strings (10.2, 14.5). Strings are
// immutable, so results may share an argument when the text is unchanged.
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "gc/alloc.h"
#include "map/maps.h"
#include "str/strs.h"
#include "types/index.h"

namespace {
NvStr g_empty = {0, ""};
}

NvStr* rt_str_empty() { return &g_empty; }

uint64_t rt_str_hash_slow(const NvStr* s) {
    uint64_t h = s ? rt_hash_bytes(s->data, s->len) : rt_hash_bytes("", 0);
    if (h < 2) h += 2;
    if (s) __atomic_store_n(&((NvStr*)s)->hash, h, __ATOMIC_RELAXED);
    return h;
}

NvStr* rt_str_alloc(int64_t len, char** data) {
    if (len <= 0) {
        static char nothing[1];   // a valid target for zero-byte copies
        *data = nothing;
        return &g_empty;
    }
    if (len > INT64_MAX / 2) rt_panic("out of memory");
    NvStr* s = (NvStr*)rt_alloc_atomic_uninit(sizeof(NvStr) + (size_t)len + 1);
    char* d = (char*)(s + 1);
    d[len] = '\0';
    s->len = len;
    s->data = d;
    s->hash = 0;
    *data = d;
    return s;
}

void rt_str_array_push(NvArray* a, NvStr* s) {
    NvStr** slot = (NvStr**)nv_array_push(a);
    *slot = s;
}

extern "C" {

NvStr* nv_str_new(const char* data, int64_t len) {
    char* d;
    NvStr* s = rt_str_alloc(len, &d);
    if (len > 0) rt_copy_bytes(d, data, (size_t)len);
    return s;
}

NvStr* nv_str_concat(const NvStr* a, const NvStr* b) {
    int64_t la = rt_slen(a), lb = rt_slen(b);
    if (lb == 0) return a ? (NvStr*)a : &g_empty;
    if (la == 0) return (NvStr*)b;
    char* d;
    NvStr* s = rt_str_alloc(la + lb, &d);
    memcpy(d, a->data, (size_t)la);
    memcpy(d + la, b->data, (size_t)lb);
    return s;
}

int32_t nv_str_eq(const NvStr* a, const NvStr* b) {
    int64_t la = rt_slen(a);
    if (la != rt_slen(b)) return 0;
    if (la == 0 || a == b) return 1;
    uint64_t ha = __atomic_load_n(&a->hash, __ATOMIC_RELAXED);
    uint64_t hb = __atomic_load_n(&b->hash, __ATOMIC_RELAXED);
    if (ha && hb && ha != hb) return 0;   // both hashed already: differing hashes decide
    return memcmp(a->data, b->data, (size_t)la) == 0;
}

int32_t nv_str_cmp(const NvStr* a, const NvStr* b) {
    int64_t la = rt_slen(a), lb = rt_slen(b);
    int64_t n = la < lb ? la : lb;
    int c = n ? memcmp(a->data, b->data, (size_t)n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

int32_t nv_str_at(const NvStr* s, int64_t i) {
    int64_t len = rt_slen(s);
    int64_t j = i < 0 ? i + len : i;
    if (j < 0 || j >= len) nv_panic_index(i, len, 1);
    return (unsigned char)s->data[j];
}

NvStr* nv_str_slice(const NvStr* s, int64_t lo, int64_t hi) {
    int64_t len = rt_slen(s);
    rt_slice_bounds(len, &lo, &hi);
    if (lo == 0 && hi == len) return s ? (NvStr*)s : &g_empty;
    return nv_str_new(s->data + lo, hi - lo);
}

}  // extern "C"
