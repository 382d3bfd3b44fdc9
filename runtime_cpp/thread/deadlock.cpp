// Deadlock detection (9.6): the counts of user and waiting threads in one atomic word, the
// registry of live user threads (for the report) and the pool of thread records. See sync.h for
// the protocol that makes "every user thread is waiting" a real deadlock.
//
// Report (stderr, exit status 1; stdout flushed first, as for every runtime error):
//   prog.nv:14:9: runtime error: deadlock: all threads are blocked
//     main (tid 0): receive on channel at prog.nv:14:9
//     thread tid 2 (asyncs at prog.nv:11:5): send on channel at prog.nv:5:5
// The first location is the main thread's (absent when main waits with no Neve frame, as in
// nv_finish after main returned). One line per user thread, main first, then in start order.
// Waits are named:
//   send on channel                               blocked in a send (ch <- v, ch.send(v))
//   receive on channel                            blocked in a receive (x <- ch, for v in ch)
//   waiting for lock "NAME"                       lock "NAME" (plain lock: "mutex")
//   waiting for the lock of an object             lock e
//   waiting for threads at the end of finish      end of a finish block
//   waiting for threads at the end of main        end of main (its implicit finish)
// each followed by " at FILE:LINE:COL", the site of the thread's innermost Neve frame when the
// wait began (omitted when the thread has no frame).
#include <pthread.h>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include "neve_rt.h"
#include "error/panic.h"
#include "thread/sync.h"

std::atomic<uint64_t> rt_dl_counts{0};

namespace {

constexpr uint64_t kUser = uint64_t(1) << 32;
constexpr uint64_t kWaitMask = kUser - 1;

pthread_mutex_t g_reg = PTHREAD_MUTEX_INITIALIZER;   // registry and record pool
RtThread* g_head;
RtThread* g_tail;
RtThread* g_pool;

bool all_waiting(uint64_t v) {
    uint64_t users = v >> 32;
    return users != 0 && (v & kWaitMask) == users;
}

void put_loc(std::string& s, const char* file, int64_t site) {
    if (!file) return;
    char num[64];
    snprintf(num, sizeof num, ":%" PRId64 ":%" PRId64, site >> 32, site & 0xffffffff);
    s += " at ";
    s += file;
    s += num;
}

void put_wait(std::string& s, const RtThread* t) {
    switch (t->wait_what) {
        case RT_WAIT_SEND: s += "send on channel"; break;
        case RT_WAIT_RECV: s += "receive on channel"; break;
        case RT_WAIT_LOCK:
            s += "waiting for lock \"";
            s += t->wait_detail ? t->wait_detail : "";
            s += "\"";
            break;
        case RT_WAIT_LOCK_OBJ: s += "waiting for the lock of an object"; break;
        case RT_WAIT_FINISH: s += "waiting for threads at the end of finish"; break;
        case RT_WAIT_MAIN_END: s += "waiting for threads at the end of main"; break;
        default: s += "blocked"; break;
    }
    put_loc(s, t->wait_file, t->wait_site);
}

void put_thread(std::string& s, const RtThread* t) {
    char num[32];
    if (t->is_main) {
        s += "  main (tid 0): ";
    } else {
        snprintf(num, sizeof num, "%" PRId64, t->tid);
        s += "  thread tid ";
        s += num;
        s += " (";
        s += t->kind ? t->kind : "thread";
        if (t->origin) {
            s += " at ";
            s += t->origin;
        }
        s += "): ";
    }
    put_wait(s, t);
    s += "\n";
}

// Every user thread waits and none can be woken: nobody else touches the registry now.
[[noreturn]] void report() {
    pthread_mutex_lock(&g_reg);
    const RtThread* main_t = nullptr;
    for (const RtThread* t = g_head; t; t = t->reg_next)
        if (t->is_main) main_t = t;
    std::string s;
    if (main_t && main_t->wait_file) {
        char num[64];
        snprintf(num, sizeof num, ":%" PRId64 ":%" PRId64 ": ", main_t->wait_site >> 32,
                 main_t->wait_site & 0xffffffff);
        s += main_t->wait_file;
        s += num;
    }
    s += "runtime error: deadlock: all threads are blocked\n";
    if (main_t) put_thread(s, main_t);
    for (const RtThread* t = g_head; t; t = t->reg_next)
        if (!t->is_main) put_thread(s, t);
    rt_die_text(s.data(), s.size());
}

}  // namespace

RtThread* rt_thread_alloc() {
    pthread_mutex_lock(&g_reg);
    RtThread* t = g_pool;
    if (t) g_pool = t->pool_next;
    pthread_mutex_unlock(&g_reg);
    if (!t) {
        void* p = malloc(sizeof(RtThread));
        if (!p) rt_panic("out of memory");
        t = new (p) RtThread();
    }
    t->parker.store(0, std::memory_order_relaxed);
    t->counted = false;
    t->is_main = false;
    t->tid = 0;
    t->kind = nullptr;
    t->origin = nullptr;
    t->origin_line = nullptr;
    t->wait_what = RT_WAIT_NONE;
    t->wait_detail = nullptr;
    t->wait_file = nullptr;
    t->wait_site = 0;
    t->reg_prev = t->reg_next = t->pool_next = nullptr;
    return t;
}

void rt_thread_free(RtThread* t) {
    pthread_mutex_lock(&g_reg);
    t->pool_next = g_pool;
    g_pool = t;
    pthread_mutex_unlock(&g_reg);
}

void rt_dl_register(RtThread* t) {
    t->counted = true;
    pthread_mutex_lock(&g_reg);
    t->reg_next = nullptr;
    t->reg_prev = g_tail;
    if (g_tail) g_tail->reg_next = t;
    else g_head = t;
    g_tail = t;
    pthread_mutex_unlock(&g_reg);
    rt_dl_counts.fetch_add(kUser, std::memory_order_seq_cst);
}

void rt_dl_unregister(RtThread* t) {
    if (!t->counted) return;
    pthread_mutex_lock(&g_reg);
    if (t->reg_prev) t->reg_prev->reg_next = t->reg_next;
    else g_head = t->reg_next;
    if (t->reg_next) t->reg_next->reg_prev = t->reg_prev;
    else g_tail = t->reg_prev;
    t->reg_prev = t->reg_next = nullptr;
    pthread_mutex_unlock(&g_reg);
    uint64_t v = rt_dl_counts.fetch_sub(kUser, std::memory_order_seq_cst) - kUser;
    if (all_waiting(v)) report();
}

void rt_wait_commit(RtThread* me, int32_t what, const char* detail) {
    me->wait_what = what;
    me->wait_detail = detail;
    const NvFrame* f = nv_top_frame;
    me->wait_file = f && f->fn ? rt_shown_path(f->fn->file) : nullptr;
    me->wait_site = f ? f->site : 0;
    if (!me->counted) return;
    uint64_t v = rt_dl_counts.fetch_add(1, std::memory_order_seq_cst) + 1;
    if (all_waiting(v)) report();
}
