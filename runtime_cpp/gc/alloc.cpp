// Allocation through bdwgc (TOOLCHAIN-NOTES: garbage collector).
#include <gc.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "neve_rt.h"
#include "gc/alloc.h"
#include "error/panic.h"

void rt_gc_init() {
    // Tuned on 2 cores (bench/core gcloop: 2.2 s -> 1.25 s, same peak RSS): one marker thread
    // there, since a parallel marker only competes with the program; and a collection per
    // heap-size worth of allocation (divisor 1) instead of a third. Measured again with the
    // inline free lists (binarytrees_classes, CPU s / peak RSS): 2 markers 1.58 / 73 MB against
    // 1.54 / 73 with one; divisor 2 1.66 / 65 MB, 3 1.72 / 58 MB, and divisor 2 costs gcloop 20%.
    // Environment settings of bdwgc (GC_MARKERS, GC_FREE_SPACE_DIVISOR) still win.
    if (!getenv("GC_MARKERS") && sysconf(_SC_NPROCESSORS_ONLN) <= 2) GC_set_markers_count(1);
    GC_INIT();
    GC_set_warn_proc(GC_ignore_warn_proc);   // failures surface as Neve runtime errors
    if (!getenv("GC_FREE_SPACE_DIVISOR")) GC_set_free_space_divisor(1);
    // Threads started by foreign code (or created before the thread runtime hooks in) may
    // register themselves later with GC_register_my_thread.
    GC_allow_register_threads();
}

void* rt_alloc(size_t n) {
    void* p = GC_MALLOC(n ? n : 1);
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

void rt_free(void* p) { GC_free(p); }

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
