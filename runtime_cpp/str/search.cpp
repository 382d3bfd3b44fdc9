// Searching and replacing substrings (14.5); bytewise, via memmem.
#include <cstring>
#include "neve_rt.h"
#include "str/strs.h"

extern "C" {

int32_t nv_str_startswith(const NvStr* s, const NvStr* p) {
    int64_t lp = rt_slen(p);
    return lp <= rt_slen(s) && (lp == 0 || memcmp(s->data, p->data, (size_t)lp) == 0);
}

int32_t nv_str_endswith(const NvStr* s, const NvStr* p) {
    int64_t ls = rt_slen(s), lp = rt_slen(p);
    return lp <= ls && (lp == 0 || memcmp(s->data + ls - lp, p->data, (size_t)lp) == 0);
}

// Byte index of the first occurrence at or after start (clamped to [0, len]), or -1.
int64_t nv_str_find(const NvStr* s, const NvStr* sub, int64_t start) {
    int64_t ls = rt_slen(s), lsub = rt_slen(sub);
    if (start < 0) start = 0;
    if (start > ls) start = ls;
    if (lsub == 0) return start;
    const char* base = rt_sdata(s);
    const char* hit = (const char*)memmem(base + start, (size_t)(ls - start), sub->data,
                                          (size_t)lsub);
    return hit ? hit - base : -1;
}

// Non-overlapping occurrences; an empty sub matches between every two bytes (len + 1).
int64_t nv_str_count(const NvStr* s, const NvStr* sub) {
    int64_t ls = rt_slen(s), lsub = rt_slen(sub);
    if (lsub == 0) return ls + 1;
    const char* p = rt_sdata(s);
    const char* end = p + ls;
    int64_t n = 0;
    while (const char* hit = (const char*)memmem(p, (size_t)(end - p), sub->data, (size_t)lsub)) {
        n++;
        p = hit + lsub;
    }
    return n;
}

NvStr* nv_str_replace(const NvStr* s, const NvStr* old, const NvStr* neu) {
    int64_t lo = rt_slen(old);
    int64_t n = lo ? nv_str_count(s, old) : 0;
    if (n == 0) return s ? (NvStr*)s : rt_str_empty();
    int64_t ln = rt_slen(neu), ls = rt_slen(s);
    char* d;
    NvStr* out = rt_str_alloc(ls + n * (ln - lo), &d);
    const char* p = s->data;
    const char* end = p + ls;
    while (const char* hit = (const char*)memmem(p, (size_t)(end - p), old->data, (size_t)lo)) {
        memcpy(d, p, (size_t)(hit - p));
        d += hit - p;
        if (ln) memcpy(d, neu->data, (size_t)ln);
        d += ln;
        p = hit + lo;
    }
    memcpy(d, p, (size_t)(end - p));
    return out;
}

}  // extern "C"
