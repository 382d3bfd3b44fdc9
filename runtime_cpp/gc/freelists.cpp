// Per-thread free lists of small scanned objects, popped inline by compiled code (`new C(...)`)
// and by rt_alloc (gc/alloc.cpp) for the runtime's own small blocks.
//
// nv_gc_fl points at this thread's array of GC_TINY_FREELISTS list heads, one per size in
// granules (16 bytes); an object's first word links to the next. Compiled code pops the head
// of list g (and overwrites the link word); an empty list calls nv_gc_alloc_slow (a thread
// starts on a shared array of empty lists, so its first allocation gets it an array), which
// refills the list with GC_generic_malloc_many (gc_inline.h's protocol). The arrays are uncollectable blocks, so the collector sees the heads, and the
// links are ordinary scanned words: listed objects stay alive until popped. At thread exit
// the array is emptied and kept for the next thread, so no collector call runs there.
#include <gc.h>
#include <gc/gc_inline.h>
#include <pthread.h>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"

namespace {
void* g_none[GC_TINY_FREELISTS];   // never written: every list empty
}

extern "C" {
__thread void** nv_gc_fl __attribute__((tls_model("initial-exec"))) = g_none;
}

namespace {

pthread_mutex_t g_spare_lock = PTHREAD_MUTEX_INITIALIZER;
void** g_spare = nullptr;          // emptied arrays of exited threads, linked through slot 0
pthread_key_t g_exit_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

void give_back(void* arr) {
    void** fl = (void**)arr;
    memset(fl, 0, GC_TINY_FREELISTS * sizeof(void*));   // its objects become garbage
    pthread_mutex_lock(&g_spare_lock);
    fl[0] = (void*)g_spare;
    g_spare = fl;
    pthread_mutex_unlock(&g_spare_lock);
    nv_gc_fl = g_none;
}

void make_key() { pthread_key_create(&g_exit_key, give_back); }

void** thread_array() {
    pthread_once(&g_key_once, make_key);
    pthread_mutex_lock(&g_spare_lock);
    void** fl = g_spare;
    if (fl) {
        g_spare = (void**)fl[0];
        fl[0] = nullptr;
    }
    pthread_mutex_unlock(&g_spare_lock);
    if (!fl) fl = (void**)GC_MALLOC_UNCOLLECTABLE(GC_TINY_FREELISTS * sizeof(void*));
    if (!fl) rt_panic("out of memory");
    pthread_setspecific(g_exit_key, fl);
    nv_gc_fl = fl;
    return fl;
}

}  // namespace

extern "C" void* nv_gc_alloc_slow(int64_t granules) {
    if (granules <= 0 || granules >= GC_TINY_FREELISTS) rt_panic("out of memory");
    void** fl = nv_gc_fl == g_none ? thread_array() : nv_gc_fl;
    void** head = fl + granules;
    if (!*head) GC_generic_malloc_many((size_t)granules * GC_GRANULE_BYTES, GC_I_NORMAL, head);
    void* p = *head;
    if (!p) rt_panic("out of memory");
    *head = *(void**)p;
    *(void**)p = nullptr;   // the rest of a listed object is already clear
    return p;
}
