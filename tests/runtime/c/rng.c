/* Random numbers (14.3) and shuffle (14.4). Modes: none (seeded sequence and property checks),
 * "os" (one unseeded draw), "thread" (fork/adopt into a thread), "empty" (randint error). */
#define GC_THREADS
#include <gc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "t.h"

static const NvType* const int_e[] = {&nv_type_int};
static const NvType t_arr_int = {NV_ARRAY, 8, 0, 1, int_e, NULL, "array<int>"};
static const NvType* const float_e[] = {&nv_type_float};
static const NvType t_arr_float = {NV_ARRAY, 8, 0, 1, float_e, NULL, "array<float>"};
typedef struct { int64_t a; int64_t b; int64_t c; } Three;
static const NvType* const three_e[] = {&nv_type_int, &nv_type_int, &nv_type_int};
static const int64_t three_off[] = {0, 8, 16};
static const NvType t_three = {NV_TUPLE, 24, 3, 0, three_e, three_off, "tuple<int, int, int>"};

static void check(const char* what, int ok) {
    char t[160];
    snprintf(t, sizeof t, "%s %s", what, ok ? "ok" : "FAILED");
    say(t);
}

/* the seeded sequence: printed, and returned as a checksum for the repeat check */
static uint64_t sequence(int print) {
    uint64_t sum = 0;
    NvBuf b;
    nv_buf_init(&b);
    for (int i = 0; i < 5; i++) {
        int64_t v = nv_randint(1, 100);
        sum = sum * 31 + (uint64_t)v;
        nv_fmt_i64(&b, v);
        nv_fmt_cstr(&b, " ");
    }
    for (int i = 0; i < 3; i++) {
        float v = nv_randu(0.0f, 1.0f);
        sum = sum * 31 + (uint64_t)(v * 1e6);
        nv_fmt_f32(&b, v);
        nv_fmt_cstr(&b, " ");
    }
    for (int i = 0; i < 3; i++) {
        float v = nv_randn(0.0f, 1.0f);
        sum = sum * 31 + (uint64_t)(int64_t)(v * 1e6);
        nv_fmt_f32(&b, v);
        nv_fmt_cstr(&b, " ");
    }
    NvArray* ai = nv_randint_array(5, 0, 9);
    NvArray* af = nv_randfloat_array(3, -1.0f, 1.0f);
    NvArray* sh = nv_arange_int(0, 10, 1);
    nv_array_shuffle(sh);
    nv_fmt_value(&b, &ai, &t_arr_int);
    nv_fmt_cstr(&b, " ");
    nv_fmt_value(&b, &af, &t_arr_float);
    nv_fmt_cstr(&b, " ");
    nv_fmt_value(&b, &sh, &t_arr_int);
    for (int i = 0; i < 5; i++) sum = sum * 31 + (uint64_t)((int64_t*)ai->data)[i];
    for (int i = 0; i < 10; i++) sum = sum * 31 + (uint64_t)((int64_t*)sh->data)[i];
    if (print) nv_buf_write(&b, 1, 1);
    else nv_buf_to_str(&b);
    return sum;
}

static void* child(void* arg) {
    uint64_t seed = *(uint64_t*)arg;
    nv_sigstack_attach();
    nv_rng_adopt(seed);
    *(int64_t*)arg = nv_randint(0, 1000000);
    nv_sigstack_detach();
    return NULL;
}

static int64_t in_thread(uint64_t seed) {
    uint64_t box = seed;
    pthread_t t;
    pthread_create(&t, NULL, child, &box);
    pthread_join(t, NULL);
    return (int64_t)box;
}

static const NvFuncInfo f_main = {"main", "rng.nv"};

int main(int argc, char** argv) {
    nv_init(argc, argv);
    const char* mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "os")) {
        show_i(nv_randint(0, INT64_MAX));
        return nv_finish();
    }
    if (!strcmp(mode, "empty")) {
        PUSH(f, f_main, 4, 9);
        nv_randint(5, 3);
    }
    if (!strcmp(mode, "empty_array")) {
        PUSH(f, f_main, 4, 9);
        nv_randint_array(2, 1, 0);
    }
    if (!strcmp(mode, "thread")) {
        /* a seeded parent forks the same child seeds; the child's draws depend on them only */
        nv_seed(7);
        uint64_t s1 = nv_rng_fork(), s2 = nv_rng_fork();
        int64_t a = in_thread(s1), b = in_thread(s2);
        nv_seed(7);
        uint64_t t1 = nv_rng_fork();
        check("fork repeats", t1 == s1 && s1 != s2);
        check("child repeats", in_thread(t1) == a && a != b);
        nv_rng_adopt(s2);
        check("adopt here equals child", nv_randint(0, 1000000) == b);
        return nv_finish();
    }

    nv_seed(42);
    uint64_t first = sequence(1);
    nv_seed(42);
    check("reseed repeats", sequence(0) == first);
    nv_seed(43);
    check("other seed differs", sequence(0) != first);

    /* randint: range, every value, rough uniformity (7 values x 70000 draws) */
    int64_t counts[7] = {0};
    int inrange = 1;
    for (int i = 0; i < 70000; i++) {
        int64_t v = nv_randint(-3, 3);
        if (v < -3 || v > 3) inrange = 0;
        else counts[v + 3]++;
    }
    int uniform = 1;
    for (int i = 0; i < 7; i++) uniform &= counts[i] > 9400 && counts[i] < 10600;
    check("randint range", inrange);
    check("randint uniform", uniform);
    int same = 1, full = 0;
    for (int i = 0; i < 100; i++) {
        same &= nv_randint(5, 5) == 5;
        int64_t w = nv_randint(INT64_MIN, INT64_MAX);
        full |= w < 0 ? 1 : 2;
        int64_t e = nv_randint(INT64_MAX - 1, INT64_MAX);
        same &= e >= INT64_MAX - 1;
    }
    check("randint edges", same && full == 3);
    /* a span of 3/4 of 2^64: `x % span` would put half the draws in the lowest third */
    int64_t low = 0;
    for (int i = 0; i < 30000; i++) low += nv_randint(INT64_MIN, (INT64_C(1) << 62) - 1) < -(INT64_C(1) << 62);
    check("randint large range", low > 9500 && low < 10500);

    /* randu in [lo, hi), mean */
    int ok = 1;
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        float v = nv_randu(2.0f, 3.0f);
        ok &= v >= 2.0f && v < 3.0f;
        sum += v;
    }
    check("randu range", ok);
    check("randu mean", fabs(sum / 100000 - 2.5) < 0.01);
    ok = 1;
    for (int i = 0; i < 100000; i++) {
        float v = nv_randu(1.0f, nextafterf(1.0f, 2.0f));   /* one representable value */
        ok &= v == 1.0f;
    }
    check("randu tiny range", ok);

    /* randn mean and variance */
    double s1 = 0, s2 = 0;
    ok = 1;
    for (int i = 0; i < 100000; i++) {
        float v = nv_randn(10.0f, 2.0f);
        ok &= isfinite(v);
        s1 += v;
        s2 += (double)v * v;
    }
    double mean = s1 / 100000, var = s2 / 100000 - mean * mean;
    check("randn finite", ok);
    check("randn mean", fabs(mean - 10.0) < 0.05);
    check("randn variance", fabs(var - 4.0) < 0.15);

    /* arrays */
    NvArray* ai = nv_randint_array(1000, 10, 20);
    ok = ai->len == 1000 && ai->elem == &nv_type_int;
    for (int64_t i = 0; i < ai->len; i++) ok &= ((int64_t*)ai->data)[i] >= 10 && ((int64_t*)ai->data)[i] <= 20;
    check("randint_array", ok);
    NvArray* af = nv_randfloat_array(1000, -1.0f, 1.0f);
    ok = af->len == 1000 && af->elem == &nv_type_float;
    for (int64_t i = 0; i < af->len; i++) ok &= ((float*)af->data)[i] >= -1.0f && ((float*)af->data)[i] < 1.0f;
    check("randfloat_array", ok);
    check("empty arrays", nv_randint_array(0, 0, 1)->len == 0 && nv_randfloat_array(-1, 0, 1)->len == 0);

    /* shuffle: a permutation, of 8-byte and 24-byte elements; every position moves sometimes */
    NvArray* p = nv_arange_int(0, 1000, 1);
    nv_array_shuffle(p);
    char seen[1000] = {0};
    int moved = 0;
    ok = p->len == 1000;
    for (int i = 0; i < 1000; i++) {
        int64_t v = ((int64_t*)p->data)[i];
        ok &= v >= 0 && v < 1000 && !seen[v];
        if (v >= 0 && v < 1000) seen[v] = 1;
        moved += v != i;
    }
    check("shuffle permutation", ok && moved > 900);
    NvArray* t3 = nv_array_new(&t_three, 200);
    for (int i = 0; i < 200; i++) {
        Three* e = (Three*)(t3->data + i * 24);
        e->a = i;
        e->b = i * 2;
        e->c = -i;
    }
    nv_array_shuffle(t3);
    char seen3[200] = {0};
    ok = 1;
    for (int i = 0; i < 200; i++) {
        Three* e = (Three*)(t3->data + i * 24);
        ok &= e->a >= 0 && e->a < 200 && e->b == 2 * e->a && e->c == -e->a && !seen3[e->a];
        if (e->a >= 0 && e->a < 200) seen3[e->a] = 1;
    }
    check("shuffle tuples", ok);
    /* position 0 ends up holding each of 4 values about equally often */
    int pos0[4] = {0};
    for (int i = 0; i < 40000; i++) {
        NvArray* q = nv_arange_int(0, 4, 1);
        nv_array_shuffle(q);
        pos0[((int64_t*)q->data)[0]]++;
    }
    ok = 1;
    for (int i = 0; i < 4; i++) ok &= pos0[i] > 9500 && pos0[i] < 10500;
    check("shuffle uniform", ok);
    NvArray* one = nv_arange_int(5, 6, 1);
    nv_array_shuffle(one);
    nv_array_shuffle(nv_arange_int(0, 0, 1));
    check("shuffle tiny", ((int64_t*)one->data)[0] == 5);
    return nv_finish();
}
