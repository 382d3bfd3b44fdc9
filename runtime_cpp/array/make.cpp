// Array constructors of the standard library (14.4): arange_int, arange_float, zeros/ones.
#include <cmath>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"

extern "C" {

// Half-open [a, b) by step; negative steps count down.
NvArray* nv_arange_int(int64_t a, int64_t b, int64_t step) {
    if (step == 0) rt_panic("arange step must not be zero");
    // 128-bit arithmetic: b - a and the rounding up may overflow int64
    __int128 span = (__int128)b - a;
    __int128 n = 0;
    if (step > 0 && span > 0) n = (span + step - 1) / step;
    if (step < 0 && span < 0) n = (-span + (-(__int128)step) - 1) / -(__int128)step;
    if (n > INT64_MAX / 8) rt_panic("out of memory");
    NvArray* r = rt_array_make(&nv_type_int, (int64_t)n, (int64_t)n);
    int64_t* p = (int64_t*)r->data;
    for (int64_t i = 0; i < (int64_t)n; i++) p[i] = (int64_t)(a + (__int128)i * step);
    return r;
}

// Values a + i * step (computed in f64, then rounded once to float) while before b.
NvArray* nv_arange_float(float a, float b, float step) {
    if (step == 0.0f) rt_panic("arange step must not be zero");
    double n = std::ceil(((double)b - (double)a) / (double)step);
    if (!(n > 0)) n = 0;   // also NaN bounds
    if (n > (double)(INT64_MAX / 8)) rt_panic("out of memory");
    int64_t count = (int64_t)n;
    NvArray* r = rt_array_make(&nv_type_float, count, count);
    float* p = (float*)r->data;
    for (int64_t i = 0; i < count; i++) p[i] = (float)((double)a + (double)i * (double)step);
    return r;
}

// zeros_int / ones_int; a negative n gives an empty array.
NvArray* nv_fill_int(int64_t n, int64_t v) {
    NvArray* r = rt_array_make(&nv_type_int, n, n);
    int64_t* p = (int64_t*)r->data;
    if (v != 0)
        for (int64_t i = 0; i < r->len; i++) p[i] = v;
    return r;
}

NvArray* nv_fill_float(int64_t n, float v) {
    NvArray* r = rt_array_make(&nv_type_float, n, n);
    float* p = (float*)r->data;
    if (v != 0.0f || std::signbit(v))
        for (int64_t i = 0; i < r->len; i++) p[i] = v;
    return r;
}

}  // extern "C"
