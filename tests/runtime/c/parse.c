#include <stdio.h>
#include "t.h"

/* ./parse            valid conversions
 * ./parse KIND TEXT  parse TEXT with to_int / to_float / to_f64 inside a Neve frame */
int main(int argc, char** argv) {
    nv_init(argc, argv);
    static const NvFuncInfo fi = {"main", "parse.nv"};
    if (argc == 3) {
        say("before");
        PUSH(f, fi, 3, 9);
        NvStr* s = S(argv[2]);
        NvBuf b;
        nv_buf_init(&b);
        if (!strcmp(argv[1], "int")) nv_fmt_i64(&b, nv_to_int(s));
        else if (!strcmp(argv[1], "float")) nv_fmt_f32(&b, nv_to_float(s));
        else nv_fmt_f64(&b, nv_to_f64(s));
        nv_buf_write(&b, 1, 1);
        POP(f);
        return nv_finish();
    }
    const char* ints[] = {"42", " -17 ", "+5", "9223372036854775807", "-9223372036854775808", "\t0\n"};
    for (int i = 0; i < 6; i++) show_i(nv_to_int(S(ints[i])));
    const char* floats[] = {"0.1", " 1e3 ", "-2.5E-3", "inf", "-Infinity", "NaN", ".5", "5.", "1e39"};
    for (int i = 0; i < 9; i++) {
        NvBuf b;
        nv_buf_init(&b);
        nv_fmt_f32(&b, nv_to_float(S(floats[i])));
        nv_fmt_cstr(&b, " ");
        nv_fmt_f64(&b, nv_to_f64(S(floats[i])));
        nv_buf_write(&b, 1, 1);
    }
    return nv_finish();
}
