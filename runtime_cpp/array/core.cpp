// Growable arrays (3.4, 14.4): NvArray {len, cap, data, elem}. The element storage is scanned
// by the collector only when elements may hold pointers (elem->has_ptrs). Slots past len of
// such an array are kept zeroed, so that a dropped reference does not stay reachable; those of
// a pointer-free array hold whatever was there (push clears the slot it hands out).
#include <algorithm>
#include <cstring>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"
#include "gc/alloc.h"
#include "types/index.h"

namespace {

inline int64_t slot_size(const NvType* t) { return t->size > 0 ? t->size : 1; }

// Storage for at least *cap slots, of which the first `zeroed` bytes read as zero; *cap becomes
// what the block holds (the rest of the collector's size class is the array's too).
char* alloc_slots(const NvType* elem, int64_t* cap, int64_t zeroed) {
    int64_t sz = slot_size(elem);
    if (*cap > INT64_MAX / sz) rt_panic("out of memory");
    size_t bytes = (size_t)(*cap * sz);
    char* p = (char*)(elem->has_ptrs ? rt_alloc(bytes) : rt_alloc_atomic_uninit(bytes));
    if (!elem->has_ptrs && zeroed) memset(p, 0, (size_t)zeroed);
    *cap = (int64_t)(rt_alloc_usable(p, bytes) / (size_t)sz);
    return p;
}

inline char* slot(const NvArray* a, int64_t i) { return a->data + i * slot_size(a->elem); }

// Clears slots [from, to) of an array whose slots past len must stay zero.
inline void clear_slots(NvArray* a, int64_t from, int64_t to) {
    if (a->elem->has_ptrs && to > from)
        memset(slot(a, from), 0, (size_t)((to - from) * slot_size(a->elem)));
}

}  // namespace

NvArray* rt_array_make(const NvType* elem, int64_t len, int64_t cap) {
    if (len < 0) len = 0;
    if (cap < len) cap = len;
    NvArray* a = (NvArray*)rt_alloc(sizeof(NvArray));
    a->elem = elem;
    a->len = len;
    a->data = cap ? alloc_slots(elem, &cap, len * slot_size(elem)) : nullptr;
    a->cap = cap;
    return a;
}

// A new block at least twice the size, the elements copied. The old block is left to the
// collector, not freed at once: a loop over a fixed-size element, a sort comparator, C code or
// another thread may still read it.
void rt_array_reserve(NvArray* a, int64_t need) {
    if (need <= a->cap) return;
    int64_t cap = a->cap > INT64_MAX / 2 ? need : std::max(need, a->cap * 2);
    if (cap < 4) cap = 4;
    int64_t used = a->len * slot_size(a->elem);
    char* d = alloc_slots(a->elem, &cap, 0);
    if (used) memcpy(d, a->data, (size_t)used);
    a->data = d;
    a->cap = cap;
}

extern "C" {

NvArray* nv_array_new(const NvType* elem, int64_t len) { return rt_array_make(elem, len, len); }

void* nv_array_push(NvArray* a) {
    rt_array_reserve(a, a->len + 1);
    char* p = slot(a, a->len++);
    if (!a->elem->has_ptrs) memset(p, 0, (size_t)slot_size(a->elem));
    return p;
}

void nv_array_grow(NvArray* a) { rt_array_reserve(a, a->len + 1); }

void* nv_array_insert(NvArray* a, int64_t i) {
    int64_t j = i < 0 ? i + a->len : i;
    if (j < 0 || j > a->len) nv_panic_index(i, a->len, 0);
    rt_array_reserve(a, a->len + 1);
    int64_t sz = slot_size(a->elem);
    char* p = slot(a, j);
    memmove(p + sz, p, (size_t)((a->len - j) * sz));
    memset(p, 0, (size_t)sz);
    a->len++;
    return p;
}

void nv_array_extend(NvArray* a, const NvArray* b) {
    if (!b || b->len == 0) return;
    int64_t n = b->len;            // read before growing: b may be a itself
    rt_array_reserve(a, a->len + n);
    memcpy(slot(a, a->len), b->data, (size_t)(n * slot_size(a->elem)));
    a->len += n;
}

void nv_array_pop(NvArray* a, void* out) {
    if (a->len == 0) rt_panic("pop from empty array");
    char* p = slot(a, a->len - 1);
    int64_t sz = slot_size(a->elem);
    if (out) memcpy(out, p, (size_t)sz);
    a->len--;
    clear_slots(a, a->len, a->len + 1);
}

void nv_array_remove_at(NvArray* a, int64_t i, void* out) {
    int64_t j = i < 0 ? i + a->len : i;
    if (j < 0 || j >= a->len) nv_panic_index(i, a->len, 0);
    int64_t sz = slot_size(a->elem);
    char* p = slot(a, j);
    if (out) memcpy(out, p, (size_t)sz);
    memmove(p, p + sz, (size_t)((a->len - j - 1) * sz));
    a->len--;
    clear_slots(a, a->len, a->len + 1);
}

void nv_array_clear(NvArray* a) {
    clear_slots(a, 0, a->len);
    a->len = 0;
}

NvArray* nv_array_clone(const NvArray* a) {
    NvArray* c = rt_array_make(a->elem, a->len, a->len);
    if (a->len) memcpy(c->data, a->data, (size_t)(a->len * slot_size(a->elem)));
    return c;
}

NvArray* nv_array_slice(const NvArray* a, int64_t lo, int64_t hi) {
    rt_slice_bounds(a->len, &lo, &hi);
    NvArray* c = rt_array_make(a->elem, hi - lo, hi - lo);
    if (hi > lo) memcpy(c->data, slot(a, lo), (size_t)((hi - lo) * slot_size(a->elem)));
    return c;
}

void nv_array_reverse(NvArray* a) {
    int64_t sz = slot_size(a->elem);
    for (int64_t i = 0, j = a->len - 1; i < j; i++, j--)
        std::swap_ranges(slot(a, i), slot(a, i) + sz, slot(a, j));
}

}  // extern "C"
