// f-string field specs (10.3): [align][0][width][.precision][type].
//   align  0 (default: '>' for numbers, '<' otherwise), '<', '>'
//   zero   numbers with '>' alignment: pad with '0' after the sign (not for inf and nan, which
//          are padded with spaces as printf does)
//   width  minimum width in characters: code points, UTF-8 continuation bytes not counted
//   type   d, x (lowercase hex, "-ff" for -255), f, e (the exact binary value rounded half to
//          even by snprintf: "%.*f", "%.*e"), or 0 (the value's text as print shows it)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "fmt/text.h"

namespace {

void spaces(NvBuf* b, int64_t n) {
    for (int64_t i = 0; i < n; i++) rt_buf_putc(b, ' ');
}

// Pads the number text appended since `start` to `width`. The text is [-]digits...; with
// zero padding the zeros go after the sign.
void pad_number(NvBuf* b, int64_t start, int32_t align, bool zero, int32_t width) {
    if (start < 0 || start > b->len) start = b->len;
    int64_t n = 0;         // code points (10.3); the text is UTF-8 as Neve makes it (10.2)
    for (int64_t i = start; i < b->len; i++) n += ((unsigned char)b->data[i] & 0xC0) != 0x80;
    if (width <= n) return;
    int64_t pad = width - n;
    if (align == '<') {
        spaces(b, pad);
        return;
    }
    int64_t at = start;   // insertion point
    char fill = ' ';
    if (zero) {
        fill = '0';
        if (n > 0 && (b->data[start] == '-' || b->data[start] == '+')) at++;
    }
    spaces(b, pad);       // grow by pad bytes, then open the gap at `at`
    memmove(b->data + at + pad, b->data + at, (size_t)(b->len - pad - at));
    memset(b->data + at, fill, (size_t)pad);
}

bool finite_text(const NvBuf* b, int64_t start) {
    for (int64_t i = start; i < b->len; i++) {
        char c = b->data[i];
        if (c == 'n' || c == 'i') return false;   // nan, inf, -inf
    }
    return true;
}

}  // namespace

extern "C" {

int64_t nv_buf_len(const NvBuf* b) { return b->len; }

void nv_fmt_pad(NvBuf* b, int64_t start, int32_t align, int32_t width) {
    pad_number(b, start, align == '>' ? '>' : '<', false, width);
}

void nv_fmt_pad_num(NvBuf* b, int64_t start, int32_t align, int32_t zero, int32_t width) {
    if (start < 0 || start > b->len) start = b->len;
    bool z = zero && align != '<' && finite_text(b, start);
    pad_number(b, start, align == '<' ? '<' : '>', z, width);
}

void nv_fmt_int_spec(NvBuf* b, int64_t v, int32_t is_unsigned, int32_t align, int32_t zero,
                     int32_t width, int32_t type) {
    int64_t start = b->len;
    bool neg = !is_unsigned && v < 0;
    uint64_t mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
    char t[24];
    int k = sizeof t;
    if (type == 'x') {
        static const char hex[] = "0123456789abcdef";
        do {
            t[--k] = hex[mag & 15];
            mag >>= 4;
        } while (mag);
    } else {
        do {
            t[--k] = char('0' + mag % 10);
            mag /= 10;
        } while (mag);
    }
    if (neg) t[--k] = '-';
    rt_buf_append(b, t + k, sizeof t - (size_t)k);
    nv_fmt_pad_num(b, start, align, zero, width);
}

void nv_fmt_float_spec(NvBuf* b, double v, int32_t align, int32_t zero, int32_t width,
                       int32_t prec, int32_t type) {
    int64_t start = b->len;
    if (type == 'f' || type == 'e') {
        if (std::isnan(v)) {
            rt_buf_append(b, "nan", 3);
        } else if (std::isinf(v)) {
            if (v < 0) rt_buf_append(b, "-inf", 4);
            else rt_buf_append(b, "inf", 3);
        } else {
            if (prec < 0) prec = 6;
            const char* f = type == 'f' ? "%.*f" : "%.*e";
            char small[128];
            int n = snprintf(small, sizeof small, f, prec, v);
            if (n < 0) rt_panic("out of memory");
            if ((size_t)n < sizeof small) {
                rt_buf_append(b, small, (size_t)n);
            } else {
                char* big = (char*)malloc((size_t)n + 1);
                if (!big) rt_panic("out of memory");
                snprintf(big, (size_t)n + 1, f, prec, v);
                rt_buf_append(b, big, (size_t)n);
                free(big);
            }
        }
    } else {
        nv_fmt_f64(b, v);
    }
    nv_fmt_pad_num(b, start, align, zero, width);
}

}  // extern "C"
