// Splitting and joining (14.5).
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "str/strs.h"

extern "C" {

// Empty fields are kept: "a,,b".split(",") is ["a", "", "b"], "".split(",") is [""].
NvArray* nv_str_split(const NvStr* s, const NvStr* sep) {
    int64_t ls = rt_slen(sep);
    if (ls == 0) rt_panic("split: empty separator");
    const char* p = rt_sdata(s);
    const char* end = p + rt_slen(s);
    NvArray* out = nv_array_new(&nv_type_str, 0);
    for (;;) {
        const char* hit = (const char*)memmem(p, (size_t)(end - p), sep->data, (size_t)ls);
        if (!hit) break;
        rt_str_array_push(out, nv_str_new(p, hit - p));
        p = hit + ls;
    }
    rt_str_array_push(out, nv_str_new(p, end - p));
    return out;
}

// Fields separated by runs of ASCII whitespace; no empty fields.
NvArray* nv_str_split_ws(const NvStr* s) {
    const char* p = rt_sdata(s);
    const char* end = p + rt_slen(s);
    NvArray* out = nv_array_new(&nv_type_str, 0);
    while (p < end) {
        while (p < end && rt_is_space((unsigned char)*p)) p++;
        if (p == end) break;
        const char* q = p;
        while (q < end && !rt_is_space((unsigned char)*q)) q++;
        rt_str_array_push(out, nv_str_new(p, q - p));
        p = q;
    }
    return out;
}

NvStr* nv_str_join(const NvStr* sep, const NvArray* parts) {
    int64_t n = parts ? parts->len : 0;
    if (n == 0) return rt_str_empty();
    NvStr* const* v = (NvStr* const*)parts->data;
    if (n == 1) return v[0] ? v[0] : rt_str_empty();
    int64_t ls = rt_slen(sep), total = ls * (n - 1);
    for (int64_t i = 0; i < n; i++) total += rt_slen(v[i]);
    char* d;
    NvStr* out = rt_str_alloc(total, &d);
    for (int64_t i = 0; i < n; i++) {
        if (i && ls) {
            memcpy(d, sep->data, (size_t)ls);
            d += ls;
        }
        int64_t l = rt_slen(v[i]);
        if (l) {
            memcpy(d, v[i]->data, (size_t)l);
            d += l;
        }
    }
    return out;
}

}  // extern "C"
