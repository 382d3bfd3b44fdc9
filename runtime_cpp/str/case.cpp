// Whitespace trimming, ASCII case mapping and repetition (14.5).
#include <cstdint>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "str/strs.h"

namespace {

NvStr* trim(const NvStr* s, bool left, bool right) {
    int64_t len = rt_slen(s), lo = 0, hi = len;
    const char* d = rt_sdata(s);
    if (left)
        while (lo < hi && rt_is_space((unsigned char)d[lo])) lo++;
    if (right)
        while (hi > lo && rt_is_space((unsigned char)d[hi - 1])) hi--;
    if (lo == 0 && hi == len) return s ? (NvStr*)s : rt_str_empty();
    return nv_str_new(d + lo, hi - lo);
}

NvStr* map_case(const NvStr* s, char from_lo, char from_hi, int delta) {
    int64_t len = rt_slen(s);
    char* d;
    NvStr* out = rt_str_alloc(len, &d);
    for (int64_t i = 0; i < len; i++) {
        char c = s->data[i];
        d[i] = c >= from_lo && c <= from_hi ? (char)(c + delta) : c;
    }
    return out;
}

}  // namespace

extern "C" {
NvStr* nv_str_strip(const NvStr* s) { return trim(s, true, true); }
NvStr* nv_str_lstrip(const NvStr* s) { return trim(s, true, false); }
NvStr* nv_str_rstrip(const NvStr* s) { return trim(s, false, true); }
NvStr* nv_str_lower(const NvStr* s) { return map_case(s, 'A', 'Z', 'a' - 'A'); }
NvStr* nv_str_upper(const NvStr* s) { return map_case(s, 'a', 'z', 'A' - 'a'); }
}

// `s * n` (14.5): n copies of s, one allocation.
extern "C" NvStr* nv_str_repeat(const NvStr* s, int64_t n) {
    if (n < 0) rt_panicf("str repeated a negative number of times: %lld", (long long)n);
    int64_t len = rt_slen(s);
    if (n == 0 || len == 0) return rt_str_empty();
    if (len > INT64_MAX / n) rt_panic("out of memory");
    char* d;
    NvStr* out = rt_str_alloc(len * n, &d);
    for (int64_t i = 0; i < n; i++) memcpy(d + i * len, s->data, (size_t)len);
    return out;
}
