// StrBuilder (14.5): a growable byte buffer; add() appends in amortized O(1) per byte by doubling
// the capacity, str() copies the bytes out into a new string.
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "gc/alloc.h"
#include "str/strs.h"

struct NvStrBuilder {
    int64_t len;
    int64_t cap;
    char* data;       // an atomic GC block (bytes only)
};

extern "C" {

NvStrBuilder* nv_sb_new(void) { return (NvStrBuilder*)rt_alloc(sizeof(NvStrBuilder)); }

void nv_sb_add(NvStrBuilder* b, const NvStr* s) {
    int64_t n = rt_slen(s);
    if (n == 0) return;
    if (b->len + n > b->cap) {
        int64_t cap = b->cap ? b->cap : 16;
        while (cap < b->len + n) {
            if (cap > INT64_MAX / 2) rt_panic("out of memory");
            cap *= 2;
        }
        char* d = (char*)rt_alloc_atomic_uninit((size_t)cap);
        if (b->len) memcpy(d, b->data, (size_t)b->len);
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s->data, (size_t)n);
    b->len += n;
}

int64_t nv_sb_size(const NvStrBuilder* b) { return b->len; }

NvStr* nv_sb_str(const NvStrBuilder* b) { return b->len ? nv_str_new(b->data, b->len) : rt_str_empty(); }

void nv_sb_clear(NvStrBuilder* b) { b->len = 0; }

}  // extern "C"
