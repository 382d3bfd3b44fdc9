#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "t.h"

static const NvType* const int_e[] = {&nv_type_int};
static const NvType t_arr_int = {NV_ARRAY, 8, 0, 1, int_e, NULL, "array<int>"};
static const NvType* const arr_int_e[] = {&t_arr_int};
static const NvType t_arr_arr = {NV_ARRAY, 8, 0, 1, arr_int_e, NULL, "array<array<int>>"};
static const NvType* const float_e[] = {&nv_type_float};
static const NvType t_arr_float = {NV_ARRAY, 8, 0, 1, float_e, NULL, "array<float>"};
static const NvType* const f64_e[] = {&nv_type_f64};
static const NvType t_arr_f64 = {NV_ARRAY, 8, 0, 1, f64_e, NULL, "array<f64>"};
static const NvType* const i8_e[] = {&nv_type_i8};
static const NvType t_arr_i8 = {NV_ARRAY, 8, 0, 1, i8_e, NULL, "array<i8>"};
static const NvType* const u8_e[] = {&nv_type_u8};
static const NvType t_arr_u8 = {NV_ARRAY, 8, 0, 1, u8_e, NULL, "array<u8>"};
static const NvType* const bool_e[] = {&nv_type_bool};
static const NvType t_arr_bool = {NV_ARRAY, 8, 0, 1, bool_e, NULL, "array<bool>"};
static const NvType* const str_e[] = {&nv_type_str};
static const NvType t_arr_str = {NV_ARRAY, 8, 0, 1, str_e, NULL, "array<str>"};
static const NvType* const bf16_e[] = {&nv_type_bf16};
static const NvType t_arr_bf16 = {NV_ARRAY, 8, 0, 1, bf16_e, NULL, "array<bf16>"};

/* tuple<int, str> */
typedef struct { int64_t n; NvStr* s; } IntStr;
static const NvType* const tup_e[] = {&nv_type_int, &nv_type_str};
static const int64_t tup_off[] = {0, 8};
static const NvType t_tup = {NV_TUPLE, 16, 2, 1, tup_e, tup_off, "tuple<int, str>"};
static const NvType* const arr_tup_e[] = {&t_tup};
static const NvType t_arr_tup = {NV_ARRAY, 8, 0, 1, arr_tup_e, NULL, "array<tuple<int, str>>"};
/* tuple<char, float[2], bool> : char at 0, float[2] at 4, bool at 12; size 16 */
static const NvType t_fixed = {NV_FIXED, 8, 2, 0, float_e, NULL, "float[2]"};
typedef struct { char c; float f[2]; uint8_t b; } Mixed;
static const NvType* const mixed_e[] = {&nv_type_char, &t_fixed, &nv_type_bool};
static const int64_t mixed_off[] = {0, 4, 12};
static const NvType t_mixed = {NV_TUPLE, 16, 3, 0, mixed_e, mixed_off, "tuple<char, float[2], bool>"};

static NvArray* ints(int n, const int64_t* v) {
    NvArray* a = nv_array_new(&nv_type_int, 0);
    for (int i = 0; i < n; i++) *(int64_t*)nv_array_push(a) = v[i];
    return a;
}

static void reduce_line(NvArray* a, const NvType* at, const NvType* et) {
    char out[16];
    NvBuf b;
    nv_buf_init(&b);
    for (int op = 0; op < 4; op++) {
        nv_array_reduce(a, op, out);
        nv_fmt_value(&b, out, et);
        nv_fmt_cstr(&b, " ");
    }
    for (int op = 0; op < 4; op++) {
        NvArray* s = nv_array_scan(a, op);
        nv_fmt_value(&b, &s, at);
        nv_fmt_cstr(&b, op < 3 ? " " : "");
    }
    nv_buf_write(&b, 1, 1);
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    static const NvFuncInfo fi = {"main", "arrays.nv"};
    PUSH(f, fi, 10, 5);
    const char* mode = argc > 1 ? argv[1] : "";
    int64_t v5[] = {5, 3, 9, 1, 3};
    NvArray* a = ints(5, v5);
    if (!strcmp(mode, "pop_empty")) { int64_t x; nv_array_pop(nv_array_new(&nv_type_int, 0), &x); }
    if (!strcmp(mode, "min_empty")) { int64_t x; nv_array_reduce(nv_array_new(&nv_type_int, 0), 2, &x); }
    if (!strcmp(mode, "max_empty")) { float x; nv_array_reduce(nv_array_new(&nv_type_float, 0), 3, &x); }
    if (!strcmp(mode, "remove_oob")) nv_array_remove_at(a, 7, NULL);
    if (!strcmp(mode, "insert_oob")) nv_array_insert(a, -7);
    if (!strcmp(mode, "arange0")) nv_arange_int(0, 5, 0);
    if (!strcmp(mode, "pow_neg")) nv_pow_i64(2, -1);
    if (!strcmp(mode, "gc")) {
        /* temporaries only: memory must stay bounded (13.3) */
        for (int i = 0; i < 300000; i++) {
            NvArray* t = nv_str_split(S("alpha beta gamma delta epsilon"), S(" "));
            NvStr* j = nv_str_join(S("+"), t);
            NvArray* k = nv_arange_int(0, 64, 1);
            if (j->len != 30 || k->len != 64) return 2;
        }
        /* VmHWM is this program's own peak: ru_maxrss would also count the pages of the
           (possibly huge) test process it was forked from */
        char line[256];
        long hwm = -1;
        FILE* f = fopen("/proc/self/status", "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "VmHWM:", 6)) hwm = atol(line + 6);
        if (f) fclose(f);
        printf("gc ok %ld\n", hwm);
        return nv_finish();
    }
    show(&a, &t_arr_int);
    NvArray* c = nv_array_clone(a);
    nv_array_sort(c);
    show(&c, &t_arr_int);
    show(&a, &t_arr_int);
    int64_t x;
    nv_array_pop(c, &x);
    show_i(x);
    nv_array_remove_at(c, -1, &x);
    show_i(x);
    *(int64_t*)nv_array_insert(c, 0) = 100;
    *(int64_t*)nv_array_insert(c, -1) = 200;
    *(int64_t*)nv_array_insert(c, c->len) = 300;
    show(&c, &t_arr_int);
    nv_array_extend(c, c);
    show(&c, &t_arr_int);
    nv_array_reverse(c);
    show(&c, &t_arr_int);
    x = 3;
    show_i(nv_array_index(a, &x));
    x = 4;
    show_i(nv_array_index(a, &x));
    NvArray* sl = nv_array_slice(a, -3, INT64_MAX);
    show(&sl, &t_arr_int);
    nv_array_clear(sl);
    show(&sl, &t_arr_int);
    NvArray* many = nv_array_new(&nv_type_int, 0);
    for (int i = 0; i < 1000; i++) *(int64_t*)nv_array_push(many) = i;
    nv_array_reduce(many, 0, &x);
    show_i(x);

    /* reduce and scan on several kinds */
    reduce_line(a, &t_arr_int, &nv_type_int);
    NvArray* fa = nv_arange_float(0.5f, 3.0f, 0.5f);
    reduce_line(fa, &t_arr_float, &nv_type_float);
    NvArray* i8 = nv_array_new(&nv_type_i8, 0);
    for (int i = 0; i < 3; i++) *(int8_t*)nv_array_push(i8) = (int8_t)(100 + i);
    reduce_line(i8, &t_arr_i8, &nv_type_i8);
    NvArray* u8 = nv_array_new(&nv_type_u8, 3);
    ((uint8_t*)u8->data)[0] = 200; ((uint8_t*)u8->data)[1] = 100; ((uint8_t*)u8->data)[2] = 7;
    reduce_line(u8, &t_arr_u8, &nv_type_u8);
    NvArray* bf = nv_array_new(&nv_type_bf16, 0);
    for (int i = 1; i <= 3; i++) *(uint16_t*)nv_array_push(bf) = (uint16_t)nv_f32_to_bf16(i * 0.1f);
    reduce_line(bf, &t_arr_bf16, &nv_type_bf16);
    NvArray* empty = nv_array_new(&nv_type_f64, 0);
    double d;
    nv_array_reduce(empty, 0, &d);
    show(&d, &nv_type_f64);
    nv_array_reduce(empty, 1, &d);
    show(&d, &nv_type_f64);
    NvArray* es = nv_array_scan(empty, 2);
    show(&es, &t_arr_f64);
    NvArray* nanarr = nv_array_new(&nv_type_f64, 3);
    ((double*)nanarr->data)[0] = 1; ((double*)nanarr->data)[1] = NAN; ((double*)nanarr->data)[2] = -1;
    nv_array_reduce(nanarr, 2, &d);
    show(&d, &nv_type_f64);
    d = NAN;
    show_i(nv_array_index(nanarr, &d));

    /* sorting floats, str, bool */
    NvArray* fs = nv_array_new(&nv_type_f64, 0);
    double fv[] = {3.5, NAN, -1.0, 0.0, -0.0, 2.0};
    for (int i = 0; i < 6; i++) *(double*)nv_array_push(fs) = fv[i];
    nv_array_sort(fs);
    show(&fs, &t_arr_f64);
    NvArray* ss = nv_str_split(S("pear apple fig apple banana"), S(" "));
    nv_array_sort(ss);
    show(&ss, &t_arr_str);
    NvStr* key = S("fig");
    show_i(nv_array_index(ss, &key));
    NvArray* bs = nv_array_new(&nv_type_bool, 0);
    for (int i = 0; i < 4; i++) *(uint8_t*)nv_array_push(bs) = (uint8_t)(i % 2 == 0);
    nv_array_sort(bs);
    show(&bs, &t_arr_bool);

    /* nested arrays, tuples, fixed arrays, nil */
    NvArray* nest = nv_array_new(&t_arr_int, 0);
    *(NvArray**)nv_array_push(nest) = ints(3, v5);
    *(NvArray**)nv_array_push(nest) = nv_array_new(&nv_type_int, 0);
    *(NvArray**)nv_array_push(nest) = NULL;
    show(&nest, &t_arr_arr);
    NvArray* nil = NULL;
    show(&nil, &t_arr_arr);
    NvArray* tups = nv_array_new(&t_tup, 0);
    IntStr* t0 = (IntStr*)nv_array_push(tups);
    t0->n = 1; t0->s = S("x");
    IntStr* t1 = (IntStr*)nv_array_push(tups);
    t1->n = -2; t1->s = S("y z");
    IntStr* t2 = (IntStr*)nv_array_push(tups);
    t2->n = 1; t2->s = S("a");
    show(&tups, &t_arr_tup);
    show(t0, &t_tup);
    nv_array_sort(tups);
    show(&tups, &t_arr_tup);
    IntStr probe = {1, S("x")};
    show_i(nv_array_index(tups, &probe));
    Mixed m = {'q', {1.5f, -0.0f}, 1};
    show(&m, &t_mixed);
    show(m.f, &t_fixed);
    /* structural equality of nested arrays */
    NvArray* nest2 = nv_array_new(&t_arr_int, 0);
    *(NvArray**)nv_array_push(nest2) = ints(3, v5);
    *(NvArray**)nv_array_push(nest2) = nv_array_new(&nv_type_int, 0);
    *(NvArray**)nv_array_push(nest2) = NULL;
    show_i(nv_value_eq(&nest, &nest2, &t_arr_arr));
    ((int64_t*)(*(NvArray**)nest2->data)->data)[2] = 0;
    show_i(nv_value_eq(&nest, &nest2, &t_arr_arr));

    /* constructors */
    NvArray* r = nv_arange_int(10, 0, -3);
    show(&r, &t_arr_int);
    r = nv_arange_int(0, 5, 1);
    show(&r, &t_arr_int);
    r = nv_arange_int(5, 0, 1);
    show(&r, &t_arr_int);
    NvArray* rf = nv_arange_float(1.0f, 0.0f, -0.25f);
    show(&rf, &t_arr_float);
    r = nv_fill_int(3, 1);
    show(&r, &t_arr_int);
    rf = nv_fill_float(2, 0.0f);
    show(&rf, &t_arr_float);
    show_i(nv_pow_i64(3, 4));
    show_i(nv_pow_i64(2, 64));
    show_i(nv_pow_i64(-3, 3));
    show_i(nv_pow_i64(7, 0));
    POP(f);
    return nv_finish();
}
