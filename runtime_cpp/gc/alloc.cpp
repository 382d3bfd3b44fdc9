// Allocation through bdwgc (TOOLCHAIN-NOTES: garbage collector).
#include <gc.h>
#include <gc/gc_inline.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "neve_rt.h"
#include "gc/alloc.h"
#include "error/panic.h"

void rt_gc_init() {
    // Tuned on 2 cores: one marker thread there, since a parallel marker only competes with the
    // program (2 markers cost binarytrees_classes 10-20% CPU, gcloop 15%). A collection per
    // heap-size worth of allocation (divisor 1), but not before 2 MB: small heaps were
    // collected every few hundred KB. Collections and peak RSS (issue 23; bench/core at depth 18
    // and 10M iterations):
    //   divisor, floor | binarytrees_classes | gcloop | binarytrees (arrays)
    //   1, none        | 58, 73 MB           | 4159   | 300
    //   1, 2 MB        | 57, 73 MB           | 1024   | 201
    //   1, 4 MB        | 52, 91 MB           | 510    | 298
    //   2, none        | 59, 65 MB           | 7789   | 296
    //   2, 4 MB        | 56, 65 MB           | 429    | 202
    //   3, 2 MB        | 67, 58 MB           | 1110   | 359
    // Divisor 2 would bring binarytrees_classes within 2x C's peak RSS, for about 10% of its CPU
    // time (marking 456 -> 537 ms), but it leaves Frost's tape test twice the live bytes after a
    // collection (tests/frost/test_memory.py: 64 MB against 32).
    // Incremental (generational) mode stays off: its write barrier's page faults would reach the
    // runtime's SIGSEGV handler. Environment settings of bdwgc (GC_MARKERS,
    // GC_FREE_SPACE_DIVISOR) still win.
    if (!getenv("GC_MARKERS") && sysconf(_SC_NPROCESSORS_ONLN) <= 2) GC_set_markers_count(1);
    GC_INIT();
    GC_set_warn_proc(GC_ignore_warn_proc);   // failures surface as Neve runtime errors
    if (!getenv("GC_FREE_SPACE_DIVISOR")) GC_set_free_space_divisor(1);
    GC_set_min_bytes_allocd((size_t)2 << 20);
    // Threads started by foreign code (or created before the thread runtime hooks in) may
    // register themselves later with GC_register_my_thread.
    GC_allow_register_threads();
}

extern "C" {
extern __thread void** nv_gc_fl __attribute__((tls_model("initial-exec")));
void* nv_gc_alloc_slow(int64_t granules);
}

void* rt_alloc(size_t n) {
    // small: this thread's free lists (freelists.cpp), which compiled code's `new` pops too
    size_t g = (n + 1 + GC_GRANULE_BYTES - 1) / GC_GRANULE_BYTES;   // + bdwgc's extra byte
    if (g < GC_TINY_FREELISTS) {
        void** head = nv_gc_fl + g;
        void* p = *head;
        if (__builtin_expect(p == nullptr, 0)) return nv_gc_alloc_slow((int64_t)g);
        *head = *(void**)p;
        *(void**)p = nullptr;   // the rest of a listed object is already clear
        return p;
    }
    void* p = GC_MALLOC(n);
    if (!p) rt_panic("out of memory");
    return p;   // GC_MALLOC memory is already cleared
}

void* rt_alloc_atomic_uninit(size_t n) {
    void* p = GC_MALLOC_ATOMIC(n ? n : 1);
    if (!p) rt_panic("out of memory");
    return p;
}

void* rt_alloc_atomic(size_t n) {
    // GC_MALLOC_ATOMIC does not clear: the collector never reads the object, so it skips it.
    void* p = rt_alloc_atomic_uninit(n);
    memset(p, 0, n);
    return p;
}

// GC_size counts the byte that bdwgc adds so that a pointer just past an object does not keep
// the next one alive (interior pointers recognised): that byte is not the caller's.
size_t rt_alloc_usable(void* p, size_t asked) {
    size_t n = GC_size(p) - 1;
    return n > asked ? n : asked;
}


extern "C" void* nv_alloc(int64_t size) {
    if (size < 0) rt_panic("out of memory");
    return rt_alloc((size_t)size);
}

extern "C" void* nv_alloc_atomic(int64_t size) {
    if (size < 0) rt_panic("out of memory");
    return rt_alloc_atomic((size_t)size);
}

// NEVE_GC_STATS=1: the collection count on stderr at exit (bench/core reads it).
void rt_gc_report() {
    const char* v = getenv("NEVE_GC_STATS");
    if (!v || !*v || *v == '0') return;
    char line[64];
    int n = snprintf(line, sizeof line, "gc collections: %lu\n", (unsigned long)GC_get_gc_no());
    if (n > 0) (void)!write(2, line, (size_t)n);
}

// A collector root outside the heap: the slot of a global instance (7.3, 13.4).
extern "C" void nv_gc_root(void** slot) { GC_add_roots(slot, slot + 1); }

int rt_thread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
    return GC_pthread_create(th, attr, fn, arg);
}

void rt_release(void*) {}
