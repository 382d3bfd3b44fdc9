#include <math.h>
#include "t.h"

static void f32(float v) { NvBuf b; nv_buf_init(&b); nv_fmt_f32(&b, v); nv_buf_write(&b, 1, 1); }
static void f64(double v) { NvBuf b; nv_buf_init(&b); nv_fmt_f64(&b, v); nv_buf_write(&b, 1, 1); }
static void bf16(float v) { NvBuf b; nv_buf_init(&b); nv_fmt_bf16(&b, nv_f32_to_bf16(v)); nv_buf_write(&b, 1, 1); }
static void half(float v) { NvBuf b; nv_buf_init(&b); nv_fmt_half(&b, nv_f32_to_half(v)); nv_buf_write(&b, 1, 1); }

int main(int argc, char** argv) {
    nv_init(argc, argv);
    volatile float three = 3.0f;
    f32(0.1f); f32(1.0f / three); f64(1.0 / 3); f64(1e16); f64(1e-05);
    f64(123456789012345678.0); f64(2.5e20); f64(-0.0); f64(NAN); f64(-NAN); f64(INFINITY);
    f64(-INFINITY); f64(3.0); f64(0.001); f64(1234567.0); f64(1.5e300); f64(0.0001);
    f64(9999999999999998.0); f64(0.1 + 0.2); f64(5e-324); f64(1.7976931348623157e308);
    f64(-2.5); f64(100.0); f64(0.0); f64(1e-4 * 0.99);
    f32(16777216.0f); f32(1e16f); f32(3.4028235e38f); f32(1e-45f); f32(-0.0f); f32(2.5e-5f);
    f32(NAN); f32(-INFINITY);
    bf16(0.1f); bf16(1.0f / three); bf16(3.0f); bf16(-0.0f); bf16(NAN); bf16(1e20f);
    half(0.1f); half(65504.0f); half(1e5f); half(6e-8f); half(-2.5f);
    /* mixed text in one line */
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, "n=");
    nv_fmt_i64(&b, 3);
    nv_fmt_cstr(&b, " half=");
    nv_fmt_f32(&b, 1.5f);
    nv_fmt_cstr(&b, " big=");
    nv_fmt_bool(&b, 1);
    nv_fmt_char(&b, ' ');
    nv_fmt_i64(&b, INT64_MIN);
    nv_buf_write(&b, 1, 1);
    /* a line longer than the inline part of NvBuf, turned into a str */
    nv_buf_init(&b);
    for (int i = 0; i < 100; i++) nv_fmt_cstr(&b, "abcdefghij");
    NvStr* s = nv_buf_to_str(&b);
    show_i(s->len);
    return nv_finish();
}
