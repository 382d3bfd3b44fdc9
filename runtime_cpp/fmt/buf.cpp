// NvBuf: a text builder that lives on the caller's stack, spilling to malloc when the inline
// part is full (malloc, not the GC heap: it holds no pointers and is released explicitly).
#include <charconv>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "fmt/text.h"
#include "error/panic.h"
#include "str/strs.h"

static_assert(sizeof(NvBuf) == NV_BUF_SIZE, "NvBuf must fill NV_BUF_SIZE bytes");

extern "C" void nv_buf_init(NvBuf* b) {
    b->data = b->small;
    b->len = 0;
    b->cap = (int64_t)sizeof b->small;
}

void rt_buf_release(NvBuf* b) {
    if (b->data != b->small) free(b->data);
    nv_buf_init(b);
}

void rt_buf_append(NvBuf* b, const char* p, size_t n) {
    if (b->len + (int64_t)n > b->cap) {
        int64_t cap = b->cap * 2;
        if (cap < b->len + (int64_t)n) cap = b->len + (int64_t)n;
        char* d;
        if (b->data == b->small) {
            d = (char*)malloc((size_t)cap);
            if (d) memcpy(d, b->data, (size_t)b->len);
        } else {
            d = (char*)realloc(b->data, (size_t)cap);
        }
        if (!d) rt_panic("out of memory");
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += (int64_t)n;
}

void rt_buf_putc(NvBuf* b, char c) {
    if (b->len < b->cap) {
        b->data[b->len++] = c;
        return;
    }
    rt_buf_append(b, &c, 1);
}

extern "C" NvStr* nv_buf_to_str(NvBuf* b) {
    NvStr* s = nv_str_new(b->data, b->len);
    rt_buf_release(b);
    return s;
}

extern "C" void nv_fmt_i64(NvBuf* b, int64_t v) {
    char t[24];
    char* end = std::to_chars(t, t + sizeof t, v).ptr;
    rt_buf_append(b, t, (size_t)(end - t));
}

extern "C" void nv_fmt_u64(NvBuf* b, uint64_t v) {
    char t[24];
    char* end = std::to_chars(t, t + sizeof t, v).ptr;
    rt_buf_append(b, t, (size_t)(end - t));
}

extern "C" void nv_fmt_bool(NvBuf* b, int32_t v) {
    if (v) rt_buf_append(b, "true", 4);
    else rt_buf_append(b, "false", 5);
}

extern "C" void nv_fmt_char(NvBuf* b, int32_t c) { rt_buf_putc(b, (char)(c & 0xff)); }

extern "C" void nv_fmt_str(NvBuf* b, const NvStr* s) {
    if (s) rt_buf_append(b, s->data, (size_t)s->len);
}

extern "C" void nv_fmt_cstr(NvBuf* b, const char* s) {
    if (s) rt_buf_append(b, s, strlen(s));
}
