// Allocation through bdwgc (TOOLCHAIN-NOTES: garbage collector).
#include <gc.h>
#include <cstring>
#include "neve_rt.h"
#include "gc/alloc.h"
#include "error/panic.h"

void rt_gc_init() {
    GC_INIT();
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

extern "C" void* nv_alloc(int64_t size) {
    if (size < 0) rt_panic("out of memory");
    return rt_alloc((size_t)size);
}

extern "C" void* nv_alloc_atomic(int64_t size) {
    if (size < 0) rt_panic("out of memory");
    return rt_alloc_atomic((size_t)size);
}
