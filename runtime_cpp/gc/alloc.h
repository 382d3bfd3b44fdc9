// Internal allocation helpers over bdwgc; every runtime allocation goes through here so that
// exhaustion is always the runtime error "out of memory" rather than a NULL dereference.
#pragma once
#include <cstddef>

void rt_gc_init();
void* rt_alloc(size_t n);                 // zeroed, scanned for pointers
void* rt_alloc_atomic(size_t n);          // zeroed, never scanned
void* rt_alloc_atomic_uninit(size_t n);   // never scanned; caller fills every byte

void rt_gc_report();   // NEVE_GC_STATS=1: "gc collections: N" on stderr
