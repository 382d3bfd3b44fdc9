// Channels (9.5): bounded MPMC FIFO queues whose blocked threads sleep.
//
// Data path: a bounded MPMC ring after Dmitry Vyukov's "Bounded MPMC queue" (1024cores.net),
// in the form crossbeam-channel's array flavor gives it (a closed mark in the tail word). Each
// slot holds a sequence word and one item. Positions are 64-bit counters that never wrap in
// practice; the slot of position p is p % cap. Sequence words count in steps of two, so that
// "holds the item of p" and "free for p + cap" differ even when cap is 1:
//   - slot.seq == 2p       the slot is free for the sender of position p
//   - slot.seq == 2p + 1   it holds the item of position p
//   - after receiving p, slot.seq = 2(p + cap) (free for the sender of the next lap)
// A sender claims position `tail` by CAS when its slot is free, copies the item, publishes the
// sequence; a receiver claims `head` likewise when the item is there. Sends complete in the
// order of their claims, and receivers take items in that order: FIFO.
// Closing sets bit 63 of `tail` (one atomic RMW), so a send either claimed its position before
// the close (its item stays receivable) or fails; a receiver that finds the queue empty reads
// tail and knows at once whether it is also closed.
//
// Blocking: a thread that finds the channel full (send) or empty and open (receive) first
// spins on the sequence word of the slot it waits for (an adaptive number of pauses), yields a
// few times, then queues itself in the channel's send or receive wait queue (under the channel
// mutex), re-checks, counts as waiting for the deadlock detector (9.6) and parks in its futex
// word (thread/sync.h). After every successful send (receive), the sender (receiver) reads the
// number of parked receivers (senders); the waiter increments it before its re-check. Sequence
// words, head/tail loads and these counters use seq_cst operations (no fences, which
// ThreadSanitizer cannot model), so in their single total order one of the two always sees the
// other: either the waker finds the waiter, or the waiter's re-check finds the item or slot.
// Hand-off (as Go's channels do it): a send that finds a receiver parked and nothing buffered
// gives its item straight to that receiver; a receive that frees a slot while a sender is
// parked pushes that sender's item for it. Either way the parked thread wakes with its
// operation done and one wake-up moves two items through a channel of capacity 1. Otherwise a
// waker dequeues the first waiter, marks it running and wakes it to retry; a woken thread that
// loses the race for the item or slot queues again. close and sum wake everyone concerned.
//
// sum claims every buffered position at once: it waits until all positions between head and a
// snapshot of tail are published, then moves head over all of them with one CAS (so the
// removal is atomic: no receiver can take one of them afterwards), adds the items and frees the
// slots.
#include <pthread.h>
#include <sched.h>
#include <cstring>
#include <new>
#include "neve_rt.h"
#include "channel/chan.h"
#include "error/panic.h"
#include "gc/alloc.h"
#include "thread/sync.h"

namespace {

constexpr uint64_t kClosed = uint64_t(1) << 63;

struct Slot {
    std::atomic<uint64_t> seq;
    // the item follows (8-aligned)
    char* data() { return reinterpret_cast<char*>(this) + sizeof(Slot); }
};

// Retries inside one attempt (a sender or receiver is between its claim and its publish, or
// sum waits for a publish): 1 + 2 + 4 pauses, then sched_yield, which lets the thread we wait
// for run when it shares our core.
struct Backoff {
    unsigned step = 0;
    static constexpr unsigned kSpin = 2, kYield = 14;
    void snooze() {
        if (step <= kSpin) {
            for (unsigned i = 0; i < (1u << step); i++) rt_cpu_relax();
        } else {
            sched_yield();
        }
        if (step <= kYield) step++;
    }
};

}  // namespace

struct NvChan {
    const NvType* elem;
    int64_t cap;
    uint64_t mask;           // cap - 1 when cap is a power of two, else 0
    int64_t stride;          // bytes per slot
    int64_t isize;           // bytes per item
    char* ring;              // 64-byte aligned inside ring_mem
    void* ring_mem;          // the allocation (keeps it reachable)
    char pad0[64];
    std::atomic<uint64_t> tail;   // next position to send | kClosed
    char pad1[56];
    std::atomic<uint64_t> head;               // next position to receive
    char pad2[56];
    std::atomic<int32_t> nsend;               // threads in sendq
    std::atomic<int32_t> nrecv;               // threads in recvq
    std::atomic<uint32_t> spin;               // pauses a blocked operation spins (adaptive)
    pthread_mutex_t mu;                       // guards the queues and handoffs
    int64_t handoffs;                         // operations completed for a parked thread
    RtWaitQ sendq;
    RtWaitQ recvq;
};

namespace {

inline Slot* slot(NvChan* c, uint64_t pos) {
    uint64_t i = c->mask ? (pos & c->mask) : (pos % (uint64_t)c->cap);
    return reinterpret_cast<Slot*>(c->ring + i * (uint64_t)c->stride);
}

// 1 sent, 0 full, -1 closed.
int try_push(NvChan* c, const void* item) {
    Backoff b;
    uint64_t pos = c->tail.load(std::memory_order_relaxed);
    for (;;) {
        if (pos & kClosed) return -1;
        Slot* s = slot(c, pos);
        uint64_t seq = s->seq.load(std::memory_order_seq_cst);
        int64_t dif = (int64_t)(seq - 2 * pos);
        if (dif == 0) {
            if (c->tail.compare_exchange_weak(pos, pos + 1, std::memory_order_seq_cst,
                                              std::memory_order_relaxed)) {
                memcpy(s->data(), item, (size_t)c->isize);
                s->seq.store(2 * pos + 1, std::memory_order_seq_cst);
                return 1;
            }
        } else if (dif < 0) {
            // The slot still holds the item of position pos - cap (or its receiver is copying
            // it out): full if head is a whole lap behind.
            uint64_t h = c->head.load(std::memory_order_seq_cst);
            if (h + (uint64_t)c->cap == pos) return 0;
            b.snooze();
            pos = c->tail.load(std::memory_order_relaxed);
        } else {
            pos = c->tail.load(std::memory_order_relaxed);   // another sender took pos
        }
    }
}

// 1 received, 0 empty, -1 closed and empty.
int try_pop(NvChan* c, void* out) {
    Backoff b;
    uint64_t pos = c->head.load(std::memory_order_relaxed);
    for (;;) {
        Slot* s = slot(c, pos);
        uint64_t seq = s->seq.load(std::memory_order_seq_cst);
        int64_t dif = (int64_t)(seq - (2 * pos + 1));
        if (dif == 0) {
            if (c->head.compare_exchange_weak(pos, pos + 1, std::memory_order_seq_cst,
                                              std::memory_order_relaxed)) {
                memcpy(out, s->data(), (size_t)c->isize);
                // a received reference must not stay reachable through the ring
                if (c->elem->has_ptrs) memset(s->data(), 0, (size_t)c->isize);
                s->seq.store(2 * (pos + (uint64_t)c->cap), std::memory_order_seq_cst);
                return 1;
            }
        } else if (dif < 0) {
            // Nothing at pos yet: empty unless a sender has claimed pos and is copying.
            uint64_t t = c->tail.load(std::memory_order_seq_cst);
            if ((t & ~kClosed) == pos) return (t & kClosed) ? -1 : 0;
            b.snooze();
            pos = c->head.load(std::memory_order_relaxed);
        } else {
            pos = c->head.load(std::memory_order_relaxed);   // another receiver took pos
        }
    }
}

// A thread queued in sendq or recvq. The queues hold &w; item is the sender's value or the
// receiver's destination, and done says the thread that dequeued it completed the operation for
// it (written under c->mu before the waiter is released, read by the waiter after it wakes).
struct ChanWaiter {
    RtWaiter w;
    void* item;
    bool done;
};

inline ChanWaiter* chan_waiter(RtWaiter* w) { return reinterpret_cast<ChanWaiter*>(w); }

// Under c->mu: release the first waiter of q. Returns it when it sleeps in the futex (the caller
// calls rt_unpark_finish after unlocking), else NULL.
RtThread* take_one(std::atomic<int32_t>& n, RtWaitQ& q) {
    RtWaiter* w = q.pop();
    if (!w) return nullptr;
    n.fetch_sub(1, std::memory_order_relaxed);
    RtThread* t = w->t;
    return rt_release_waiter(t) ? t : nullptr;
}

inline void notify_receivers(NvChan* c) {
    if (c->nrecv.load(std::memory_order_seq_cst) == 0) return;
    pthread_mutex_lock(&c->mu);
    RtThread* t = take_one(c->nrecv, c->recvq);
    pthread_mutex_unlock(&c->mu);
    if (t) rt_unpark_finish(t);
}

// Under c->mu, after a receive freed a slot: the first parked sender's send is completed here,
// its item pushed at the tail on its behalf (it wakes with nothing left to do), and a parked
// receiver is woken for that item. Should the push fail (another sender took the slot, or the
// channel closed), the sender is only woken and retries. Sleeping threads go to wake[0..1].
void complete_parked_send(NvChan* c, RtThread* wake[2]) {
    RtWaiter* rw = c->sendq.pop();
    if (!rw) return;
    c->nsend.fetch_sub(1, std::memory_order_relaxed);
    ChanWaiter* w = chan_waiter(rw);
    if (try_push(c, w->item) > 0) {
        w->done = true;
        c->handoffs++;
        if (c->nrecv.load(std::memory_order_seq_cst) > 0) wake[1] = take_one(c->nrecv, c->recvq);
    }
    RtThread* t = rw->t;   // w may be gone once released
    if (rt_release_waiter(t)) wake[0] = t;
}

void wake_all(RtThread* wake[2]) {
    for (int i = 0; i < 2; i++)
        if (wake[i]) rt_unpark_finish(wake[i]);
}

inline void notify_senders(NvChan* c) {
    if (c->nsend.load(std::memory_order_seq_cst) == 0) return;
    RtThread* wake[2] = {nullptr, nullptr};
    pthread_mutex_lock(&c->mu);
    complete_parked_send(c, wake);
    pthread_mutex_unlock(&c->mu);
    wake_all(wake);
}

// A send that finds a receiver parked and nothing buffered hands its item to that receiver
// directly: the ring slot stays free for the next send. The ring is empty when head, then tail,
// read equal (head never passes tail): this send and that receive both take effect at that
// instant, before any later push. Returns 1 handed over, -1 closed, 0 not possible.
int give_to_parked_receiver(NvChan* c, const void* item) {
    if (c->nrecv.load(std::memory_order_seq_cst) == 0) return 0;
    if (c->head.load(std::memory_order_seq_cst) != c->tail.load(std::memory_order_seq_cst))
        return 0;   // buffered items go first (or closed: the push reports it)
    pthread_mutex_lock(&c->mu);
    uint64_t h = c->head.load(std::memory_order_seq_cst);
    uint64_t t = c->tail.load(std::memory_order_seq_cst);
    int r = 0;
    RtThread* sleeper = nullptr;
    if (t & kClosed) {
        r = -1;
    } else if (h == t && !c->recvq.empty()) {
        RtWaiter* rw = c->recvq.pop();
        c->nrecv.fetch_sub(1, std::memory_order_relaxed);
        ChanWaiter* w = chan_waiter(rw);
        memcpy(w->item, item, (size_t)c->isize);
        w->done = true;
        c->handoffs++;
        RtThread* th = rw->t;
        if (rt_release_waiter(th)) sleeper = th;
        r = 1;
    }
    pthread_mutex_unlock(&c->mu);
    if (sleeper) rt_unpark_finish(sleeper);
    return r;
}

// Under c->mu: release every waiter of q (they retry: done stays false).
void take_all(std::atomic<int32_t>& n, RtWaitQ& q) {
    while (RtWaiter* w = q.pop()) {
        n.fetch_sub(1, std::memory_order_relaxed);
        RtThread* t = w->t;
        if (rt_release_waiter(t)) rt_unpark_finish(t);
    }
}

// Pauses before a blocked operation yields: the channel's budget doubles (up to kSpinMax) when
// a spin sees the other side move and halves (down to kSpinMin) when it does not. With a core
// for each thread, the partner answers within a spin and no thread sleeps; when the partner
// shares our core it cannot move while we spin, and the budget falls to a few pauses.
constexpr uint32_t kSpinMin = 4, kSpinMax = 1024;   // about 30 us at 30 ns a pause
constexpr int kYields = 12;   // then park (bench/concurrency/README.md)

// Waits up to budget pauses for word to differ from old; true when it did, or when the channel
// was closed meanwhile (which no sequence word shows; checked every 32 pauses).
bool spin_on(NvChan* c, const std::atomic<uint64_t>& word, uint64_t old, uint32_t budget) {
    for (uint32_t i = 1; i <= budget; i++) {
        rt_cpu_relax();
        if (word.load(std::memory_order_relaxed) != old) return true;
        if ((i & 31) == 0 && (c->tail.load(std::memory_order_relaxed) & kClosed)) return true;
    }
    return false;
}

void adapt_spin(NvChan* c, bool moved) {
    uint32_t b = c->spin.load(std::memory_order_relaxed);
    uint32_t nb = moved ? (b < kSpinMax ? b * 2 : b) : (b > kSpinMin ? b / 2 : b);
    if (nb != b) c->spin.store(nb, std::memory_order_relaxed);
}

// One blocking operation, send (kSend) or receive. A sender first hands its item to a parked
// receiver when nothing is buffered. Otherwise, while the slot at its position is not ready,
// spin on that slot's sequence word (the other side's next store there) without touching the
// other side's head or tail, whose cache lines would then bounce on every message; once it is
// ready, try. When a spin sees nothing, try anyway, then yield a few times, then queue as a
// waiter under the channel mutex, re-try (the condition may have changed meanwhile), and park.
// A parked thread may wake with its operation completed by the thread that dequeued it (done).
// Returns 1 done, 0 the channel is closed (for a receive: closed and empty).
template <bool kSend>
int blocking(NvChan* c, void* item) {
    auto attempt = [&] { return kSend ? try_push(c, item) : try_pop(c, item); };
    auto& mine = kSend ? c->sendq : c->recvq;
    auto& my_count = kSend ? c->nsend : c->nrecv;
    auto& pos_word = kSend ? c->tail : c->head;
    bool spin_failed = false;
    bool spun = false;   // try after every spin, ready or not: a close shows in no sequence word
    for (int yields = 0;;) {
        if (kSend) {
            int g = give_to_parked_receiver(c, item);
            if (g) return g > 0;
        }
        uint64_t pos = pos_word.load(std::memory_order_relaxed) & ~kClosed;
        const std::atomic<uint64_t>& seq = slot(c, pos)->seq;
        uint64_t old = seq.load(std::memory_order_relaxed);
        if (old == (kSend ? 2 * pos : 2 * pos + 1) || spun || spin_failed) {
            spun = false;
            int r = attempt();
            if (r > 0) {
                if (kSend) notify_receivers(c); else notify_senders(c);
                return 1;
            }
            if (r < 0) return 0;
            old = seq.load(std::memory_order_relaxed);
        }
        if (!spin_failed) {
            bool moved = spin_on(c, seq, old, c->spin.load(std::memory_order_relaxed));
            adapt_spin(c, moved);
            spin_failed = !moved;
            spun = true;
            continue;
        }
        if (yields < kYields) {
            yields++;
            sched_yield();
            continue;
        }
        yields = 0;
        spin_failed = false;
        RtThread* me = rt_self();
        ChanWaiter w{{nullptr, nullptr, me}, item, false};
        rt_park_prepare(me);
        pthread_mutex_lock(&c->mu);
        mine.push(&w.w);
        my_count.fetch_add(1, std::memory_order_seq_cst);
        int r = attempt();
        if (r != 0) {
            mine.remove(&w.w);
            my_count.fetch_sub(1, std::memory_order_relaxed);
            RtThread* wake[2] = {nullptr, nullptr};
            if (r > 0) {
                if (kSend) {
                    if (c->nrecv.load(std::memory_order_seq_cst) > 0)
                        wake[0] = take_one(c->nrecv, c->recvq);
                } else if (c->nsend.load(std::memory_order_seq_cst) > 0) {
                    complete_parked_send(c, wake);
                }
            }
            pthread_mutex_unlock(&c->mu);
            wake_all(wake);
            return r > 0;
        }
        rt_wait_commit(me, kSend ? RT_WAIT_SEND : RT_WAIT_RECV, nullptr);
        pthread_mutex_unlock(&c->mu);
        rt_park(me);
        if (w.done) return 1;
    }
}

int send(NvChan* c, const void* item) { return blocking<true>(c, const_cast<void*>(item)); }
int recv(NvChan* c, void* out) { return blocking<false>(c, out); }

template <class T>
T load(const char* p) {
    T v;
    memcpy(&v, p, sizeof v);
    return v;
}

template <class T>
void store(void* p, T v) {
    memcpy(p, &v, sizeof v);
}

// Sum of the items at positions [h, t), which the caller owns; integers wrap, bf16 and half
// add in float and round once (as array reduce does).
void add_items(NvChan* c, uint64_t h, uint64_t t, void* out) {
    int32_t kind = c->elem->kind;
    uint64_t iacc = 0;
    float facc = 0.0f;
    double dacc = 0.0;
    bool first = true;
    for (uint64_t pos = h; pos != t; pos++) {
        const char* d = slot(c, pos)->data();
        switch (kind) {
            case NV_INT: iacc += (uint64_t)load<int64_t>(d); break;
            case NV_I8: iacc += (uint64_t)load<int8_t>(d); break;
            case NV_I16: iacc += (uint64_t)load<int16_t>(d); break;
            case NV_I32: iacc += (uint64_t)load<int32_t>(d); break;
            case NV_U8: iacc += (uint64_t)load<uint8_t>(d); break;
            case NV_U16: iacc += (uint64_t)load<uint16_t>(d); break;
            case NV_U32: iacc += (uint64_t)load<uint32_t>(d); break;
            case NV_U64: iacc += load<uint64_t>(d); break;
            case NV_FLOAT: facc = first ? load<float>(d) : facc + load<float>(d); break;
            case NV_F64: dacc = first ? load<double>(d) : dacc + load<double>(d); break;
            case NV_BF16: {
                float x = nv_bf16_to_f32(load<uint16_t>(d));
                facc = first ? x : facc + x;
                break;
            }
            case NV_HALF: {
                float x = nv_half_to_f32(load<uint16_t>(d));
                facc = first ? x : facc + x;
                break;
            }
            default: break;
        }
        first = false;
    }
    switch (kind) {
        case NV_INT: store<int64_t>(out, (int64_t)iacc); break;
        case NV_I8: store<int8_t>(out, (int8_t)iacc); break;
        case NV_I16: store<int16_t>(out, (int16_t)iacc); break;
        case NV_I32: store<int32_t>(out, (int32_t)iacc); break;
        case NV_U8: store<uint8_t>(out, (uint8_t)iacc); break;
        case NV_U16: store<uint16_t>(out, (uint16_t)iacc); break;
        case NV_U32: store<uint32_t>(out, (uint32_t)iacc); break;
        case NV_U64: store<uint64_t>(out, iacc); break;
        case NV_FLOAT: store<float>(out, facc); break;
        case NV_F64: store<double>(out, dacc); break;
        case NV_BF16: store<uint16_t>(out, (uint16_t)nv_f32_to_bf16(facc)); break;
        case NV_HALF: store<uint16_t>(out, (uint16_t)nv_f32_to_half(facc)); break;
        default: break;
    }
}

bool numeric(int32_t kind) {
    switch (kind) {
        case NV_INT: case NV_I8: case NV_I16: case NV_I32: case NV_U8:
        case NV_U16: case NV_U32: case NV_U64:
        case NV_FLOAT: case NV_F64: case NV_BF16: case NV_HALF:
            return true;
        default:
            return false;
    }
}

}  // namespace

const NvType* rt_chan_elem(const NvChan* c) { return c->elem; }
int64_t rt_chan_cap(const NvChan* c) { return c->cap; }

int64_t rt_chan_handoffs(NvChan* c) {
    pthread_mutex_lock(&c->mu);
    int64_t n = c->handoffs;
    pthread_mutex_unlock(&c->mu);
    return n;
}

extern "C" {

NvChan* nv_chan_new(const NvType* elem, int64_t cap) {
    if (cap < 1) rt_panicf("channel capacity must be at least 1, not %lld", (long long)cap);
    int64_t isize = elem->size > 0 ? elem->size : 0;
    int64_t stride = (int64_t)sizeof(Slot) + ((isize + 7) & ~int64_t(7));
    if (cap > (int64_t(1) << 40) || cap > (INT64_MAX - 128) / stride) rt_panic("out of memory");
    NvChan* c = static_cast<NvChan*>(rt_alloc(sizeof(NvChan)));
    c->elem = elem;
    c->cap = cap;
    c->mask = (cap & (cap - 1)) == 0 ? (uint64_t)cap - 1 : 0;
    c->stride = stride;
    c->isize = isize;
    // The ring gets cache lines of its own: a small ring sharing a line with other objects
    // (a thread's env, read on every send) would make that line bounce with every item.
    size_t bytes = (size_t)(cap * stride) + 128;
    c->ring_mem = elem->has_ptrs ? rt_alloc(bytes) : rt_alloc_atomic(bytes);
    c->ring = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(c->ring_mem) + 63) & ~uintptr_t(63));
    for (int64_t i = 0; i < cap; i++)
        new (&slot(c, (uint64_t)i)->seq) std::atomic<uint64_t>(2 * (uint64_t)i);
    new (&c->tail) std::atomic<uint64_t>(0);
    new (&c->head) std::atomic<uint64_t>(0);
    new (&c->nsend) std::atomic<int32_t>(0);
    new (&c->nrecv) std::atomic<int32_t>(0);
    new (&c->spin) std::atomic<uint32_t>(kSpinMin);
    c->handoffs = 0;
    pthread_mutex_init(&c->mu, nullptr);
    c->sendq = RtWaitQ{nullptr, nullptr};
    c->recvq = RtWaitQ{nullptr, nullptr};
    // Everything above is published to other threads by however the channel reference gets
    // to them (a thread start, a channel, a lock): all of these synchronize.
    return c;
}

void nv_chan_send(NvChan* c, const void* item) {
    if (!send(c, item)) rt_panic("send on closed channel");
}

int32_t nv_chan_try_send(NvChan* c, const void* item) { return send(c, item); }

int32_t nv_chan_recv(NvChan* c, void* out) {
    if (recv(c, out)) return 1;
    memset(out, 0, (size_t)c->isize);
    return 0;
}

void nv_chan_close(NvChan* c) {
    uint64_t old = c->tail.fetch_or(kClosed, std::memory_order_seq_cst);
    if (old & kClosed) return;
    pthread_mutex_lock(&c->mu);
    take_all(c->nsend, c->sendq);   // they find the channel closed: send fails
    take_all(c->nrecv, c->recvq);   // they drain what is left, then get the zero value
    pthread_mutex_unlock(&c->mu);
}

int32_t nv_chan_alive(const NvChan* cc) {
    NvChan* c = const_cast<NvChan*>(cc);
    uint64_t t = c->tail.load(std::memory_order_seq_cst);
    if (!(t & kClosed)) return 1;
    // closed: tail no longer moves
    return c->head.load(std::memory_order_seq_cst) != (t & ~kClosed);
}

int64_t nv_chan_size(const NvChan* cc) {
    NvChan* c = const_cast<NvChan*>(cc);
    for (;;) {
        uint64_t t = c->tail.load(std::memory_order_seq_cst) & ~kClosed;
        uint64_t h = c->head.load(std::memory_order_seq_cst);
        if ((c->tail.load(std::memory_order_seq_cst) & ~kClosed) != t) continue;
        int64_t n = (int64_t)(t - h);
        if (n < 0) n = 0;   // head read after tail moved past it twice: empty
        return n > c->cap ? c->cap : n;
    }
}

void nv_chan_sum(NvChan* c, void* out) {
    if (!numeric(c->elem->kind)) rt_panic("sum of a channel of non-numeric items");
    for (;;) {
        uint64_t h = c->head.load(std::memory_order_seq_cst);
        uint64_t t = c->tail.load(std::memory_order_seq_cst) & ~kClosed;
        if (t == h) {
            memset(out, 0, (size_t)c->isize);
            return;
        }
        if (t - h > (uint64_t)c->cap) continue;   // torn snapshot: retry
        // Every position in [h, t) must be published before we can own it.
        bool ok = true;
        for (uint64_t pos = h; ok && pos != t; pos++) {
            Slot* s = slot(c, pos);
            Backoff b;
            for (;;) {
                uint64_t seq = s->seq.load(std::memory_order_seq_cst);
                if (seq == 2 * pos + 1) break;
                if ((int64_t)(seq - (2 * pos + 1)) > 0 ||
                    c->head.load(std::memory_order_relaxed) != h) {
                    ok = false;   // a receiver took it
                    break;
                }
                b.snooze();       // its sender is still copying
            }
        }
        if (!ok) continue;
        if (!c->head.compare_exchange_strong(h, t, std::memory_order_seq_cst)) continue;
        add_items(c, h, t, out);
        for (uint64_t pos = h; pos != t; pos++)
            slot(c, pos)->seq.store(2 * (pos + (uint64_t)c->cap), std::memory_order_seq_cst);
        if (c->nsend.load(std::memory_order_seq_cst) > 0) {
            pthread_mutex_lock(&c->mu);
            take_all(c->nsend, c->sendq);
            pthread_mutex_unlock(&c->mu);
        }
        return;
    }
}

}  // extern "C"
