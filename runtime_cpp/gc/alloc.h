// Internal allocation helpers over bdwgc; every runtime allocation goes through here so that
// exhaustion is always the runtime error "out of memory" rather than a NULL dereference.
//
// The thread and channel concerns use only this interface (rt_alloc*, rt_thread_create,
// rt_release), so their sources also build against plain malloc and pthread_create for the
// ThreadSanitizer test (tests/runtime/tsan/), the collector not being TSan-clean.
#pragma once
#include <cstddef>
#include <pthread.h>

void rt_gc_init();
void* rt_alloc(size_t n);                 // zeroed, scanned for pointers
void* rt_alloc_atomic(size_t n);          // zeroed, never scanned
void* rt_alloc_atomic_uninit(size_t n);   // never scanned; caller fills every byte
// Usable bytes of a block from rt_alloc* (at least what was asked for): a growing array uses
// the rest of the collector's size class before it reallocates.
size_t rt_alloc_usable(void* p, size_t asked);

void rt_gc_report();   // NEVE_GC_STATS=1: "gc collections: N" on stderr

// A thread the collector knows about (GC_pthread_create): its stack and registers are roots.
int rt_thread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
// Early release of a block from rt_alloc that nothing refers to any more: a no-op with the
// collector, free() in the malloc build.
void rt_release(void* p);
