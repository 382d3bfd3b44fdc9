// User threads (9.1): nv_spawn, finish scopes, tid/tN, parking.
//
// A thread is an OS thread created through the collector (rt_thread_create), detached, with a
// stack as large as the main thread's stack rlimit (8 MiB when unlimited). The child
// installs its alternate signal stack (stack overflow, 13.2), its origin line for error traces
// ("in thread tid=T started at FILE:LINE:COL"), adopts the seed its parent drew for it (14.3)
// and runs body(env).
//
// finish (9.1): each thread has an innermost open finish (TLS). nv_spawn counts the new thread
// in the starting thread's innermost finish and the child starts with that same finish as its
// own innermost, so threads it starts outside an inner finish are waited for by it too. The
// count is decremented when a thread ends; nv_finish_end waits (a deadlock-detector wait) until
// it is zero. Counts and the waiting owner are guarded by one mutex (finish operations are as
// rare as thread starts). A detached thread (spawn) is counted nowhere and runs its body inside
// a finish of its own. main runs inside an implicit finish opened by rt_threads_init (nv_init)
// and waited for by rt_threads_main_wait (nv_finish).
#include <linux/futex.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "gc/alloc.h"
#include "thread/sync.h"

__thread int64_t nv_tid __attribute__((tls_model("initial-exec"))) = 0;
__thread int64_t nv_tN __attribute__((tls_model("initial-exec"))) = 1;

namespace {

__thread RtThread* t_self __attribute__((tls_model("initial-exec")));

struct Finish {
    Finish* parent;       // the innermost open finish when this one was opened
    RtThread* waiter;     // the owner, while it waits in nv_finish_end
    int64_t count;        // threads registered and not yet ended
};
static_assert(sizeof(Finish) <= NV_FINISH_SIZE, "finish record exceeds NV_FINISH_SIZE");

__thread Finish* t_finish __attribute__((tls_model("initial-exec")));

pthread_mutex_t g_fin = PTHREAD_MUTEX_INITIALIZER;
Finish g_main_finish;
RtThread* g_main;
bool g_main_waited;

// Spins before a futex sleep: a wake-up that comes within this is nearly free.
constexpr int kParkSpins = 30;

long futex(std::atomic<uint32_t>* addr, int op, uint32_t val) {
    return syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), op, val, nullptr, nullptr, 0);
}

void finish_open(Finish* f) {
    f->parent = t_finish;
    f->waiter = nullptr;
    f->count = 0;
    t_finish = f;
}

// Waits until every thread counted in f has ended.
void finish_wait(Finish* f, int32_t what) {
    pthread_mutex_lock(&g_fin);
    if (f->count == 0) {
        pthread_mutex_unlock(&g_fin);
        return;
    }
    RtThread* me = rt_self();
    rt_park_prepare(me);
    f->waiter = me;
    rt_wait_commit(me, what, nullptr);
    pthread_mutex_unlock(&g_fin);
    rt_park(me);
}

// A thread counted in f has ended: the last one wakes the waiting owner.
void finish_leave(Finish* f) {
    RtThread* wake = nullptr;
    bool sleeping = false;
    pthread_mutex_lock(&g_fin);
    if (--f->count == 0 && f->waiter) {
        wake = f->waiter;
        f->waiter = nullptr;
        sleeping = rt_release_waiter(wake);
    }
    pthread_mutex_unlock(&g_fin);   // f may be gone from here on
    if (sleeping) rt_unpark_finish(wake);
}

// The main thread's stack limit when it has one (so a thread recurses as deep as main),
// else 8 MiB; kept within [256 KiB, 1 GiB].
size_t thread_stack_size() {
    constexpr size_t kDefault = size_t(8) << 20, kMin = size_t(256) << 10, kMax = size_t(1) << 30;
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kDefault;
    size_t n = (size_t)rl.rlim_cur;
    return n < kMin ? kMin : n > kMax ? kMax : n;
}

struct Start {
    void (*body)(void*);
    void* env;
    RtThread* rec;
    Finish* finish;       // the finish that counts this thread (NULL for detached)
    uint64_t seed;
    int64_t tN;
    int32_t detached;
};

void* thread_main(void* arg) {
    // Read everything the parent handed over; env stays visible to the collector on this
    // stack and in body's arguments from here on.
    Start* st = static_cast<Start*>(arg);
    void (*body)(void*) = st->body;
    void* env = st->env;
    RtThread* rec = st->rec;
    Finish* counted_in = st->finish;
    uint64_t seed = st->seed;
    int32_t detached = st->detached;
    nv_tid = rec->tid;
    nv_tN = st->tN;
    rt_release(st);

    t_self = rec;
    nv_sigstack_attach();
    nv_set_thread_origin(rec->origin_line);
    nv_rng_adopt(seed);
    t_finish = counted_in;

    if (detached) {
        Finish own;
        finish_open(&own);
        body(env);
        finish_wait(&own, RT_WAIT_FINISH);
        t_finish = nullptr;
    } else {
        body(env);
    }

    nv_set_thread_origin(nullptr);
    if (counted_in) finish_leave(counted_in);
    rt_dl_unregister(rec);
    t_self = nullptr;
    t_finish = nullptr;
    free(rec->origin_line);
    rec->origin_line = nullptr;
    rt_thread_free(rec);
    nv_sigstack_detach();
    return nullptr;
}

}  // namespace

// ------------------------------------------------------------------ records and parking

RtThread* rt_self() {
    RtThread* t = t_self;
    if (__builtin_expect(t == nullptr, 0)) {
        t = rt_thread_alloc();   // uncounted: a thread the runtime did not start
        t_self = t;
    }
    return t;
}

void rt_park(RtThread* me) {
    for (int i = 0; i < kParkSpins; i++) {
        if (me->parker.load(std::memory_order_acquire) == 1) return;
        rt_cpu_relax();
    }
    uint32_t expect = 0;
    if (me->parker.compare_exchange_strong(expect, 2, std::memory_order_acquire)) {
        while (me->parker.load(std::memory_order_acquire) == 2)
            futex(&me->parker, FUTEX_WAIT_PRIVATE, 2);   // EINTR, EAGAIN, spurious: re-check
    }
}

void rt_unpark_finish(RtThread* t) { futex(&t->parker, FUTEX_WAKE_PRIVATE, 1); }

// ------------------------------------------------------------------ main

void rt_threads_init() {
    if (g_main) return;
    RtThread* t = rt_thread_alloc();
    t->is_main = true;
    t_self = t;
    g_main = t;
    rt_dl_register(t);
    finish_open(&g_main_finish);
}

void rt_threads_main_wait() {
    if (!g_main || t_self != g_main || g_main_waited) return;
    g_main_waited = true;
    finish_wait(&g_main_finish, RT_WAIT_MAIN_END);
}

// ------------------------------------------------------------------ ABI

extern "C" {

int64_t nv_thw(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

void nv_check_thread_count(int64_t n) {
    if (n < 0) rt_panicf("asyncs with negative count %" PRId64, n);
}

void nv_finish_begin(void* f) { finish_open(static_cast<Finish*>(f)); }

void nv_finish_end(void* p) {
    Finish* f = static_cast<Finish*>(p);
    finish_wait(f, RT_WAIT_FINISH);
    // Normally f is the innermost; should a finish be ended out of order, drop the ones
    // opened inside it too.
    if (t_finish == f) {
        t_finish = f->parent;
    } else {
        for (Finish* g = t_finish; g; g = g->parent)
            if (g == f) {
                t_finish = f->parent;
                break;
            }
    }
}

void nv_main_wait(void) { rt_threads_main_wait(); }

void nv_spawn(void (*body)(void*), void* env, int64_t tid, int64_t tN, int32_t detached,
              const char* origin, const char* kind) {
    rt_self();
    Finish* f = detached ? nullptr : t_finish;
    RtThread* rec = rt_thread_alloc();
    rec->tid = tid;
    rec->kind = kind;
    origin = rt_shown_path(origin);
    rec->origin = origin;
    {
        const char* o = origin ? origin : "?";
        size_t n = strlen(o) + 64;
        rec->origin_line = static_cast<char*>(malloc(n));
        if (!rec->origin_line) rt_panic("out of memory");
        snprintf(rec->origin_line, n, "in thread tid=%" PRId64 " started at %s", tid, o);
    }

    Start* st = static_cast<Start*>(rt_alloc(sizeof(Start)));
    st->body = body;
    st->env = env;
    st->rec = rec;
    st->finish = f;
    st->seed = nv_rng_fork();
    st->tN = tN;
    st->detached = detached;

    if (f) {
        pthread_mutex_lock(&g_fin);
        f->count++;
        pthread_mutex_unlock(&g_fin);
    }
    rt_dl_register(rec);

    static const size_t stack = thread_stack_size();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, stack);
    pthread_t th;
    int err = rt_thread_create(&th, &attr, thread_main, st);
    pthread_attr_destroy(&attr);
    if (err != 0) rt_panicf("cannot start a thread: %s", strerror(err));
}

}  // extern "C"
