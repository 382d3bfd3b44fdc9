// Foreign calls (LANGUAGE.md 11): C strings in and out, wrappers of C pointers (opaque types),
// the dynamic type "foreign pointer" of a void* in an any, and the finalizer thread that
// releases owned pointers.
//
// A foreign value is a small collected NvForeign holding the C address; NULL is never wrapped
// (a NULL pointer is nil), so wrappers of one pointer are equal by address and no table of live
// wrappers is kept. An owned pointer's wrapper has a bdwgc finalizer calling its T_destroy.
// Finalizers run on demand only (GC_set_finalize_on_demand), on one runtime thread woken by the
// collector's notifier: never inside an allocation of a Neve thread holding a lock (11.2).
#include <gc.h>
#include <pthread.h>
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "gc/alloc.h"

extern "C" const NvType nv_type_cptr = {NV_FOREIGN, 8, 0, 0, nullptr, nullptr, "foreign pointer",
                                        nullptr};

namespace {

pthread_mutex_t fin_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t fin_cv = PTHREAD_COND_INITIALIZER;
bool fin_pending = false;
pthread_once_t fin_once = PTHREAD_ONCE_INIT;

void notify_finalizers() {
    pthread_mutex_lock(&fin_mu);
    fin_pending = true;
    pthread_cond_signal(&fin_cv);
    pthread_mutex_unlock(&fin_mu);
}

void* finalizer_thread(void*) {
    for (;;) {
        pthread_mutex_lock(&fin_mu);
        while (!fin_pending) pthread_cond_wait(&fin_cv, &fin_mu);
        fin_pending = false;
        pthread_mutex_unlock(&fin_mu);
        while (GC_should_invoke_finalizers()) GC_invoke_finalizers();
    }
    return nullptr;
}

void start_finalizer_thread() {
    GC_set_finalize_on_demand(1);
    GC_set_finalizer_notifier(notify_finalizers);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    rt_thread_create(&th, &attr, finalizer_thread, nullptr);
    pthread_attr_destroy(&attr);
}

void release(void* obj, void*) {
    NvForeign* w = (NvForeign*)obj;
    void* addr = w->addr;
    w->addr = nullptr;                     // at most once, whatever happens next
    if (addr && w->destroy) w->destroy(addr);
}

}  // namespace

extern "C" NvForeign* nv_foreign_wrap(void* addr, void (*destroy)(void*)) {
    if (!addr) return nullptr;
    NvForeign* w = (NvForeign*)rt_alloc_atomic(sizeof(NvForeign));   // holds no Neve pointers
    w->addr = addr;
    w->destroy = destroy;
    if (destroy) {
        pthread_once(&fin_once, start_finalizer_thread);
        GC_REGISTER_FINALIZER_NO_ORDER(w, release, nullptr, nullptr, nullptr);
    }
    return w;
}

// `new mod.S()` of a C struct: wrapper and zero-filled struct in one scanned block, so the
// struct lives as long as its wrapper and keeps alive the Neve buffers stored in its fields.
extern "C" NvForeign* nv_cstruct_new(int64_t size) {
    const size_t head = (sizeof(NvForeign) + 15) & ~(size_t)15;
    NvForeign* w = (NvForeign*)rt_alloc(head + (size_t)(size > 0 ? size : 1));
    w->addr = (char*)w + head;
    w->destroy = nullptr;
    return w;
}

extern "C" char* nv_str_cstr(const NvStr* s) {
    int64_t n = s ? s->len : 0;
    char* p = (char*)rt_alloc_atomic_uninit((size_t)n + 1);
    if (n) memcpy(p, s->data, (size_t)n);
    p[n] = '\0';
    return p;
}

extern "C" NvStr* nv_str_from_cstr(const char* p) {
    if (!p) return nullptr;
    return nv_str_new(p, (int64_t)strlen(p));
}

extern "C" void* nv_any_to_c(const void* value, const NvType* held) {
    if (value && held && held->kind == NV_FOREIGN_REF) return ((const NvForeign*)value)->addr;
    // an array passed as void* passes its elements, as for T* (11.3); the caller's any keeps
    // the array alive for the call
    if (value && held && held->kind == NV_ARRAY) return ((const NvArray*)value)->data;
    return (void*)value;
}

extern "C" NvForeign* nv_any_to_foreign(const void* value, const NvType* held) {
    if (!value || (held && held->kind == NV_FOREIGN_REF)) return (NvForeign*)value;
    return nv_foreign_wrap((void*)value, nullptr);          // borrowed (11.2)
}

// ---------------------------------------------------------------- threads C created
namespace {
__thread int t_gc_known __attribute__((tls_model("initial-exec")));   // 1: the collector knows us
pthread_key_t g_unregister_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

void unregister_at_exit(void*) { GC_unregister_my_thread(); }
void make_key() { pthread_key_create(&g_unregister_key, unregister_at_exit); }
}  // namespace

extern "C" void nv_foreign_enter(void) {
    if (__builtin_expect(t_gc_known, 1)) return;
    if (!GC_thread_is_registered()) {     // a thread C started: its stack becomes a root
        struct GC_stack_base sb;
        if (GC_get_stack_base(&sb) != GC_SUCCESS) abort();   // no stack: nothing safe to do
        GC_register_my_thread(&sb);
        pthread_once(&g_key_once, make_key);
        pthread_setspecific(g_unregister_key, (void*)1);
        nv_tid = -1;                       // no Neve tid: outside 9.6's accounting
    }
    t_gc_known = 1;
}
