/* Threads, finish, split arguments, locks, channels and deadlock detection (9.1-9.6), driven
 * as compiled Neve code would drive them: thread bodies are `void body(void* env)` with a
 * collected env, frames are pushed by hand, sites stored before blocking calls.
 *
 * Also built with -fsanitize=thread against plain malloc (NV_TSAN, tests/runtime/tsan/): then
 * the program starts the thread runtime itself instead of nv_init and prints with stdio. */
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "t.h"

#ifdef NV_TSAN
void rt_threads_init();
#define ALLOC(n) calloc(1, (n))
static void out(const std::string& s) {
    printf("%s\n", s.c_str());
    fflush(stdout);
}
#else
#define ALLOC(n) nv_alloc(n)
static void out(const std::string& s) { say(s.c_str()); }
#endif

static std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
static std::string fmt(const char* f, ...) {
    char b[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, sizeof b, f, ap);
    va_end(ap);
    return b;
}

static void fail(const std::string& why) {
    fprintf(stderr, "FAIL: %s\n", why.c_str());
    fflush(stderr);
    _exit(2);
}
#define CHECK(c, ...) do { if (!(c)) fail(fmt(__VA_ARGS__)); } while (0)

static const NvFuncInfo f_main = {"main", "conc.nv"};
static const NvFuncInfo f_work = {"worker", "conc.nv"};

/* ------------------------------------------------------------------ spawning */
struct Env;
typedef void (*BodyFn)(Env*);
struct Env {                 /* collected: keeps its channels reachable */
    BodyFn fn;
    NvChan* ch[2];
    int64_t a, b, c;
    void* p;                 /* malloc'ed shared data (no collected pointers) */
};
static void tramp(void* e) { ((Env*)e)->fn((Env*)e); }
static Env* env(BodyFn fn) {
    Env* e = (Env*)ALLOC(sizeof(Env));
    e->fn = fn;
    return e;
}
static void start(Env* e, int64_t tid = 0, int64_t tN = 1, const char* kind = "async",
                  const char* origin = "conc.nv:30:5", int detached = 0) {
    nv_spawn(tramp, e, tid, tN, detached, origin, kind);
}

struct Finish {
    alignas(8) char raw[NV_FINISH_SIZE];
    Finish() { nv_finish_begin(raw); }
    void end() { nv_finish_end(raw); }
};

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, nullptr);
}

static double now() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ finish and tids */
static std::atomic<int64_t> g_done;
static std::atomic<int64_t> g_tids[64];

static void leaf(Env* e) {
    sleep_ms(20 + (int)e->a);
    g_done.fetch_add(1);
}
static void mid(Env* e) {
    g_tids[nv_tid].store(nv_tid * 100 + nv_tN);
    for (int i = 0; i < 2; i++) {         /* not in an inner finish: the outer one waits */
        Env* c = env(leaf);
        c->a = i * 10;
        start(c, 0, 1);
    }
    Finish inner;                          /* an inner finish waits for its own */
    Env* c = env(leaf);
    c->a = 5;
    start(c);
    inner.end();
    CHECK(g_done.load() >= 1, "inner finish returned before its thread ended");
}

static void test_finish() {
    g_done = 0;
    Finish f;
    for (int64_t t = 0; t < 4; t++) start(env(mid), t, 4, "asyncs");
    f.end();
    out(fmt("finish waited for %" PRId64 " threads", g_done.load()));
    std::string s = "tids";
    for (int t = 0; t < 4; t++) s += fmt(" %" PRId64, g_tids[t].load());
    out(s);
    out(fmt("main tid %" PRId64 " tN %" PRId64, nv_tid, nv_tN));
}

/* ------------------------------------------------------------------ random seeds (14.3) */
static void draw(Env* e) { e->a = nv_randint(0, 1000000000); }
static void test_seeds() {
    int64_t got[2][2];
    for (int run = 0; run < 2; run++) {
        nv_seed(7);
        Finish f;
        Env* e[2];
        for (int t = 0; t < 2; t++) {
            e[t] = env(draw);
            start(e[t], t, 2, "asyncs");
        }
        f.end();
        for (int t = 0; t < 2; t++) got[run][t] = e[t]->a;
    }
    out(fmt("seeded threads reproducible %d distinct %d", got[0][0] == got[1][0] && got[0][1] == got[1][1],
            got[0][0] != got[0][1]));
}

/* ------------------------------------------------------------------ split */
#ifndef NV_TSAN
static std::string arr_text(const NvArray* a) {
    std::string s = "[";
    for (int64_t i = 0; i < a->len; i++) s += fmt(i ? ", %" PRId64 : "%" PRId64, ((int64_t*)a->data)[i]);
    return s + "]";
}
static void test_split() {
    NvArray* v = nv_arange_int(0, 10, 1);
    for (int mode : {'>', ':'}) {
        std::string s = fmt("%c", mode);
        for (int t = 0; t < 4; t++) s += " " + arr_text(nv_split_chunk(v, t, 4, mode));
        out(s);
    }
    NvArray* small = nv_arange_int(0, 2, 1);
    std::string s = "small";
    for (int t = 0; t < 4; t++) s += " " + arr_text(nv_split_chunk(small, t, 4, '>'));
    out(s);
    NvArray* c = nv_split_chunk(v, 1, 4, '>');
    ((int64_t*)c->data)[0] = 99;   /* a copy */
    CHECK(((int64_t*)v->data)[3] == 3 && c->elem == v->elem, "chunk is not a copy");
    NvArray* n1 = nv_split_chunk(nullptr, 0, 4, ':');
    NvArray* n2 = nv_split_chunk_elem(nullptr, 2, 4, '>', &nv_type_str);
    out(fmt("nil splits %" PRId64 " %" PRId64 " %d", n1->len, n2->len, n2->elem == &nv_type_str));
}
#endif

/* ------------------------------------------------------------------ locks */
struct LockData {
    int64_t counter;          /* plain: protected by the lock */
    int64_t obj_counter;
    char obj[16];
};
static void locker(Env* e) {
    LockData* d = (LockData*)e->p;
    for (int i = 0; i < 20000; i++) {
        nv_lock_name("stats");
        nv_lock_name("stats");            /* re-entrant */
        d->counter++;
        nv_unlock_name("stats");
        d->counter++;
        nv_unlock_name("stats");
        nv_lock_obj(d->obj);
        nv_lock_obj(d->obj);
        d->obj_counter++;
        nv_unlock_obj(d->obj);
        nv_unlock_obj(d->obj);
    }
    nv_lock_name(nullptr);                /* the default lock */
    nv_unlock_name(nullptr);
}
static void test_locks() {
    LockData* d = (LockData*)calloc(1, sizeof(LockData));
    Finish f;
    for (int t = 0; t < 4; t++) {
        Env* e = env(locker);
        e->p = d;
        start(e, t, 4, "asyncs");
    }
    f.end();
    out(fmt("locks %" PRId64 " %" PRId64, d->counter, d->obj_counter));
    /* the same text through another pointer is the same lock */
    char name[] = "stats";
    nv_lock_name(name);
    nv_lock_name("stats");
    nv_unlock_name("stats");
    nv_unlock_name(name);
    free(d);
}

/* ------------------------------------------------------------------ channels, one thread */
static void test_chan_basic() {
    NvChan* c = nv_chan_new(&nv_type_int, 4);
    for (int64_t i = 1; i <= 3; i++) nv_chan_send(c, &i);
#ifndef NV_TSAN
    NvType ct = {NV_CHANNEL, 8, 0, 1, nullptr, nullptr, "channel<int>", nullptr};
    show(&c, &ct);
    NvChan* nil = nullptr;
    show(&nil, &ct);
#endif
    int64_t v = 0, v2 = 0;
    nv_chan_recv(c, &v);
    nv_chan_recv(c, &v2);
    out(fmt("fifo %" PRId64 " %" PRId64 " size %" PRId64 " alive %d", v, v2, nv_chan_size(c),
            nv_chan_alive(c)));
    int64_t x = 4;
    nv_chan_send(c, &x);
    nv_chan_close(c);
    nv_chan_close(c);                     /* idempotent */
    x = 5;
    int32_t sent = nv_chan_try_send(c, &x);
    out(fmt("closed: try_send %d size %" PRId64 " alive %d", sent, nv_chan_size(c), nv_chan_alive(c)));
    std::string s = "drain";
    int32_t r;
    for (;;) {
        v = -1;
        r = nv_chan_recv(c, &v);
        if (!r) break;
        s += fmt(" %" PRId64, v);
    }
    s += fmt(" then %d %" PRId64 " alive %d", r, v, nv_chan_alive(c));
    out(s);

    /* a wrapping sum of i8, float and f64 sums, an empty sum */
    NvChan* b = nv_chan_new(&nv_type_i8, 8);
    for (int8_t i : {100, 100, 60}) nv_chan_send(b, &i);
    int8_t s8 = 0;
    nv_chan_sum(b, &s8);
    NvChan* fl = nv_chan_new(&nv_type_float, 3);
    for (float f : {0.5f, 0.25f, 1.0f}) nv_chan_send(fl, &f);
    float sf = 0;
    nv_chan_sum(fl, &sf);
    NvChan* d = nv_chan_new(&nv_type_f64, 2);
    double dd = 0.1;
    nv_chan_send(d, &dd);
    nv_chan_send(d, &dd);
    double sd = 0;
    nv_chan_sum(d, &sd);
    int64_t empty = 7;
    nv_chan_sum(c, &empty);
    out(fmt("sum %d %g %.17g %" PRId64 " sizes %" PRId64 " %" PRId64, s8, sf, sd, empty,
            nv_chan_size(b), nv_chan_size(fl)));
    /* the ring wraps many times; sum after wrapping */
    NvChan* w = nv_chan_new(&nv_type_int, 3);
    int64_t total = 0, got = 0;
    for (int64_t i = 0; i < 100; i++) {
        if (nv_chan_size(w) == 3) {
            nv_chan_recv(w, &got);
            total += got;
        }
        nv_chan_send(w, &i);
    }
    int64_t rest = 0;
    int64_t left = nv_chan_size(w);
    nv_chan_sum(w, &rest);
    out(fmt("wrapped %" PRId64 " left %" PRId64 " size after sum %" PRId64, total + rest, left,
            nv_chan_size(w)));
}

#ifndef NV_TSAN
/* A tuple element with a string: items are copied whole and received references are not
 * kept by the ring. */
static void test_chan_tuple() {
    struct Item { int64_t n; NvStr* s; };
    static const NvType* elems[] = {&nv_type_int, &nv_type_str};
    static const int64_t offs[] = {0, 8};
    static const NvType tt = {NV_TUPLE, 16, 2, 1, elems, offs, "tuple<int, str>", nullptr};
    NvChan* c = nv_chan_new(&tt, 2);
    Item a = {1, S("one")}, b = {2, S("two")}, r = {0, nullptr};
    nv_chan_send(c, &a);
    nv_chan_send(c, &b);
    std::string s = "tuples";
    while (nv_chan_size(c) > 0) {
        nv_chan_recv(c, &r);
        s += fmt(" (%" PRId64 ", %.*s)", r.n, (int)r.s->len, r.s->data);
    }
    out(s);
}
#endif

/* ------------------------------------------------------------------ channels, threads */
struct Stress {
    int64_t per_producer;
    int producers;
    std::atomic<uint8_t>* seen;
    std::atomic<int64_t> received;
    std::atomic<int64_t>* sent_n;       /* close race: how many sends succeeded per producer */
    std::atomic<int64_t> order_errors;
};

static void producer(Env* e) {
    Stress* s = (Stress*)e->p;
    int64_t p = e->a;
    for (int64_t i = 0; i < s->per_producer; i++) {
        int64_t v = (p << 32) | i;
        nv_chan_send(e->ch[0], &v);
    }
}

static void producer_until_closed(Env* e) {
    Stress* s = (Stress*)e->p;
    int64_t p = e->a;
    int64_t i = 0;
    for (;; i++) {
        int64_t v = (p << 32) | i;
        if (!nv_chan_try_send(e->ch[0], &v)) break;
    }
    s->sent_n[p].store(i);
}

static void consumer(Env* e) {
    Stress* s = (Stress*)e->p;
    std::vector<int64_t> last(s->producers, -1);
    int64_t v, n = 0;
    while (nv_chan_recv(e->ch[0], &v)) {
        int64_t p = v >> 32, i = v & 0xffffffff;
        if (p < 0 || p >= s->producers || i >= s->per_producer) fail(fmt("bad value %" PRIx64, v));
        if (i <= last[p]) s->order_errors.fetch_add(1);   /* FIFO per producer */
        last[p] = i;
        s->seen[p * s->per_producer + i].fetch_add(1);
        n++;
    }
    s->received.fetch_add(n);
}

static Stress* new_stress(int producers, int64_t per) {
    Stress* s = new Stress();
    s->per_producer = per;
    s->producers = producers;
    s->seen = new std::atomic<uint8_t>[producers * per]();
    s->sent_n = new std::atomic<int64_t>[producers]();
    s->received = 0;
    s->order_errors = 0;
    return s;
}
static void free_stress(Stress* s) {
    delete[] s->seen;
    delete[] s->sent_n;
    delete s;
}

/* `producers` producers send `total` values in all through a channel of capacity cap to
 * `consumers` consumers; every value must arrive exactly once, in order per producer. */
static void stress(int64_t cap, int producers, int consumers, int64_t total) {
    int64_t per = total / producers;
    Stress* s = new_stress(producers, per);
    NvChan* ch = nv_chan_new(&nv_type_int, cap);
    double t0 = now();
    Finish all;
    for (int c = 0; c < consumers; c++) {
        Env* e = env(consumer);
        e->ch[0] = ch;
        e->p = s;
        start(e, c, consumers, "asyncs");
    }
    {
        Finish prod;
        for (int p = 0; p < producers; p++) {
            Env* e = env(producer);
            e->ch[0] = ch;
            e->p = s;
            e->a = p;
            start(e, p, producers, "asyncs");
        }
        prod.end();
    }
    nv_chan_close(ch);
    all.end();
    double dt = now() - t0;
    int64_t bad = 0;
    for (int64_t i = 0; i < producers * per; i++) bad += s->seen[i].load() != 1;
    CHECK(bad == 0 && s->received.load() == producers * per,
          "cap %" PRId64 ": %" PRId64 " values not received exactly once (received %" PRId64 ")",
          cap, bad, s->received.load());
    CHECK(s->order_errors.load() == 0, "cap %" PRId64 ": %" PRId64 " out of order", cap,
          s->order_errors.load());
    out(fmt("stress cap=%" PRId64 " %dx%d values=%" PRId64 " ok", cap, producers, consumers,
            producers * per));
    fprintf(stderr, "stress cap=%" PRId64 " %.3f s (%.0f msg/s)\n", cap, dt, producers * per / dt);
    free_stress(s);
}

/* Producers loop `while ch.send(v)`; the owner closes while they send. Every accepted value
 * arrives exactly once, no refused one arrives. */
static void close_race(int64_t cap, int producers, int consumers, int ms) {
    int64_t per = 1 << 22;   /* upper bound; the close comes first */
    Stress* s = new_stress(producers, per);
    NvChan* ch = nv_chan_new(&nv_type_int, cap);
    Finish all;
    for (int c = 0; c < consumers; c++) {
        Env* e = env(consumer);
        e->ch[0] = ch;
        e->p = s;
        start(e, c, consumers, "asyncs");
    }
    for (int p = 0; p < producers; p++) {
        Env* e = env(producer_until_closed);
        e->ch[0] = ch;
        e->p = s;
        e->a = p;
        start(e, p, producers, "asyncs");
    }
    sleep_ms(ms);
    nv_chan_close(ch);
    all.end();
    int64_t accepted = 0, bad = 0;
    for (int p = 0; p < producers; p++) {
        int64_t n = s->sent_n[p].load();
        CHECK(n < per, "producer never saw the close");
        accepted += n;
        for (int64_t i = 0; i < per; i++) bad += s->seen[p * per + i].load() != (i < n ? 1 : 0);
    }
    CHECK(bad == 0 && s->received.load() == accepted, "close race: %" PRId64 " wrong", bad);
    CHECK(s->order_errors.load() == 0, "close race: out of order");
    out(fmt("close race cap=%" PRId64 " ok", cap));
    free_stress(s);
}

/* sum() racing with senders and receivers: it removes whole batches atomically, so what the
 * receivers got plus what the sums got is exactly what was sent. */
struct SumRace {
    std::atomic<int64_t> received;
    std::atomic<int64_t> producers_left;
};
static void sum_producer(Env* e) {
    for (int64_t i = 1; i <= e->b; i++) nv_chan_send(e->ch[0], &i);
    ((SumRace*)e->p)->producers_left.fetch_sub(1);
}
static void sum_receiver(Env* e) {
    int64_t v, total = 0;
    while (nv_chan_recv(e->ch[0], &v)) total += v;
    ((SumRace*)e->p)->received.fetch_add(total);
}
static void sum_race(int64_t cap) {
    const int producers = 4;
    const int64_t per = 20000;
    SumRace* r = new SumRace();
    r->received = 0;
    r->producers_left = producers;
    NvChan* ch = nv_chan_new(&nv_type_int, cap);
    Finish all;
    for (int t = 0; t < 2; t++) {
        Env* e = env(sum_receiver);
        e->ch[0] = ch;
        e->p = r;
        start(e, t, 2, "asyncs");
    }
    for (int t = 0; t < producers; t++) {
        Env* e = env(sum_producer);
        e->ch[0] = ch;
        e->b = per;
        e->p = r;
        start(e, t, producers, "asyncs");
    }
    int64_t summed = 0, sums = 0;
    while (r->producers_left.load() > 0) {
        int64_t s = 0;
        nv_chan_sum(ch, &s);
        summed += s;
        sums++;
        sched_yield();
    }
    nv_chan_close(ch);
    int64_t s = 0;
    nv_chan_sum(ch, &s);
    summed += s;
    all.end();
    int64_t want = producers * (per * (per + 1) / 2);
    CHECK(summed + r->received.load() == want, "sum race cap %" PRId64 ": %" PRId64 " + %" PRId64
          " != %" PRId64, cap, summed, r->received.load(), want);
    out(fmt("sum race cap=%" PRId64 " ok", cap));
    fprintf(stderr, "sum race cap=%" PRId64 ": %" PRId64 " sums took %" PRId64 " of %" PRId64 "\n",
            cap, sums, summed, want);
    delete r;
}

/* A thread blocked in a receive sleeps: the process uses < 1% of a core meanwhile. */
static void blocked_receiver(Env* e) {
    int64_t v;
    nv_chan_recv(e->ch[0], &v);
    e->a = v;
}
static double cpu_seconds() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}
static void test_idle() {
    NvChan* ch = nv_chan_new(&nv_type_int, 1);
    Env* e = env(blocked_receiver);
    e->ch[0] = ch;
    Finish f;
    start(e);
    sleep_ms(50);
    double c0 = cpu_seconds(), t0 = now();
    sleep_ms(500);
    double used = cpu_seconds() - c0, wall = now() - t0;
    int64_t v = 42;
    nv_chan_send(ch, &v);
    f.end();
    out(fmt("blocked receiver cpu %s (got %" PRId64 ")", used < 0.01 * wall ? "< 1%" : "TOO HIGH", e->a));
    fprintf(stderr, "blocked receiver: %.3f ms cpu over %.3f s\n", used * 1e3, wall);
}

/* Threads wait at the end of finish, in locks and receives, and are woken in time; no false
 * deadlock report: every user thread but one sleeps most of the time. */
static void ping(Env* e) {
    int64_t v;
    for (int i = 0; i < 2000; i++) {
        nv_chan_recv(e->ch[0], &v);
        v++;
        nv_chan_send(e->ch[1], &v);
    }
}
static void sleeper_sender(Env* e) {
    sleep_ms(100);                         /* sleeping is running: not a deadlock */
    int64_t v = 7;
    nv_chan_send(e->ch[0], &v);
}
static void test_no_false_deadlock() {
    NvChan* a = nv_chan_new(&nv_type_int, 1);
    NvChan* b = nv_chan_new(&nv_type_int, 1);
    Finish f;
    Env* e = env(ping);
    e->ch[0] = a;
    e->ch[1] = b;
    start(e);
    int64_t v = 0;
    for (int i = 0; i < 2000; i++) {
        nv_chan_send(a, &v);
        nv_chan_recv(b, &v);
    }
    Env* s = env(sleeper_sender);
    s->ch[0] = a;
    start(s);
    int64_t w;
    nv_chan_recv(a, &w);                   /* main waits while the other thread sleeps */
    f.end();
    out(fmt("ping-pong %" PRId64 " then %" PRId64, v, w));
}

/* ------------------------------------------------------------------ hand-off to parked threads */
int64_t rt_chan_handoffs(NvChan* c);   /* runtime internal (channel/chan.h) */

static void recv_into(Env* e) {        /* receives e->b values into e->p (int64_t[]) */
    int64_t* got = (int64_t*)e->p;
    for (int64_t i = 0; i < e->b; i++) e->a += nv_chan_recv(e->ch[0], &got[i]);
}
static void send_two(Env* e) {         /* the second send parks: the channel (cap 1) is full */
    int64_t v = 1;
    nv_chan_send(e->ch[0], &v);
    v = 2;
    nv_chan_send(e->ch[0], &v);
    e->a = 1;
}
static void try_send_parked(Env* e) {  /* blocks on a full channel until the close */
    int64_t v = 100 + e->b;
    e->a = nv_chan_try_send(e->ch[0], &v);
}
static void sum_producer_pausing(Env* e) {
    for (int64_t i = 1; i <= e->b; i++) {
        nv_chan_send(e->ch[0], &i);
        if (i % 5000 == 0) sleep_ms(2);    /* receivers park meanwhile */
    }
}
static void sum_consumer_pausing(Env* e) {
    int64_t v, total = 0, n = 0;
    while (nv_chan_recv(e->ch[0], &v)) {
        total += v;
        if (++n % 7000 == 0) sleep_ms(2);  /* senders park meanwhile */
    }
    e->a = total;
    e->c = n;
}

static void test_handoff() {
    /* a send to a parked receiver hands the item over; the next one goes to the buffer */
    {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        int64_t* got = (int64_t*)calloc(2, sizeof(int64_t));
        Finish f;
        Env* r = env(recv_into);
        r->ch[0] = c;
        r->b = 2;
        r->p = got;
        start(r);
        sleep_ms(200);                     /* the receiver parks */
        int64_t v = 1;
        nv_chan_send(c, &v);
        int64_t h = rt_chan_handoffs(c);
        v = 2;
        nv_chan_send(c, &v);
        f.end();
        out(fmt("parked receiver got %" PRId64 " %" PRId64 " (%" PRId64 " ok), handed over %s",
                got[0], got[1], r->a, h == 1 ? "1" : "NOT 1"));
        free(got);
    }
    /* a receive from a full channel completes the parked sender's send */
    {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Finish f;
        Env* s = env(send_two);
        s->ch[0] = c;
        start(s);
        sleep_ms(200);                     /* the sender parks holding 2 */
        int64_t a = 0, b = 0;
        nv_chan_recv(c, &a);
        int64_t h = rt_chan_handoffs(c);
        nv_chan_recv(c, &b);
        f.end();
        out(fmt("parked sender: received %" PRId64 " %" PRId64 ", send done %" PRId64
                ", completed for it %s, size %" PRId64, a, b, s->a, h == 1 ? "1" : "NOT 1",
                nv_chan_size(c)));
    }
    /* close while receivers are parked: each gets false and the zero value */
    {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        int64_t* got = (int64_t*)malloc(3 * sizeof(int64_t));
        for (int i = 0; i < 3; i++) got[i] = -1;
        Finish f;
        Env* rs[3];
        for (int i = 0; i < 3; i++) {
            rs[i] = env(recv_into);
            rs[i]->ch[0] = c;
            rs[i]->b = 1;
            rs[i]->p = &got[i];
            start(rs[i], i, 3, "asyncs");
        }
        sleep_ms(200);
        nv_chan_close(c);
        f.end();
        out(fmt("closed with parked receivers: ok %" PRId64 " %" PRId64 " %" PRId64
                ", values %" PRId64 " %" PRId64 " %" PRId64, rs[0]->a, rs[1]->a, rs[2]->a,
                got[0], got[1], got[2]));
        free(got);
    }
    /* close while senders are parked with their values: every send fails, nothing of theirs
     * is delivered, the one buffered item still is */
    {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        int64_t v = 7;
        nv_chan_send(c, &v);
        Finish f;
        Env* ss[3];
        for (int i = 0; i < 3; i++) {
            ss[i] = env(try_send_parked);
            ss[i]->ch[0] = c;
            ss[i]->a = -1;
            ss[i]->b = i;
            start(ss[i], i, 3, "asyncs");
        }
        sleep_ms(200);
        nv_chan_close(c);
        f.end();
        int64_t a = -1, b = -1;
        int r1 = nv_chan_recv(c, &a);
        int r2 = nv_chan_recv(c, &b);
        out(fmt("closed with parked senders: sends %" PRId64 " %" PRId64 " %" PRId64
                ", then recv %d %" PRId64 " %d %" PRId64 ", completed for them %" PRId64,
                ss[0]->a, ss[1]->a, ss[2]->a, r1, a, r2, b, rt_chan_handoffs(c)));
    }
    /* 4 producers and 4 consumers through capacity 1, each side pausing now and then so that
     * the other parks: both hand-off paths run, the total is exact */
    {
        const int n = 4;
        const int64_t per = 30000;
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Env* cs[n];
        Finish all;
        for (int i = 0; i < n; i++) {
            cs[i] = env(sum_consumer_pausing);
            cs[i]->ch[0] = c;
            start(cs[i], i, n, "asyncs");
        }
        {
            Finish prod;
            for (int i = 0; i < n; i++) {
                Env* e = env(sum_producer_pausing);
                e->ch[0] = c;
                e->b = per;
                start(e, i, n, "asyncs");
            }
            prod.end();
        }
        nv_chan_close(c);
        all.end();
        int64_t total = 0, count = 0;
        for (int i = 0; i < n; i++) {
            total += cs[i]->a;
            count += cs[i]->c;
        }
        int64_t h = rt_chan_handoffs(c);
        out(fmt("4x4 pausing: received %" PRId64 " sum %" PRId64 " (want %" PRId64 "), hand-offs %s",
                count, total, n * per * (per + 1) / 2, h > 0 ? "> 0" : "NONE"));
    }
}

/* ------------------------------------------------------------------ errors */
static void thread_fails(Env* e) {
    PUSH(fr, f_work, 5, 9);
    (void)e;
    nv_panic_divzero(0);
}

__attribute__((noinline)) static int64_t recurse(int64_t n) {
    PUSH(fr, f_work, 3, 12);
    volatile char pad[64];
    pad[n % 64] = (char)n;
    int64_t r = recurse(n + 1) + pad[(n + 1) % 64];
    POP(fr);
    return r;
}
static void overflows(Env* e) { e->a = recurse(0); }

static void blocked_sender(Env* e) {
    PUSH(fr, f_work, 5, 5);
    int64_t v = 1;
    nv_chan_send(e->ch[0], &v);
    nv_chan_send(e->ch[0], &v);            /* blocks: full */
    POP(fr);
}

static void try_sender(Env* e) {
    int64_t v = 1;
    nv_chan_try_send(e->ch[0], &v);
    e->a = nv_chan_try_send(e->ch[0], &v);   /* blocks, then the close makes it 0 */
}

static void receiver(Env* e) {
    PUSH(fr, f_work, 5, 5);
    int64_t v;
    nv_chan_recv(e->ch[0], &v);
    POP(fr);
}

static void receiver_twice(Env* e) {
    PUSH(fr, f_work, 5, 5);
    int64_t v;
    nv_chan_recv(e->ch[0], &v);
    fr.site = SITE(6, 5);
    nv_chan_recv(e->ch[0], &v);
    POP(fr);
}

static void lock_ab(Env* e) {
    PUSH(fr, f_work, 7, 9);
    const char* first = e->a ? "b" : "a";
    const char* second = e->a ? "a" : "b";
    nv_lock_name(first);
    NvChan* meet = e->ch[0];
    int64_t v = 1;
    nv_chan_send(meet, &v);                /* both hold their first lock before either */
    fr.site = SITE(8, 9);                  /* asks for the second */
    while (nv_chan_size(meet) < 2) sleep_ms(1);
    nv_lock_name(second);
    POP(fr);
}

static void obj_locker(Env* e) {
    PUSH(fr, f_work, 12, 3);
    nv_lock_obj(e->p);
    POP(fr);
}

static int run_error_mode(const char* mode) {
    PUSH(fr, f_main, 14, 9);
    if (!strcmp(mode, "neg_count")) {
        nv_check_thread_count(0);
        nv_check_thread_count(-1);
    } else if (!strcmp(mode, "lock_nil")) {
        nv_lock_obj(nullptr);
    } else if (!strcmp(mode, "thread_error")) {
        Finish f;
        start(env(thread_fails), 2, 4, "asyncs", "stats.nv:30:9");
        f.end();
    } else if (!strcmp(mode, "thread_overflow")) {
        Finish f;
        start(env(overflows), 1, 2, "asyncs", "deep.nv:9:5");
        f.end();
    } else if (!strcmp(mode, "send_closed")) {
        NvChan* c = nv_chan_new(&nv_type_int, 2);
        nv_chan_close(c);
        int64_t v = 1;
        nv_chan_send(c, &v);
    } else if (!strcmp(mode, "close_blocked_send")) {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Finish f;
        Env* e = env(blocked_sender);
        e->ch[0] = c;
        start(e, 3, 4, "asyncs", "conc.nv:11:5");
        sleep_ms(200);
        nv_chan_close(c);
        f.end();
    } else if (!strcmp(mode, "close_blocked_try_send")) {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Finish f;
        Env* e = env(try_sender);
        e->ch[0] = c;
        e->a = -1;
        start(e);
        sleep_ms(200);
        nv_chan_close(c);
        f.end();
        int64_t v = 0;
        int r1 = nv_chan_recv(c, &v);
        int64_t v2 = -1;
        int r2 = nv_chan_recv(c, &v2);
        out(fmt("try_send %" PRId64 " recv %d %" PRId64 " %d %" PRId64, e->a, r1, v, r2, v2));
    } else if (!strcmp(mode, "dl_recv")) {
        NvChan* c = nv_chan_new(&nv_type_int, 4);
        int64_t v;
        out("before");
        nv_chan_recv(c, &v);
    } else if (!strcmp(mode, "dl_send_full")) {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        int64_t v = 1;
        nv_chan_send(c, &v);
        fr.site = SITE(15, 5);
        nv_chan_send(c, &v);
    } else if (!strcmp(mode, "dl_finish")) {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Finish f;
        Env* e = env(receiver);
        e->ch[0] = c;
        start(e, 2, 4, "asyncs", "conc.nv:11:5");
        Env* e2 = env(blocked_sender);
        e2->ch[0] = nv_chan_new(&nv_type_int, 1);
        start(e2, 0, 1, "async", "conc.nv:12:5");
        fr.site = SITE(20, 5);
        f.end();
    } else if (!strcmp(mode, "dl_locks")) {
        NvChan* meet = nv_chan_new(&nv_type_int, 2);
        Finish f;
        for (int i = 0; i < 2; i++) {
            Env* e = env(lock_ab);
            e->ch[0] = meet;
            e->a = i;
            start(e, i, 2, "asyncs", "conc.nv:11:5");
        }
        fr.site = SITE(20, 5);
        f.end();
    } else if (!strcmp(mode, "dl_obj_lock")) {
        char* obj = (char*)ALLOC(16);
        nv_lock_obj(obj);
        Finish f;
        Env* e = env(obj_locker);
        e->p = obj;
        start(e, 0, 1, "async", "conc.nv:11:5");
        fr.site = SITE(20, 5);
        f.end();
    } else if (!strcmp(mode, "dl_main_end")) {
        Env* e = env(receiver);
        e->ch[0] = nv_chan_new(&nv_type_int, 1);
        start(e, 0, 1, "async", "conc.nv:11:5");
        POP(fr);
        return 0;                          /* nv_finish waits without a frame */
    } else if (!strcmp(mode, "dl_main_wait")) {
        Env* e = env(receiver);
        e->ch[0] = nv_chan_new(&nv_type_int, 1);
        start(e, 0, 1, "async", "conc.nv:11:5");
        fr.site = SITE(40, 1);
        nv_main_wait();
    } else if (!strcmp(mode, "dl_spawn")) {
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Env* e = env(receiver);
        e->ch[0] = nv_chan_new(&nv_type_int, 1);
        start(e, 0, 1, "spawn", "conc.nv:9:1", 1);
        int64_t v;
        nv_chan_recv(c, &v);
    } else if (!strcmp(mode, "dl_after_handoff")) {
        /* main hands an item to the parked receiver, which then waits for a second one, and
         * main receives on another channel: both wait, the report is exact */
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Env* e = env(receiver_twice);
        e->ch[0] = c;
        start(e, 0, 1, "async", "conc.nv:11:5");
        sleep_ms(200);
        int64_t v = 1;
        nv_chan_send(c, &v);
        int64_t w;
        nv_chan_recv(nv_chan_new(&nv_type_int, 1), &w);
    } else if (!strcmp(mode, "dl_exit")) {
        /* the deadlock appears when the last running thread ends */
        NvChan* c = nv_chan_new(&nv_type_int, 1);
        Env* e = env(leaf);
        e->a = 50;
        start(e, 0, 1, "async", "conc.nv:11:5");
        int64_t v;
        nv_chan_recv(c, &v);
    } else if (!strcmp(mode, "detached")) {
        /* a detached thread blocked forever and one still running: main ends anyway */
        Env* e = env(receiver);
        e->ch[0] = nv_chan_new(&nv_type_int, 1);
        start(e, 0, 1, "spawn", "conc.nv:9:1", 1);
        Env* l = env(leaf);
        l->a = 100000;
        start(l, 0, 1, "spawn", "conc.nv:10:1", 1);
        out("main done");
    } else {
        fail(fmt("unknown mode %s", mode));
    }
    POP(fr);
    return 0;
}

/* ------------------------------------------------------------------ main */
int main(int argc, char** argv) {
#ifdef NV_TSAN
    rt_threads_init();
#else
    nv_init(argc, argv);
#endif
    const char* mode = argc > 1 ? argv[1] : "basic";
    if (!strcmp(mode, "basic")) {
        test_finish();
        test_seeds();
#ifndef NV_TSAN
        test_split();
#endif
        test_locks();
        test_chan_basic();
#ifndef NV_TSAN
        test_chan_tuple();
#endif
        test_no_false_deadlock();
        test_idle();
    } else if (!strcmp(mode, "stress")) {
        /* stress TOTAL REPS CAPS...: 8 producers, 8 consumers */
        int64_t total = argc > 2 ? atoll(argv[2]) : 1000000;
        int reps = argc > 3 ? atoi(argv[3]) : 1;
        std::vector<int64_t> caps;
        for (int i = 4; i < argc; i++) caps.push_back(atoll(argv[i]));
        if (caps.empty()) caps = {1, 4, 1024};
        for (int r = 0; r < reps; r++)
            for (int64_t cap : caps) stress(cap, 8, 8, total);
    } else if (!strcmp(mode, "handoff")) {
        test_handoff();
    } else if (!strcmp(mode, "close_race")) {
        int reps = argc > 2 ? atoi(argv[2]) : 3;
        for (int r = 0; r < reps; r++)
            for (int64_t cap : {1, 4, 1024}) close_race(cap, 4, 4, 20);
        for (int r = 0; r < reps; r++)
            for (int64_t cap : {1, 16, 1024}) sum_race(cap);
    } else {
        run_error_mode(mode);
    }
#ifdef NV_TSAN
    void rt_threads_main_wait();
    rt_threads_main_wait();
    return 0;
#else
    return nv_finish();
#endif
}
