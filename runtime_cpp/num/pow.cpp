// Integer pow (14.3): exponentiation by squaring with two's complement wrapping.
#include "neve_rt.h"
#include "error/panic.h"

extern "C" int64_t nv_pow_i64(int64_t a, int64_t b) {
    if (b < 0) rt_panic("negative exponent in pow");
    uint64_t base = (uint64_t)a, result = 1;
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
    }
    return (int64_t)result;
}
