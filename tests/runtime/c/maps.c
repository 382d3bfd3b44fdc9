/* Maps (3.4, 14.5): order, reinsertion, stores, NaN and -0.0 keys, str/tuple/any/class keys,
 * keys()/values(), printing (10.1), and the map runtime errors (argv[1] selects one). */
#include <math.h>
#include <stdio.h>
#include "t.h"

static const NvType* const si_e[] = {&nv_type_str, &nv_type_int};
static const NvType t_map_si = {NV_MAP, 8, 0, 1, si_e, NULL, "map<str, int>"};
static const NvType* const is_e[] = {&nv_type_int, &nv_type_str};
static const NvType t_map_is = {NV_MAP, 8, 0, 1, is_e, NULL, "map<int, str>"};
static const NvType* const fi_e[] = {&nv_type_f64, &nv_type_int};
static const NvType t_map_fi = {NV_MAP, 8, 0, 1, fi_e, NULL, "map<f64, int>"};
static const NvType* const ff_e[] = {&nv_type_float, &nv_type_float};
static const NvType t_map_ff = {NV_MAP, 8, 0, 1, ff_e, NULL, "map<float, float>"};
static const NvType* const cb_e[] = {&nv_type_char, &nv_type_bool};
static const NvType t_map_cb = {NV_MAP, 8, 0, 1, cb_e, NULL, "map<char, bool>"};
static const NvType* const str_e[] = {&nv_type_str};
static const NvType t_arr_str = {NV_ARRAY, 8, 0, 1, str_e, NULL, "array<str>"};
static const NvType* const int_e[] = {&nv_type_int};
static const NvType t_arr_int = {NV_ARRAY, 8, 0, 1, int_e, NULL, "array<int>"};
static const NvType* const s_as_e[] = {&nv_type_str, &t_arr_str};
static const NvType t_map_s_as = {NV_MAP, 8, 0, 1, s_as_e, NULL, "map<str, array<str>>"};
static const NvType* const arr_map_e[] = {&t_map_si};
static const NvType t_arr_map = {NV_ARRAY, 8, 0, 1, arr_map_e, NULL, "array<map<str, int>>"};
static const NvType* const i8u8_e[] = {&nv_type_i8, &nv_type_u8};
static const NvType t_map_i8u8 = {NV_MAP, 8, 0, 1, i8u8_e, NULL, "map<i8, u8>"};

/* tuple<int, str> keys */
typedef struct { int64_t n; NvStr* s; } IntStr;
static const NvType* const tup_e[] = {&nv_type_int, &nv_type_str};
static const int64_t tup_off[] = {0, 8};
static const NvType t_tup = {NV_TUPLE, 16, 2, 1, tup_e, tup_off, "tuple<int, str>"};
/* tuple<char, f64, bool> values: char at 0, f64 at 8, bool at 16; size 24 */
typedef struct { char c; double d; uint8_t b; } Mixed;
static const NvType* const mixed_e[] = {&nv_type_char, &nv_type_f64, &nv_type_bool};
static const int64_t mixed_off[] = {0, 8, 16};
static const NvType t_mixed = {NV_TUPLE, 24, 3, 0, mixed_e, mixed_off, "tuple<char, f64, bool>"};
static const NvType* const tm_e[] = {&t_tup, &t_mixed};
static const NvType t_map_tm = {NV_MAP, 8, 0, 1, tm_e, NULL, "map<tuple<int, str>, tuple<char, f64, bool>>"};

/* classes: Point has to_str, Box does not; keys by identity */
typedef struct { const void* const* vtable; int64_t x, y; } Point;   /* 7.5: header first */
static NvStr* point_to_str(void* self) {
    Point* p = (Point*)self;
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, "P(");
    nv_fmt_i64(&b, p->x);
    nv_fmt_cstr(&b, ", ");
    nv_fmt_i64(&b, p->y);
    nv_fmt_cstr(&b, ")");
    return nv_buf_to_str(&b);
}
static const NvType t_point = {NV_CLASS, 8, 0, 1, NULL, NULL, "Point", (const void*)point_to_str};
static const NvType t_box = {NV_CLASS, 8, 0, 1, NULL, NULL, "Box", NULL};
static const void* const vt_point[] = {&t_point}, * const vt_box[] = {&t_box};   /* [0]: the class */
static const NvType* const pi_e[] = {&t_point, &nv_type_int};
static const NvType t_map_pi = {NV_MAP, 8, 0, 1, pi_e, NULL, "map<Point, int>"};
static const NvType t_any = {NV_ANY, 16, 0, 1, NULL, NULL, "any"};
static const NvType* const ai_e[] = {&t_any, &nv_type_int};
static const NvType t_map_ai = {NV_MAP, 8, 0, 1, ai_e, NULL, "map<any, int>"};

static const NvFuncInfo f_main = {"main", "maps.nv"};

static void put_si(NvMap* m, const char* k, int64_t v) {
    NvStr* s = S(k);
    *(int64_t*)nv_map_slot(m, &s) = v;
}
static int64_t get_si(NvMap* m, const char* k) {
    NvStr* s = S(k);
    return *(int64_t*)nv_map_get(m, &s);
}
static int has_si(NvMap* m, const char* k) {
    NvStr* s = S(k);
    return nv_map_find(m, &s) != NULL;
}
static int rm_si(NvMap* m, const char* k) {
    NvStr* s = S(k);
    return nv_map_remove(m, &s);
}
static void show_map(NvMap* m, const NvType* t) { show(&m, t); }
static void line(const char* fmt, int a, int b) {
    char t[200];
    snprintf(t, sizeof t, fmt, a, b);
    say(t);
}

static void errors(const char* mode) {
    PUSH(f, f_main, 9, 14);
    NvMap* m = nv_map_new(&nv_type_str, &nv_type_int);
    put_si(m, "a", 1);
    put_si(m, "b", 2);
    if (!strcmp(mode, "missing_str")) get_si(m, "alpha");
    if (!strcmp(mode, "missing_escaped")) get_si(m, "tab\there \"q\"");
    if (!strcmp(mode, "missing_int")) {
        NvMap* mi = nv_map_new(&nv_type_int, &nv_type_str);
        int64_t k = 3;
        nv_map_get(mi, &k);
    }
    if (!strcmp(mode, "missing_f64")) {
        NvMap* mf = nv_map_new(&nv_type_f64, &nv_type_int);
        double k = NAN;
        *(int64_t*)nv_map_slot(mf, &k) = 1;
        nv_map_get(mf, &k);   /* a NaN key is never found */
    }
    if (!strcmp(mode, "missing_tuple")) {
        NvMap* mt = nv_map_new(&t_tup, &t_mixed);
        IntStr k = {4, S("x")};
        nv_map_get(mt, &k);
    }
    if (!strcmp(mode, "iter_insert") || !strcmp(mode, "iter_remove") ||
        !strcmp(mode, "iter_clear")) {
        int64_t mod = nv_map_mod(m);
        NvStr* k;
        int n = 0;
        for (int64_t pos = nv_map_next(m, 0, mod, &k); pos >= 0; pos = nv_map_next(m, pos, mod, &k)) {
            say("visit");
            f.site = SITE(11, 5);
            if (n++ == 0) {
                if (!strcmp(mode, "iter_insert")) put_si(m, "c", 3);
                if (!strcmp(mode, "iter_remove")) rm_si(m, "b");
                if (!strcmp(mode, "iter_clear")) nv_map_clear(m);
            }
        }
    }
    if (!strcmp(mode, "iter_store")) {
        /* storing to existing keys and reading are not modifications */
        int64_t mod = nv_map_mod(m);
        NvStr* k;
        for (int64_t pos = nv_map_next(m, 0, mod, &k); pos >= 0; pos = nv_map_next(m, pos, mod, &k)) {
            *(int64_t*)nv_map_slot(m, &k) += 10;
            nv_map_remove(m, &(NvStr*){S("absent")});
        }
        show_map(m, &t_map_si);
        say("done");
    }
    POP(f);
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    if (argc > 1) {
        errors(argv[1]);
        return nv_finish();
    }
    /* insertion order, store keeps position, remove + reinsert goes last */
    NvMap* m = nv_map_new(&nv_type_str, &nv_type_int);
    show_map(m, &t_map_si);
    put_si(m, "one", 1);
    put_si(m, "two", 2);
    put_si(m, "three", 3);
    put_si(m, "four", 4);
    show_map(m, &t_map_si);
    int64_t mod0 = nv_map_mod(m);
    put_si(m, "two", 22);
    line("store existing: mod same %d size %d", nv_map_mod(m) == mod0, nv_map_size(m));
    show_map(m, &t_map_si);
    int r1 = rm_si(m, "two");
    int r2 = rm_si(m, "two");
    line("remove two %d, again %d", r1, r2);
    line("mod changed %d has two %d", nv_map_mod(m) != mod0, has_si(m, "two"));
    put_si(m, "two", 2);
    show_map(m, &t_map_si);
    line("get three %d four %d", get_si(m, "three"), get_si(m, "four"));
    NvArray* ks = nv_map_keys(m);
    show(&ks, &t_arr_str);
    NvArray* vs = nv_map_values(m);
    show(&vs, &t_arr_int);
    line("keys elem is key type %d, values elem is value type %d", ks->elem == &nv_type_str,
         vs->elem == &nv_type_int);
    /* nil str key is "" */
    put_si(m, "", 0);
    NvStr* nil_key = NULL;
    line("nil key finds \"\": %d -> %d", nv_map_find(m, &nil_key) != NULL,
         *(int64_t*)nv_map_get(m, &nil_key));
    show_map(m, &t_map_si);
    /* iteration visits live entries in order */
    {
        int64_t mod = nv_map_mod(m);
        NvStr* k;
        NvBuf b;
        nv_buf_init(&b);
        for (int64_t pos = nv_map_next(m, 0, mod, &k); pos >= 0; pos = nv_map_next(m, pos, mod, &k)) {
            nv_fmt_str(&b, k);
            nv_fmt_cstr(&b, "=");
            nv_fmt_i64(&b, *(int64_t*)nv_map_get(m, &k));
            nv_fmt_cstr(&b, ";");
        }
        nv_buf_write(&b, 1, 1);
    }
    nv_map_clear(m);
    show_map(m, &t_map_si);
    line("after clear size %d has one %d", nv_map_size(m), has_si(m, "one"));
    put_si(m, "z", 26);
    put_si(m, "a", 1);
    show_map(m, &t_map_si);

    /* many removes leave tombstones; compaction keeps order */
    NvMap* mi = nv_map_new(&nv_type_int, &nv_type_str);
    for (int64_t i = 0; i < 1000; i++) {
        char t[16];
        snprintf(t, sizeof t, "v%d", (int)i);
        *(NvStr**)nv_map_slot(mi, &i) = S(t);
    }
    for (int64_t i = 0; i < 1000; i++)
        if (i % 100 != 7) nv_map_remove(mi, &i);
    for (int64_t i = 7; i < 40; i += 10) {
        nv_map_remove(mi, &i);
        *(NvStr**)nv_map_slot(mi, &i) = S("back");
    }
    show_map(mi, &t_map_is);

    /* float keys by value: -0.0 == 0.0, NaN never found (each NaN store is a new entry) */
    NvMap* mf = nv_map_new(&nv_type_f64, &nv_type_int);
    double k0 = 0.0, kneg = -0.0, knan = NAN, k15 = 1.5;
    *(int64_t*)nv_map_slot(mf, &k0) = 1;
    *(int64_t*)nv_map_slot(mf, &kneg) += 10;
    *(int64_t*)nv_map_slot(mf, &knan) = 2;
    *(int64_t*)nv_map_slot(mf, &knan) = 3;
    *(int64_t*)nv_map_slot(mf, &k15) = 4;
    line("f64 map size %d nan found %d", nv_map_size(mf), nv_map_find(mf, &knan) != NULL);
    r1 = nv_map_remove(mf, &knan);
    line("remove nan %d, size %d", r1, nv_map_size(mf));
    show_map(mf, &t_map_fi);
    NvMap* mff = nv_map_new(&nv_type_float, &nv_type_float);
    float fk = -0.0f, fv = 0.1f;
    *(float*)nv_map_slot(mff, &fk) = fv;
    fk = 0.0f;
    line("float -0.0 then 0.0: size %d found %d", nv_map_size(mff), nv_map_find(mff, &fk) != NULL);
    show_map(mff, &t_map_ff);

    /* char and bool */
    NvMap* mc = nv_map_new(&nv_type_char, &nv_type_bool);
    const char* word = "hello";
    for (const char* p = word; *p; p++) *(uint8_t*)nv_map_slot(mc, p) = *p == 'l';
    show_map(mc, &t_map_cb);
    NvMap* m8 = nv_map_new(&nv_type_i8, &nv_type_u8);
    for (int i = -2; i <= 2; i++) {
        int8_t k = (int8_t)(i * 60);
        *(uint8_t*)nv_map_slot(m8, &k) = (uint8_t)(200 + i);
    }
    show_map(m8, &t_map_i8u8);

    /* tuple keys element-wise, tuple values */
    NvMap* mt = nv_map_new(&t_tup, &t_mixed);
    IntStr a = {1, S("x")}, a2 = {1, S("x")}, b = {1, S("y")};
    Mixed* mv = (Mixed*)nv_map_slot(mt, &a);
    mv->c = 'q';
    mv->d = 2.5;
    mv->b = 1;
    mv = (Mixed*)nv_map_slot(mt, &b);
    mv->c = '\'';
    line("tuple keys: size %d equal tuple finds %d", nv_map_size(mt),
         nv_map_find(mt, &a2) == nv_map_find(mt, &a));
    show_map(mt, &t_map_tm);

    /* classes and any by identity */
    Point* p1 = (Point*)nv_alloc(sizeof(Point));
    Point* p2 = (Point*)nv_alloc(sizeof(Point));
    p1->x = 1; p1->y = 2;
    p2->x = 1; p2->y = 2;
    p1->vtable = p2->vtable = vt_point;
    NvMap* mp = nv_map_new(&t_point, &nv_type_int);
    *(int64_t*)nv_map_slot(mp, &p1) = 10;
    *(int64_t*)nv_map_slot(mp, &p2) = 20;
    *(int64_t*)nv_map_slot(mp, &p1) += 1;
    line("class keys by identity: size %d p1 %d", nv_map_size(mp), *(int64_t*)nv_map_get(mp, &p1));
    show_map(mp, &t_map_pi);
    NvMap* ma = nv_map_new(&t_any, &nv_type_int);
    void* box = nv_alloc(8);
    *(const void* const**)box = vt_box;
    NvAny x1 = {p1, &t_point}, x2 = {p1, &t_point}, x3 = {box, &t_box}, xnil = {NULL, NULL};
    *(int64_t*)nv_map_slot(ma, &x1) = 1;
    *(int64_t*)nv_map_slot(ma, &x2) += 1;
    *(int64_t*)nv_map_slot(ma, &x3) = 3;
    *(int64_t*)nv_map_slot(ma, &xnil) = 4;
    line("any keys: size %d same object %d", nv_map_size(ma), *(int64_t*)nv_map_get(ma, &x1));
    show_map(ma, &t_map_ai);

    /* nested printing: map values that are arrays, arrays of maps, nil maps */
    NvMap* mn = nv_map_new(&nv_type_str, &t_arr_str);
    NvStr* kk = S("say \"hi\"\n");
    *(NvArray**)nv_map_slot(mn, &kk) = nv_str_split(S("a,b"), S(","));
    kk = S("none");
    nv_map_slot(mn, &kk);
    show_map(mn, &t_map_s_as);
    NvArray* am = nv_array_new(&t_map_si, 3);
    ((NvMap**)am->data)[0] = m;
    ((NvMap**)am->data)[1] = nv_map_new(&nv_type_str, &nv_type_int);
    show(&am, &t_arr_map);
    NvMap* nilmap = NULL;
    show_map(nilmap, &t_map_si);
    line("nil map size %d next %d", nv_map_size(nilmap), nv_map_next(nilmap, 0, 0, &kk));
    return nv_finish();
}
