// The allocation interface of runtime_cpp/gc/alloc.h over plain malloc and pthread_create, for
// the ThreadSanitizer build of the thread and channel concerns (bdwgc is not TSan-clean).
// Nothing is ever collected: the test is short.
#include <pthread.h>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "gc/alloc.h"
#include "error/panic.h"

void rt_gc_init() {}

void* rt_alloc(size_t n) {
    void* p = calloc(1, n ? n : 1);
    if (!p) rt_panic("out of memory");
    return p;
}

void* rt_alloc_atomic(size_t n) { return rt_alloc(n); }
void* rt_alloc_atomic_uninit(size_t n) { return rt_alloc(n); }
void rt_gc_report() {}

int rt_thread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
    return pthread_create(th, attr, fn, arg);
}

void rt_release(void* p) { free(p); }
size_t rt_alloc_usable(void*, size_t asked) { return asked; }

extern "C" void* nv_alloc(int64_t size) { return rt_alloc((size_t)size); }
extern "C" void* nv_alloc_atomic(int64_t size) { return rt_alloc((size_t)size); }
