// NvBuf: a text builder that lives on the caller's stack, spilling to malloc when the inline
// part is full (malloc, not the GC heap: it holds no pointers and is released explicitly).
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

namespace {

// Room for n more bytes; out of line, so appends that fit need no saved registers.
__attribute__((noinline)) void buf_grow(NvBuf* b, size_t n) {
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

}  // namespace

void rt_buf_append(NvBuf* b, const char* p, size_t n) {
    if (b->len + (int64_t)n > b->cap) buf_grow(b, n);
    rt_copy_bytes(b->data + b->len, p, n);
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

namespace {

constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int decimal_digits(uint64_t v) {
    int n = 1;
    for (;;) {
        if (v < 10) return n;
        if (v < 100) return n + 1;
        if (v < 1000) return n + 2;
        if (v < 10000) return n + 3;
        v /= 10000;
        n += 4;
    }
}

// The decimal text of v at d (at most 20 bytes, two digits a step from the end); its length.
int put_decimal(char* d, uint64_t v) {
    int n = decimal_digits(v);
    char* p = d + n;
    while (v >= 100) {
        const char* q = kPairs + 2 * (v % 100);
        v /= 100;
        p -= 2;
        p[0] = q[0];
        p[1] = q[1];
    }
    if (v >= 10) {
        p[-2] = kPairs[2 * v];
        p[-1] = kPairs[2 * v + 1];
    } else {
        p[-1] = (char)('0' + v);
    }
    return n;
}

// Integers go straight into the buffer when 21 bytes (the longest text) are free.
void fmt_integer(NvBuf* b, uint64_t mag, bool neg) {
    char t[24];
    bool direct = b->cap - b->len >= 21;
    char* d = direct ? b->data + b->len : t;
    if (neg) *d = '-';
    int n = neg + put_decimal(d + neg, mag);
    if (direct) b->len += n;
    else rt_buf_append(b, t, (size_t)n);
}

}  // namespace

extern "C" void nv_fmt_i64(NvBuf* b, int64_t v) {
    fmt_integer(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

extern "C" void nv_fmt_u64(NvBuf* b, uint64_t v) { fmt_integer(b, v, false); }

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
