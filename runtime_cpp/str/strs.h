// Internal helpers of the str concern. An NvStr and its bytes are one atomic GC object (the
// data pointer points into the object itself, so the collector need not scan it); the bytes
// are followed by a NUL for the benefit of C calls (strtod, getenv). Strings are immutable, so
// a hash once computed stays in the header; the compiler fills it in for literals, whose
// constants are read-only.
#pragma once
#include <cstdint>
#include "neve_rt.h"

// A new string of len bytes; the caller fills *data (NUL already placed at data[len]).
// len <= 0 gives the shared "" and a data pointer valid for zero-byte copies only.
NvStr* rt_str_alloc(int64_t len, char** data);
// The shared "" (non-NULL, so results can always be dereferenced).
NvStr* rt_str_empty();

// The hash of s's bytes as maps use it (rt_hash_bytes, raised to >= 2), cached in s. The
// cache is written at most with one value, so racing writers agree (relaxed atomics).
uint64_t rt_str_hash_slow(const NvStr* s);
inline uint64_t rt_str_hash(const NvStr* s) {
    uint64_t h = s ? __atomic_load_n(&s->hash, __ATOMIC_RELAXED) : 0;
    return h ? h : rt_str_hash_slow(s);
}

inline int64_t rt_slen(const NvStr* s) { return s ? s->len : 0; }
inline const char* rt_sdata(const NvStr* s) { return s ? s->data : ""; }
inline bool rt_is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
// memcpy for the short texts strings mostly are: overlapping word moves below 17 bytes
// instead of a library call.
inline void rt_copy_bytes(char* d, const char* s, size_t n) {
    if (n > 16) {
        __builtin_memcpy(d, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        d[0] = s[0];
        d[n >> 1] = s[n >> 1];
        d[n - 1] = s[n - 1];
    }
}
// Append one string to an array<str>.
void rt_str_array_push(NvArray* a, NvStr* s);
