// Internal: index and slice rules shared by str, array and fixed arrays (4.5).
#pragma once
#include <cstdint>

// Slice bounds: negatives count from the end, then both are clamped to [0, len]; hi < lo
// makes an empty slice (hi = lo).
inline void rt_slice_bounds(int64_t len, int64_t* lo, int64_t* hi) {
    int64_t a = *lo, b = *hi;
    if (a < 0) a = a < -len ? 0 : a + len;
    if (b < 0) b = b < -len ? 0 : b + len;
    if (a > len) a = len;
    if (b > len) b = len;
    if (b < a) b = a;
    *lo = a;
    *hi = b;
}
