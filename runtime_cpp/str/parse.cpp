// Parsing numbers from text (14.6). The accepted forms are checked here first, because strtod
// alone also takes hex floats, "nan(...)" and locale quirks that Neve does not.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "fmt/text.h"
#include "str/strs.h"

namespace {

[[noreturn]] void invalid(const char* prefix, const NvStr* s) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, prefix);
    rt_fmt_quoted(&b, rt_sdata(s), rt_slen(s), '"');
    rt_die(b.data, (size_t)b.len, false);   // the buffer dies with the process
}

// The text without surrounding ASCII whitespace.
void trimmed(const NvStr* s, const char** p, const char** end) {
    const char* a = rt_sdata(s);
    const char* b = a + rt_slen(s);
    while (a < b && rt_is_space((unsigned char)*a)) a++;
    while (b > a && rt_is_space((unsigned char)b[-1])) b--;
    *p = a;
    *end = b;
}

bool word_is(const char* p, const char* end, const char* w) {
    size_t n = strlen(w);
    return (size_t)(end - p) == n && strncasecmp(p, w, n) == 0;
}

// [sign] (digits [. digits*] | . digits) [(e|E) [sign] digits] | [sign] (inf | infinity | nan)
bool float_syntax(const char* p, const char* end) {
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (word_is(p, end, "inf") || word_is(p, end, "infinity") || word_is(p, end, "nan"))
        return true;
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') p++, digits++;
    if (p < end && *p == '.') {
        p++;
        while (p < end && *p >= '0' && *p <= '9') p++, digits++;
    }
    if (!digits) return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        int exp_digits = 0;
        while (p < end && *p >= '0' && *p <= '9') p++, exp_digits++;
        if (!exp_digits) return false;
    }
    return p == end;
}

// A NUL-terminated copy of [p, end) for strtod/strtof; short texts stay on the stack.
template <class F>
auto with_cstr(const char* p, const char* end, F f) {
    size_t n = (size_t)(end - p);
    char small[128];
    char* buf = n < sizeof small ? small : (char*)malloc(n + 1);
    if (!buf) rt_panic("out of memory");
    memcpy(buf, p, n);
    buf[n] = '\0';
    auto r = f(buf);
    if (buf != small) free(buf);
    return r;
}

}  // namespace

extern "C" {

int64_t nv_to_int(const NvStr* s) {
    const char *p, *end;
    trimmed(s, &p, &end);
    bool neg = false;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p == end) invalid("to_int: invalid integer ", s);
    // Accumulate the magnitude as unsigned; the limit is 2^63 for negatives, 2^63 - 1 else.
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') invalid("to_int: invalid integer ", s);
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (limit - d) / 10) invalid("to_int: invalid integer ", s);
        v = v * 10 + d;
    }
    return neg ? (int64_t)(0 - v) : (int64_t)v;
}

float nv_to_float(const NvStr* s) {
    const char *p, *end;
    trimmed(s, &p, &end);
    if (!float_syntax(p, end)) invalid("to_float: invalid number ", s);
    // strtof rounds once from the decimal text (a double step could round twice).
    return with_cstr(p, end, [](const char* c) { return strtof(c, nullptr); });
}

double nv_to_f64(const NvStr* s) {
    const char *p, *end;
    trimmed(s, &p, &end);
    if (!float_syntax(p, end)) invalid("to_f64: invalid number ", s);
    return with_cstr(p, end, [](const char* c) { return strtod(c, nullptr); });
}

}  // extern "C"
