// Float text (10.1): the shortest decimal that reads back as the same value of the value's own
// type, laid out like Python's repr: positional for decimal exponents -4 <= e < 16 (always a
// digit after the point), else scientific with a sign and at least two exponent digits.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "fmt/text.h"

namespace {

// Lays out scientific text "[-]d[.ddd]e[+-]XX" (what to_chars and %e give) by the rules above.
void render(NvBuf* b, const char* sci, size_t n) {
    const char* p = sci;
    const char* end = sci + n;
    bool neg = false;
    if (p < end && *p == '-') {
        neg = true;
        p++;
    }
    char digits[40];
    int nd = 0;
    for (; p < end && *p != 'e'; p++)
        if (*p != '.' && nd < (int)sizeof digits) digits[nd++] = *p;
    int e = 0;   // the text is not NUL-terminated: parse the exponent within [p, end)
    if (p < end) {
        p++;
        bool eneg = p < end && *p == '-';
        if (p < end && (*p == '-' || *p == '+')) p++;
        for (; p < end; p++) e = e * 10 + (*p - '0');
        if (eneg) e = -e;
    }
    while (nd > 1 && digits[nd - 1] == '0') nd--;   // %e pads with zeros; shortest has none

    char out[80];
    int k = 0;
    if (neg) out[k++] = '-';
    if (e >= -4 && e < 16) {
        if (e >= 0) {
            for (int i = 0; i <= e; i++) out[k++] = i < nd ? digits[i] : '0';
            out[k++] = '.';
            if (nd > e + 1)
                for (int i = e + 1; i < nd; i++) out[k++] = digits[i];
            else
                out[k++] = '0';
        } else {
            out[k++] = '0';
            out[k++] = '.';
            for (int i = 0; i < -e - 1; i++) out[k++] = '0';
            for (int i = 0; i < nd; i++) out[k++] = digits[i];
        }
    } else {
        out[k++] = digits[0];
        if (nd > 1) {
            out[k++] = '.';
            for (int i = 1; i < nd; i++) out[k++] = digits[i];
        }
        out[k++] = 'e';
        out[k++] = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;
        if (ae < 10) out[k++] = '0';
        k += snprintf(out + k, sizeof out - k, "%d", ae);
    }
    rt_buf_append(b, out, (size_t)k);
}

bool special(NvBuf* b, double v) {
    if (std::isnan(v)) {
        rt_buf_append(b, "nan", 3);
        return true;
    }
    if (std::isinf(v)) {
        if (v < 0) rt_buf_append(b, "-inf", 4);
        else rt_buf_append(b, "inf", 3);
        return true;
    }
    return false;
}

// Storage types: try 1, 2, ... significant digits (%e rounds correctly) until the text
// converts back to the same bits. At most 5 digits are ever needed for half and bf16.
template <class Encode>
void shortest_small(NvBuf* b, float v, int32_t bits, Encode encode) {
    if (special(b, v)) return;
    char t[48];
    int n = 0;
    for (int prec = 1; prec <= 9; prec++) {
        n = snprintf(t, sizeof t, "%.*e", prec - 1, (double)v);
        if ((encode(strtof(t, nullptr)) & 0xffff) == (bits & 0xffff)) break;
    }
    render(b, t, (size_t)n);
}

}  // namespace

extern "C" void nv_fmt_f64(NvBuf* b, double v) {
    if (special(b, v)) return;
    char t[48];
    // Without a precision, to_chars gives the shortest round-trip digits.
    char* end = std::to_chars(t, t + sizeof t, v, std::chars_format::scientific).ptr;
    render(b, t, (size_t)(end - t));
}

extern "C" void nv_fmt_f32(NvBuf* b, float v) {
    if (special(b, v)) return;
    char t[48];
    char* end = std::to_chars(t, t + sizeof t, v, std::chars_format::scientific).ptr;
    render(b, t, (size_t)(end - t));
}

extern "C" void nv_fmt_bf16(NvBuf* b, int32_t bits) {
    shortest_small(b, nv_bf16_to_f32(bits), bits, nv_f32_to_bf16);
}

extern "C" void nv_fmt_half(NvBuf* b, int32_t bits) {
    shortest_small(b, nv_half_to_f32(bits), bits, nv_f32_to_half);
}
