/* f-string field specs (10.3) and the text of objects, any and function values (10.1), plus
 * the failed-cast error (argv[1] selects one). Each spec line is `[text]`. */
#include <math.h>
#include <stdio.h>
#include "t.h"

static void out_begin(NvBuf* b) {
    nv_buf_init(b);
    nv_fmt_cstr(b, "[");
}
static void out_end(NvBuf* b) {
    nv_fmt_cstr(b, "]");
    nv_buf_write(b, 1, 1);
}
/* align, zero, width, type as the compiler passes them */
static void I(int64_t v, int u, int align, int zero, int width, int type) {
    NvBuf b;
    out_begin(&b);
    nv_fmt_int_spec(&b, v, u, align, zero, width, type);
    out_end(&b);
}
static void F(double v, int align, int zero, int width, int prec, int type) {
    NvBuf b;
    out_begin(&b);
    nv_fmt_float_spec(&b, v, align, zero, width, prec, type);
    out_end(&b);
}
static void P(const char* s, int align, int width) {
    NvBuf b;
    out_begin(&b);
    nv_fmt_cstr(&b, "x=");   /* text before the field stays put */
    int64_t start = nv_buf_len(&b);
    nv_fmt_cstr(&b, s);
    nv_fmt_pad(&b, start, align, width);
    out_end(&b);
}

/* classes */
typedef struct { const void* const* vtable; int64_t x, y; } Point;   /* 7.5: header first */
static NvStr* point_to_str(void* self) {
    Point* p = (Point*)self;
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, "Point(");
    nv_fmt_i64(&b, p->x);
    nv_fmt_cstr(&b, ", ");
    nv_fmt_i64(&b, p->y);
    nv_fmt_cstr(&b, ")");
    return nv_buf_to_str(&b);
}
static const NvType t_point = {NV_CLASS, 8, 0, 1, NULL, NULL, "Point", (const void*)point_to_str};
static const NvType t_counter = {NV_CLASS, 8, 0, 1, NULL, NULL, "Counter", NULL};
static const void* const vt_point[] = {&t_point}, * const vt_counter[] = {&t_counter};   /* [0]: the class */
static const NvType t_any = {NV_ANY, 16, 0, 1, NULL, NULL, "any"};
static const NvType t_foreign = {NV_FOREIGN, 8, 0, 0, NULL, NULL, "FILE"};
static const NvType t_fn = {NV_FUNCTION, 8, 0, 1, NULL, NULL, "fn(int) -> int"};
static const NvType* const int_e[] = {&nv_type_int};
static const NvType t_arr_int = {NV_ARRAY, 8, 0, 1, int_e, NULL, "array<int>"};
static const NvType* const any_e[] = {&t_any};
static const NvType t_arr_any = {NV_ARRAY, 8, 0, 1, any_e, NULL, "array<any>"};
static const NvType* const pt_e[] = {&t_point};
static const NvType t_arr_pt = {NV_ARRAY, 8, 0, 1, pt_e, NULL, "array<Point>"};
static const NvType* const fn_e[] = {&t_fn};
static const NvType t_arr_fn = {NV_ARRAY, 8, 0, 1, fn_e, NULL, "array<fn(int) -> int>"};
static const NvType* const si_e[] = {&nv_type_str, &nv_type_int};
static const NvType t_map_si = {NV_MAP, 8, 0, 1, si_e, NULL, "map<str, int>"};

static int64_t twice(int64_t x) { return 2 * x; }
static const NvFuncValue fv_twice = {(void*)twice, "twice"};

static const NvFuncInfo f_main = {"main", "cast.nv"};

int main(int argc, char** argv) {
    nv_init(argc, argv);
    if (argc > 1) {
        PUSH(f, f_main, 5, 12);
        if (!strcmp(argv[1], "cast")) nv_panic_cast(&t_counter, &t_point);
        if (!strcmp(argv[1], "cast_nil")) nv_panic_cast(NULL, &t_point);
        if (!strcmp(argv[1], "cast_foreign")) nv_panic_cast(&t_foreign, &t_arr_int);
        POP(f);
        return nv_finish();
    }
    /* integers */
    I(7, 0, '>', 0, 4, 0);          /* {7:>4} */
    I(7, 0, 0, 0, 4, 0);            /* {7:4} numbers default right */
    I(7, 0, '<', 0, 4, 'd');        /* {7:<4d} */
    I(255, 0, 0, 0, 0, 'x');        /* {255:x} */
    I(-255, 0, 0, 0, 0, 'x');       /* {-255:x} */
    I(42, 0, 0, 1, 5, 'd');         /* {42:05d} */
    I(-42, 0, 0, 1, 6, 'd');        /* {-42:06d} */
    I(-42, 0, '>', 1, 6, 0);        /* {-42:>06} */
    I(255, 0, 0, 1, 6, 'x');        /* {255:06x} */
    I(-255, 0, 0, 1, 6, 'x');       /* {-255:06x} */
    I(123456, 0, 0, 1, 3, 'd');     /* wider than width */
    I(INT64_MIN, 0, 0, 0, 0, 'd');
    I(INT64_MIN, 0, 0, 0, 0, 'x');
    I(200, 1, 0, 0, 0, 'x');        /* u8 */
    I(-1, 1, 0, 0, 0, 'd');         /* unsigned view of the bits */
    I(97, 1, '>', 0, 5, 'd');       /* {c:>5d} for a char */
    /* floats */
    F(0.123456, 0, 0, 0, 4, 'f');   /* {0.123456:.4f} */
    F(0.0003, 0, 0, 0, -1, 'e');    /* {0.0003:e} */
    F(1234.5, 0, 0, 0, -1, 'e');    /* {1234.5:e} */
    F(2.5, 0, 0, 0, 0, 'f');        /* half to even */
    F(3.5, 0, 0, 0, 0, 'f');
    F(0.125, 0, 0, 0, 2, 'f');      /* exact binary tie: 0.12 */
    F(0.1, 0, 0, 0, 20, 'f');       /* the exact binary value */
    F(1.0, 0, 0, 0, -1, 'f');
    F(-1.5, 0, 1, 8, 2, 'f');       /* {-1.5:08.2f} */
    F(1.5, '<', 0, 8, 2, 'f');      /* {1.5:<8.2f} */
    F(3.14159, 0, 0, 10, 3, 'e');
    F(-0.0, 0, 0, 0, 2, 'f');
    F(1e300, 0, 0, 0, 2, 'f');      /* long text */
    F(NAN, 0, 1, 6, 2, 'f');
    F(-INFINITY, 0, 1, 6, -1, 'e');
    F(0.1, 0, 0, 8, -1, 0);         /* no type: print's text, padded */
    F(1e-05, '<', 0, 8, -1, 0);
    F(-2.5, 0, 1, 7, -1, 0);
    F(0.30000000000000004, 0, 0, 0, -1, 0);
    /* str-like fields padded after the fact */
    P("ab", '>', 5);                /* {"ab":>5} */
    P("ab", 0, 5);                  /* default left */
    P("ab", '<', 5);
    P("abcdef", '>', 3);
    P("", '>', 2);
    {   /* float32 without type: nv_fmt_f32 then nv_fmt_pad_num */
        NvBuf b;
        out_begin(&b);
        int64_t start = nv_buf_len(&b);
        nv_fmt_f32(&b, -0.1f);
        nv_fmt_pad_num(&b, start, 0, 1, 8);
        out_end(&b);
    }
    /* objects, any, functions */
    Point* p = (Point*)nv_alloc(sizeof(Point));
    p->x = 3;
    p->y = -4;
    p->vtable = vt_point;
    void* c = nv_alloc(8);
    *(const void* const**)c = vt_counter;
    void* nilobj = NULL;
    show(&p, &t_point);
    show(&c, &t_counter);
    show(&nilobj, &t_point);
    NvArray* pts = nv_array_new(&t_point, 2);
    ((Point**)pts->data)[0] = p;
    show(&pts, &t_arr_pt);
    NvArray* xs = nv_array_new(&nv_type_int, 2);
    ((int64_t*)xs->data)[1] = 5;
    NvMap* m = nv_map_new(&nv_type_str, &nv_type_int);
    NvStr* k = S("k");
    *(int64_t*)nv_map_slot(m, &k) = 1;
    NvAny anys[] = {
        {p, &t_point}, {c, &t_counter}, {NULL, NULL}, {xs, &t_arr_int}, {S("text"), &nv_type_str},
        {m, &t_map_si}, {&fv_twice, &t_fn},
    };
    for (int i = 0; i < 7; i++) show(&anys[i], &t_any);
    NvArray* aa = nv_array_new(&t_any, 7);
    memcpy(aa->data, anys, sizeof anys);
    show(&aa, &t_arr_any);
    NvAny fa = {(void*)0x1234, &t_foreign};
    show(&fa, &t_any);
    const NvFuncValue* fp = &fv_twice;
    show(&fp, &t_fn);
    const NvFuncValue* nofn = NULL;
    show(&nofn, &t_fn);
    NvArray* fns = nv_array_new(&t_fn, 2);
    ((const NvFuncValue**)fns->data)[0] = &fv_twice;
    show(&fns, &t_arr_fn);
    return nv_finish();
}
