// Storage float types (3.1): bfloat16 and IEEE binary16 <-> float, rounding to nearest even.
#include <cmath>
#include <cstdint>
#include <cstring>
#include "neve_rt.h"

namespace {
inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
inline float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
}  // namespace

extern "C" {

float nv_bf16_to_f32(int32_t bits) { return float_of((uint32_t)(bits & 0xffff) << 16); }

int32_t nv_f32_to_bf16(float v) {
    uint32_t u = bits_of(v);
    if ((u & 0x7fffffff) > 0x7f800000) return (int32_t)((u >> 16) | 0x40);   // quiet NaN stays NaN
    u += 0x7fff + ((u >> 16) & 1);   // round half to even on the dropped 16 bits
    return (int32_t)(u >> 16);
}

float nv_half_to_f32(int32_t bits) {
    uint32_t h = (uint32_t)bits & 0xffff;
    uint32_t sign = (h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 0) {
        float m = std::ldexp((float)mant, -24);   // zero or subnormal
        return sign ? -m : m;
    }
    if (exp == 31) return float_of(sign | 0x7f800000 | (mant << 13));
    return float_of(sign | ((exp + 112) << 23) | (mant << 13));
}

// After F. Giesen, "float_to_half_fast3_rtne" (public domain).
int32_t nv_f32_to_half(float v) {
    uint32_t u = bits_of(v);
    uint32_t sign = (u >> 16) & 0x8000;
    uint32_t mag = u & 0x7fffffff;
    if (mag >= 0x7f800000)   // inf stays inf, NaN stays a quiet NaN
        return (int32_t)(sign | 0x7c00 | (mag > 0x7f800000 ? 0x200 | ((mag >> 13) & 0x3ff) : 0));
    if (mag >= 0x477ff000) return (int32_t)(sign | 0x7c00);   // >= 65520 rounds to inf
    if (mag < 0x38800000) {
        // Subnormal result: adding 0.5 lines the half's last bit up with the float's, so the
        // FPU's own round-to-nearest-even does the rounding.
        float f = float_of(mag) + 0.5f;
        return (int32_t)(sign | (bits_of(f) - 0x3f000000));
    }
    uint32_t odd = (mag >> 13) & 1;
    mag += ((uint32_t)(15 - 127) << 23) + 0xfff + odd;
    return (int32_t)(sign | (mag >> 13));
}

}  // extern "C"
