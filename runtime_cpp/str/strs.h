// Internal helpers of the str concern. An NvStr and its bytes are one atomic GC object (the
// data pointer points into the object itself, so the collector need not scan it); the bytes
// are followed by a NUL for the benefit of C calls (strtod, getenv).
#pragma once
#include <cstdint>
#include "neve_rt.h"

// A new string of len bytes; the caller fills *data (NUL already placed at data[len]).
// len <= 0 gives the shared "" and a data pointer valid for zero-byte copies only.
NvStr* rt_str_alloc(int64_t len, char** data);
// The shared "" (non-NULL, so results can always be dereferenced).
NvStr* rt_str_empty();

inline int64_t rt_slen(const NvStr* s) { return s ? s->len : 0; }
inline const char* rt_sdata(const NvStr* s) { return s ? s->data : ""; }
inline bool rt_is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
// Append one string to an array<str>.
void rt_str_array_push(NvArray* a, NvStr* s);
