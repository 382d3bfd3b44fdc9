// Locks (9.4): re-entrant program-wide mutexes by name and one per object.
//
// A lock is {owner, depth, queue of waiters}. Acquiring a free lock or one the thread already
// holds is immediate; otherwise the thread queues (FIFO) and waits (a deadlock-detector wait,
// reported as `waiting for lock "NAME"` or `waiting for the lock of an object`). Releasing the
// last level hands the lock directly to the first waiter (it becomes the owner, is marked
// running, then woken), so a woken thread never has to compete again.
//
// Named locks live forever in a table keyed by the name's text (literals of different modules
// with the same text are one lock); each thread caches name pointer -> lock. Object locks live
// in 64 stripes keyed by the object's address; an entry exists only while some thread holds or
// waits for it, so locking many short-lived objects does not grow the table (and a collected
// object's address reused by a new object finds no stale state). The stripe or named-lock
// mutex guards the lock's fields.
#include <pthread.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include "neve_rt.h"
#include "error/panic.h"
#include "thread/sync.h"

namespace {

struct Lock {
    RtThread* owner;
    int64_t depth;
    RtWaitQ q;
    const char* name;            // named locks: the text (owned); NULL for object locks
    pthread_mutex_t mu;          // named locks only
};

// Acquire `l` whose guarding mutex `mu` the caller holds; unlocks mu.
void acquire(Lock* l, pthread_mutex_t* mu, RtThread* me) {
    if (l->owner == me) {
        l->depth++;
        pthread_mutex_unlock(mu);
        return;
    }
    if (l->owner == nullptr) {
        l->owner = me;
        l->depth = 1;
        pthread_mutex_unlock(mu);
        return;
    }
    RtWaiter w{nullptr, nullptr, me};
    rt_park_prepare(me);
    l->q.push(&w);
    if (l->name) rt_wait_commit(me, RT_WAIT_LOCK, l->name);
    else rt_wait_commit(me, RT_WAIT_LOCK_OBJ, nullptr);
    pthread_mutex_unlock(mu);
    rt_park(me);   // the releaser made us the owner with depth 1
}

// Release one level of `l` (mu held by the caller; the caller unlocks it). Returns the thread to
// wake with rt_unpark_finish after unlocking, if any. *free_now: the lock is now unused.
RtThread* release(Lock* l, RtThread* me, bool* free_now, bool* sleeping) {
    *free_now = false;
    *sleeping = false;
    if (l->owner != me) return nullptr;   // not ours: the compiler pairs lock and unlock
    if (--l->depth > 0) return nullptr;
    RtWaiter* w = l->q.pop();
    if (!w) {
        l->owner = nullptr;
        *free_now = true;
        return nullptr;
    }
    RtThread* t = w->t;
    l->owner = t;
    l->depth = 1;
    *sleeping = rt_release_waiter(t);
    return t;
}

// ------------------------------------------------------------------ named locks

pthread_mutex_t g_named_mu = PTHREAD_MUTEX_INITIALIZER;
// Never destroyed: detached threads may still lock while the process exits.
std::unordered_map<std::string, Lock*>* g_named;

struct NameCache {
    const char* ptr;
    Lock* lock;
};
constexpr int kCache = 8;
__thread NameCache t_names[kCache] __attribute__((tls_model("initial-exec")));

Lock* named(const char* name) {
    if (!name) name = "mutex";
    size_t h = ((uintptr_t)name >> 3) % kCache;
    NameCache& c = t_names[h];
    if (c.ptr == name) return c.lock;
    pthread_mutex_lock(&g_named_mu);
    if (!g_named) g_named = new std::unordered_map<std::string, Lock*>();
    Lock*& slot = (*g_named)[std::string(name)];
    if (!slot) {
        void* p = calloc(1, sizeof(Lock));
        if (!p) rt_panic("out of memory");
        Lock* l = new (p) Lock();
        l->name = strdup(name);
        pthread_mutex_init(&l->mu, nullptr);
        slot = l;
    }
    Lock* l = slot;
    pthread_mutex_unlock(&g_named_mu);
    c.ptr = name;
    c.lock = l;
    return l;
}

// ------------------------------------------------------------------ object locks

constexpr int kStripes = 64;
struct alignas(64) Stripe {
    pthread_mutex_t mu;
    std::unordered_map<uintptr_t, Lock*>* map;
};
Stripe g_stripes[kStripes] = {};
pthread_once_t g_stripes_once = PTHREAD_ONCE_INIT;

void init_stripes() {
    for (Stripe& s : g_stripes) {
        pthread_mutex_init(&s.mu, nullptr);
        s.map = new std::unordered_map<uintptr_t, Lock*>();
    }
}

Stripe& stripe(uintptr_t key) {
    pthread_once(&g_stripes_once, init_stripes);
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return g_stripes[h >> 58];   // top 6 bits
}

}  // namespace

extern "C" {

void nv_lock_name(const char* name) {
    Lock* l = named(name);
    RtThread* me = rt_self();
    pthread_mutex_lock(&l->mu);
    acquire(l, &l->mu, me);
}

void nv_unlock_name(const char* name) {
    Lock* l = named(name);
    RtThread* me = rt_self();
    bool free_now, sleeping;
    pthread_mutex_lock(&l->mu);
    RtThread* t = release(l, me, &free_now, &sleeping);
    pthread_mutex_unlock(&l->mu);
    if (sleeping) rt_unpark_finish(t);
}

void nv_lock_obj(const void* obj) {
    if (!obj) rt_panic("lock on nil object");
    uintptr_t key = (uintptr_t)obj;
    Stripe& s = stripe(key);
    RtThread* me = rt_self();
    pthread_mutex_lock(&s.mu);
    Lock*& slot = (*s.map)[key];
    if (!slot) {
        Lock* l = static_cast<Lock*>(calloc(1, sizeof(Lock)));
        if (!l) {
            pthread_mutex_unlock(&s.mu);
            rt_panic("out of memory");
        }
        slot = l;
    }
    acquire(slot, &s.mu, me);
}

void nv_unlock_obj(const void* obj) {
    if (!obj) return;
    uintptr_t key = (uintptr_t)obj;
    Stripe& s = stripe(key);
    RtThread* me = rt_self();
    bool free_now = false, sleeping = false;
    RtThread* t = nullptr;
    pthread_mutex_lock(&s.mu);
    auto it = s.map->find(key);
    if (it != s.map->end()) {
        Lock* l = it->second;
        t = release(l, me, &free_now, &sleeping);
        if (free_now) {
            s.map->erase(it);
            free(l);
        }
    }
    pthread_mutex_unlock(&s.mu);
    if (sleeping) rt_unpark_finish(t);
}

}  // extern "C"
