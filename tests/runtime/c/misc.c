/* Process and time functions: argv, getenv, timers, clock, sleep, storage float conversions. */
#include <math.h>
#include <stdio.h>
#include "t.h"

static const NvType* const str_e[] = {&nv_type_str};
static const NvType t_arr_str = {NV_ARRAY, 8, 0, 1, str_e, NULL, "array<str>"};

int main(int argc, char** argv) {
    nv_init(argc, argv);
    NvArray* a = nv_argv();
    show(&a, &t_arr_str);
    show_s(nv_getenv(S("NEVE_TEST_VAR"), S("unset")));
    show_s(nv_getenv(S("NEVE_TEST_MISSING"), S("dflt")));
    show_s(nv_getenv(S("NEVE_TEST_MISSING"), NULL));
    nv_start_timer();
    double c0 = nv_clock();
    nv_sleep(0.05);
    double c1 = nv_clock();
    float ms = nv_end_timer();
    char t[128];
    snprintf(t, sizeof t, "slept %d timer %d", c1 - c0 >= 0.049 && c1 - c0 < 1.0,
             ms >= 49.0f && ms < 1000.0f);
    say(t);
    snprintf(t, sizeof t, "epoch %d", nv_time() > 1.7e9);
    say(t);
    snprintf(t, sizeof t, "bf16 %04x %04x %04x %04x %g", nv_f32_to_bf16(1.0f),
             nv_f32_to_bf16(1.00390625f) /* tie, even stays */, nv_f32_to_bf16(1.01171875f) /* tie, up */,
             nv_f32_to_bf16(NAN) & 0x7fc0, nv_bf16_to_f32(0x4049));
    say(t);
    snprintf(t, sizeof t, "half %04x %04x %04x %04x %g %g", nv_f32_to_half(1.0f),
             nv_f32_to_half(65520.0f), nv_f32_to_half(5.9604645e-8f), nv_f32_to_half(-2.0f),
             nv_half_to_f32(0x3555), nv_half_to_f32(0x0001));
    say(t);
    return nv_finish();
}
