/* cuda_glue.c: drives the CUDA glue (nv_cuda_*) as compiled Neve code would. argv[1] picks a
 * scenario; run against tests/kernels/c/fake_cuda.c (LD_LIBRARY_PATH) or the real driver. */
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <gc.h>
#include "neve_rt.h"

static const char PTX[] = "// fake module\n.entry add_one\n";
static const char BAD_PTX[] = "BAD";
static NvFuncInfo fn_main = {"main", "glue.nv"};

static void launch(const char* name, const char* ptx, const char* entry, void* y, int64_t n,
                   int64_t g, int64_t b, int64_t smem) {
    static nv_kernel ks[8];
    static int nk;
    nv_kernel* k = &ks[nk++];
    k->name = name; k->cpu = 0; k->ptx = ptx; k->entry = entry;
    void* args[] = {&y, &n};
    int64_t grid[3] = {g, 1, 1}, block[3] = {b, 1, 1};
    nv_cuda_launch(k, args, grid, block, smem, "glue.nv:7:5");
}

static void launch_on(void* stream, void* y, int64_t n) {
    static nv_kernel k = {"add_one", 0, PTX, "add_one"};
    void* args[] = {&y, &n};
    int64_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    nv_cuda_launch_on(&k, args, grid, block, 0, stream, "glue.nv:7:5");
}

static void* other_thread(void* p) {
    (void)p;
    float* d = nv_cuda_alloc(4);
    nv_cuda_free(d);
    return 0;
}

int main(int argc, char** argv) {
    NvFrame f = {0, &fn_main, (7LL << 32) | 5};
    nv_top_frame = &f;
    const char* what = argc > 1 ? argv[1] : "active";
    if (!strcmp(what, "active")) { printf("%d\n", nv_cuda_active()); return 0; }
    if (!nv_cuda_active()) { printf("inactive\n"); return 0; }
    if (!strcmp(what, "roundtrip")) {
        float host[4] = {1, 2, 3, 4}, back[4] = {0};
        float* d = nv_cuda_alloc(sizeof host);
        nv_cuda_copy(back, d, sizeof back);
        printf("zeroed %g %g\n", back[0], back[3]);
        nv_cuda_copy(d, host, sizeof host);
        launch("add_one", PTX, "add_one", d, 4, 1, 32, 0);
        launch("add_one", PTX, "add_one", d, 4, 1, 32, 0);   /* cached: one module load */
        nv_cuda_sync();
        nv_cuda_copy(back, d, sizeof back);
        printf("%g %g %g %g\n", back[0], back[1], back[2], back[3]);
        nv_cuda_free(d);
        pthread_t t;
        pthread_create(&t, 0, other_thread, 0);
        pthread_join(t, 0);
        launch("add_one", PTX, "add_one", 0, 0, 0, 32, 0);       /* zero grid: nothing */
        launch("big", PTX, "add_one", 0, 0, 1, 32, 64 * 1024); /* opts in to 64 KiB */
        nv_cuda_empty_cache();                                  /* the cached blocks go back */
        return 0;
    }
    if (!strcmp(what, "cache")) {   /* the caching allocator: size classes, reuse, zeroing */
        float one = 1;
        float* a = nv_cuda_alloc(100);
        nv_cuda_copy(a, &one, 4);
        printf("%lld %lld\n", (long long)nv_cuda_memory_allocated(), (long long)nv_cuda_memory_reserved());
        nv_cuda_free(a);
        printf("%lld %lld\n", (long long)nv_cuda_memory_allocated(), (long long)nv_cuda_memory_reserved());
        float* b = nv_cuda_alloc(300);                          /* same class: a's block */
        float back = -1;
        nv_cuda_copy(&back, b, 4);
        printf("%d %g\n", a == b, back);
        float* c = nv_cuda_alloc(3 << 20);                      /* large: 2 MiB rounding */
        printf("%lld %lld\n", (long long)nv_cuda_memory_allocated(), (long long)nv_cuda_max_memory_allocated());
        nv_cuda_free(b);
        nv_cuda_free(c);
        nv_cuda_empty_cache();
        printf("%lld %lld\n", (long long)nv_cuda_memory_allocated(), (long long)nv_cuda_memory_reserved());
        return 0;
    }
    if (!strcmp(what, "pressure")) {   /* device bytes the collector cannot see trigger it */
        GC_word before = GC_get_gc_no();
        for (int i = 0; i < 20; i++) nv_cuda_free(nv_cuda_alloc(2 << 20));   /* 40 MiB in all */
        GC_word reused = GC_get_gc_no();
        for (int i = 0; i < 20; i++) nv_cuda_alloc(2 << 20);                 /* 80 MiB in all */
        printf("%d %d\n", reused == before, GC_get_gc_no() > reused);
        return 0;
    }
    if (!strcmp(what, "streams")) {   /* gpu_stream(): launches on it, waits for it */
        float host[2] = {1, 2}, back[2];
        float* d = nv_cuda_alloc(sizeof host);
        nv_cuda_copy(d, host, sizeof host);          /* the thread's stream: stream 1 */
        void* s = nv_cuda_stream_new();              /* stream 2 */
        launch_on(s, d, 2);
        launch_on(s, d, 2);
        nv_cuda_stream_sync(s);
        launch_on(s, d, 2);
        nv_cuda_copy(back, d, sizeof back);          /* waits for stream 2 first */
        printf("%g %g\n", back[0], back[1]);
        return 0;
    }
    if (!strcmp(what, "events")) {
        void* e0 = nv_cuda_event_record();
        void* e1 = nv_cuda_event_record();
        printf("%.1f\n", nv_cuda_event_elapsed_ms(e0, e1));
        return 0;
    }
    if (!strcmp(what, "fault")) {
        launch("fault", PTX, "fault", 0, 0, 1, 32, 0);
        nv_cuda_sync();
        return 0;
    }
    if (!strcmp(what, "badptx")) launch("broken", BAD_PTX, "broken", 0, 0, 1, 1, 0);
    if (!strcmp(what, "noptx")) launch("nogpu", "", "libdevice not found", 0, 0, 1, 1, 0);
    if (!strcmp(what, "block")) launch("wide", PTX, "add_one", 0, 0, 1, 2048, 0);
    if (!strcmp(what, "resources")) launch("heavy", PTX, "toolarge", 0, 0, 1, 1024, 0);
    if (!strcmp(what, "noentry")) launch("lost", PTX, "missing", 0, 0, 1, 1, 0);
    if (!strcmp(what, "oom")) nv_cuda_alloc((int64_t)1 << 50);
    return 0;
}
