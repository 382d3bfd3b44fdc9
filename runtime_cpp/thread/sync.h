// Internal: thread records, parking and the deadlock detector (9.1, 9.4-9.6), shared by the
// thread concern (threads, finish, locks) and the channel concern.
//
// Every thread that uses these services has an RtThread record (rt_self). User threads -- main
// and every thread from nv_spawn until it ends -- are *counted*: the deadlock detector keeps one
// atomic word holding (users << 32 | waiting). Protocol (9.6):
//   - A thread that must block first makes itself findable by whoever can release it (a channel
//     or lock queue, a finish record), all under the mutex of that object; then, still holding
//     that mutex and after re-checking its condition, it calls rt_wait_commit, which counts it
//     as waiting and reports the deadlock when that makes every user thread waiting; then it
//     unlocks and parks.
//   - The thread that makes a wait satisfiable removes the waiter from the queue under the same
//     mutex, calls rt_mark_running for it (uncounting it) and only then wakes it (rt_unpark_*).
// So a counted waiter can only be released by a running thread, which uncounts it before it can
// itself wait or end: when the word says "all waiting" no wake-up is pending and the program is
// deadlocked.
#pragma once
#include <atomic>
#include <cstdint>
#include "neve_rt.h"

// What a thread waits for (the text of the deadlock report, deadlock.cpp).
enum RtWaitWhat : int32_t {
    RT_WAIT_NONE = 0,
    RT_WAIT_SEND,        // "send on channel"
    RT_WAIT_RECV,        // "receive on channel"
    RT_WAIT_LOCK,        // "waiting for lock \"NAME\""
    RT_WAIT_LOCK_OBJ,    // "waiting for the lock of an object"
    RT_WAIT_FINISH,      // "waiting for threads at the end of finish"
    RT_WAIT_MAIN_END,    // "waiting for threads at the end of main"
};

struct RtThread {
    // Parking word: 0 = parked or about to park (spinning), 1 = woken, 2 = asleep in the futex.
    std::atomic<uint32_t> parker;
    bool counted;            // a user thread: counts for deadlock detection
    bool is_main;
    int64_t tid;
    const char* kind;        // "async", "asyncs", "spawn" (NULL for main and foreign threads)
    const char* origin;      // FILE:LINE:COL of the starting statement
    char* origin_line;       // "in thread tid=T started at ORIGIN" (malloc'ed, while running)
    // The current wait, written by the thread itself before rt_wait_commit counts it.
    int32_t wait_what;
    const char* wait_detail; // lock name
    const char* wait_file;   // location of the innermost Neve frame when the wait began
    int64_t wait_site;
    // registry of live user threads (deadlock.cpp), free list of recycled records
    RtThread* reg_prev;
    RtThread* reg_next;
    RtThread* pool_next;
};

// The calling thread's record; a thread that never started through nv_spawn (a foreign thread,
// or any thread before rt_threads_init) gets an uncounted one.
RtThread* rt_self();

// Records: taken from / returned to a pool; the memory is never unmapped, so a late futex wake
// on a recycled record is only a spurious wake-up.
RtThread* rt_thread_alloc();
void rt_thread_free(RtThread* t);

// Deadlock detector (deadlock.cpp).
void rt_dl_register(RtThread* t);     // a new user thread (counted from now on)
void rt_dl_unregister(RtThread* t);   // a user thread ends; may report a deadlock
void rt_wait_commit(RtThread* me, int32_t what, const char* detail);
inline void rt_mark_running(RtThread* t);

// Parking (threads.cpp).
inline void rt_park_prepare(RtThread* me) { me->parker.store(0, std::memory_order_relaxed); }
void rt_park(RtThread* me);                      // returns once another thread set parker = 1
// Sets t's parker to 1; true when t sleeps in the futex and rt_unpark_finish(t) must follow
// (after unlocking whatever mutex the caller holds).
inline bool rt_unpark_begin(RtThread* t) {
    return t->parker.exchange(1, std::memory_order_acq_rel) == 2;
}
void rt_unpark_finish(RtThread* t);
// rt_mark_running + rt_unpark_begin
inline bool rt_release_waiter(RtThread* t) {
    rt_mark_running(t);
    return rt_unpark_begin(t);
}

// Intrusive FIFO of waiting threads; nodes live on the waiters' stacks. Guarded by the mutex of
// the object waited for.
struct RtWaiter {
    RtWaiter* prev;
    RtWaiter* next;
    RtThread* t;
};

struct RtWaitQ {
    RtWaiter* head;
    RtWaiter* tail;

    bool empty() const { return head == nullptr; }
    void push(RtWaiter* w) {
        w->next = nullptr;
        w->prev = tail;
        if (tail) tail->next = w;
        else head = w;
        tail = w;
    }
    RtWaiter* pop() {
        RtWaiter* w = head;
        if (w) remove(w);
        return w;
    }
    void remove(RtWaiter* w) {
        if (w->prev) w->prev->next = w->next;
        else head = w->next;
        if (w->next) w->next->prev = w->prev;
        else tail = w->prev;
        w->prev = w->next = nullptr;
    }
};

// The detector's word: users << 32 | waiting.
extern std::atomic<uint64_t> rt_dl_counts;

inline void rt_mark_running(RtThread* t) {
    if (t->counted) rt_dl_counts.fetch_sub(1, std::memory_order_seq_cst);
}

// Spin-then-yield backoff of the fast paths.
inline void rt_cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Main's implicit finish (9.1): opened by rt_threads_init, waited for by rt_threads_main_wait.
void rt_threads_init();
void rt_threads_main_wait();
