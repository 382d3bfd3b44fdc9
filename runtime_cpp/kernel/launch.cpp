// Kernel launches (LANGUAGE.md 12.3, 12.4): checks of the launch configuration, then the GPU
// (CUDA glue, runtime_cpp/cuda/) when one is in use and the kernel has PTX, else the CPU back
// end: a persistent pool of worker threads (created through the collector) and the launching
// thread take blocks from a shared counter, each block running whole on one thread through the
// kernel's `cpu` function (compiler/lower/kernel_cpu.py). One launch runs at a time; a CPU
// launch returns when its blocks are done, which keeps launches in order per Neve thread.
// The launcher waits only for the workers that joined the launch: a worker the scheduler has
// not woken yet (common when the cores are shared) finds the job withdrawn and sleeps on, so a
// launch never waits for a wake-up, and small grids run on the launching thread alone.
#include <pthread.h>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include "neve_rt.h"
#include "error/panic.h"
#include "gc/alloc.h"

namespace {

struct Job {
    const nv_kernel* k;
    void** args;
    int64_t grid[3], block[3], smem;
    int64_t total, chunk;
    std::atomic<int64_t> next{0};
    int active = 0;                      // workers that joined and still run blocks (under g_mu)
};

pthread_mutex_t g_launch = PTHREAD_MUTEX_INITIALIZER;   // one launch at a time
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_work = PTHREAD_COND_INITIALIZER;
pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;
Job* g_job = nullptr;
uint64_t g_gen = 0;
int g_workers = 0;
pthread_once_t g_once = PTHREAD_ONCE_INIT;
constexpr size_t kWorkerStack = size_t(64) << 20;   // per-thread arrays of big blocks
constexpr int64_t kSmallLaunch = 16384;             // threads (blocks x block size)

// Dynamic shared memory of the thread running a block (not zeroed, as on a GPU).
thread_local void* t_smem = nullptr;
thread_local int64_t t_smem_cap = 0;

void* smem_for(int64_t bytes) {
    if (bytes > t_smem_cap) {
        free(t_smem);
        int64_t cap = bytes < 4096 ? 4096 : bytes;
        if (posix_memalign(&t_smem, 64, (size_t)cap) != 0) rt_panic("out of memory");
        t_smem_cap = cap;
    }
    return t_smem;
}

void run_blocks(Job* j) {
    nv_block b;
    memcpy(b.grid, j->grid, sizeof b.grid);
    memcpy(b.block, j->block, sizeof b.block);
    b.smem = smem_for(j->smem > 0 ? j->smem : 64);
    const int64_t gx = j->grid[0], gxy = j->grid[0] * j->grid[1];
    for (;;) {
        int64_t first = j->next.fetch_add(j->chunk, std::memory_order_relaxed);
        if (first >= j->total) return;
        int64_t last = first + j->chunk < j->total ? first + j->chunk : j->total;
        for (int64_t id = first; id < last; id++) {
            b.idx[0] = id % gx;
            b.idx[1] = (id / gx) % j->grid[1];
            b.idx[2] = id / gxy;
            j->k->cpu(j->args, &b);
        }
    }
}

void* worker(void*) {
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&g_mu);
        while (g_gen == seen) pthread_cond_wait(&g_work, &g_mu);
        seen = g_gen;
        Job* j = g_job;                  // nullptr: the launch already ended
        if (j) j->active++;
        pthread_mutex_unlock(&g_mu);
        if (!j) continue;
        run_blocks(j);
        pthread_mutex_lock(&g_mu);
        if (--j->active == 0) pthread_cond_signal(&g_done);
        pthread_mutex_unlock(&g_mu);
    }
    return nullptr;
}

void start_pool() {
    int n = (int)std::thread::hardware_concurrency();
    if (const char* e = getenv("NEVE_KERNEL_THREADS")) n = atoi(e);
    if (n < 1) n = 1;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, kWorkerStack);
    for (int i = 1; i < n; i++) {        // the launching thread is the n-th
        pthread_t th;
        if (rt_thread_create(&th, &attr, worker, nullptr) == 0) g_workers++;
    }
    pthread_attr_destroy(&attr);
}

void run_on_cpu(const nv_kernel* k, void** args, const int64_t grid[3], const int64_t block[3],
                int64_t smem, int64_t total) {
    pthread_once(&g_once, start_pool);
    Job j;
    j.k = k;
    j.args = args;
    memcpy(j.grid, grid, sizeof j.grid);
    memcpy(j.block, block, sizeof j.block);
    j.smem = smem;
    j.total = total;
    int64_t share = total / ((g_workers + 1) * 16);
    j.chunk = share < 1 ? 1 : share;
    // Waking a worker costs microseconds: grids of fewer than kSmallLaunch threads in all run
    // on the launching thread.
    const int64_t threads = block[0] * block[1] * block[2];
    const bool share_out = g_workers > 0 && total > 1 && total * threads >= kSmallLaunch;
    pthread_mutex_lock(&g_launch);
    if (share_out) {
        pthread_mutex_lock(&g_mu);
        g_job = &j;
        g_gen++;
        pthread_cond_broadcast(&g_work);
        pthread_mutex_unlock(&g_mu);
    }
    run_blocks(&j);
    if (share_out) {
        pthread_mutex_lock(&g_mu);
        g_job = nullptr;                 // no worker joins from now on
        while (j.active > 0) pthread_cond_wait(&g_done, &g_mu);
        pthread_mutex_unlock(&g_mu);
    }
    pthread_mutex_unlock(&g_launch);
}

// On the GPU every buffer argument must be device memory (12.3), or pinned host memory, which
// the device can read: other host memory would fault there, late and far from the cause.
void check_device_args(const nv_kernel* k, void** args, const char* params) {
    if (!params) return;
    int i = 0;
    for (const char* p = params;; i++) {
        const char* end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        void* addr = len ? *(void**)args[i] : nullptr;
        if (addr && !nv_cuda_owns(addr) && !nv_cuda_is_pinned(addr))
            rt_panicf("kernel '%s': argument '%.*s' is host memory, but the kernel runs on the GPU "
                      "(pass device memory: device_buffer, to_device, or a tensor on \"cuda\")",
                      k->name, (int)len, p);
        if (!end) break;
        p = end + 1;
    }
}

// A gpu_stream() object (docs/phase2.md): the CUDA stream, made when a GPU is in use.
struct NvStream {
    void* cu;
};

void launch(const nv_kernel* k, void** args, const int64_t grid[3], const int64_t block[3],
            int64_t smem, NvStream* stream, const char* site) {
    for (int i = 0; i < 3; i++)
        if (block[i] < 1)
            rt_panicf("block dimensions %lld x %lld x %lld: each must be at least 1",
                      (long long)block[0], (long long)block[1], (long long)block[2]);
    int64_t threads = 1;
    bool overflow = __builtin_mul_overflow(block[0], block[1], &threads) ||
                    __builtin_mul_overflow(threads, block[2], &threads);
    if (overflow)
        rt_panicf("block of %lld x %lld x %lld threads exceeds 1024", (long long)block[0],
                  (long long)block[1], (long long)block[2]);
    if (threads > 1024) rt_panicf("block of %lld threads exceeds 1024", (long long)threads);
    int64_t total = 1;
    for (int i = 0; i < 3; i++) {
        if (grid[i] < 0) rt_panicf("grid dimension %lld is negative", (long long)grid[i]);
        total *= grid[i];
    }
    if (smem < 0) rt_panicf("negative shared-memory size %lld", (long long)smem);
    const nv_kernel_desc* d = (const nv_kernel_desc*)k;
    if ((d->flags & NV_KERNEL_SHUFFLES) && threads % 32 != 0)
        rt_panicf("kernel %s uses warp-wide operations (shuffles or warp intrinsics): block of %lld threads is not a multiple of 32",
                  k->name, (long long)threads);
    if (total == 0) return;              // a zero grid dimension launches nothing (12.3)
    if (k->ptx && nv_cuda_active()) {
        check_device_args(k, args, d->params);
        if (stream)
            nv_cuda_launch_on(k, args, grid, block, smem, stream->cu, site);
        else
            nv_cuda_launch(k, args, grid, block, smem, site);
        return;
    }
    run_on_cpu(k, args, grid, block, smem, total);   // synchronous: in order on every stream
}

}  // namespace

extern "C" void nv_launch(const nv_kernel* k, void** args, const int64_t grid[3],
                          const int64_t block[3], int64_t smem, const char* site) {
    launch(k, args, grid, block, smem, nullptr, rt_shown_path(site));
}

extern "C" void nv_launch_on(const nv_kernel* k, void** args, const int64_t grid[3],
                             const int64_t block[3], int64_t smem, void* stream,
                             const char* site) {
    if (!stream) rt_panic("launch on a nil gpu_stream");
    launch(k, args, grid, block, smem, (NvStream*)stream, rt_shown_path(site));
}

extern "C" void* nv_gpu_stream(void) {
    NvStream* s = (NvStream*)rt_alloc(sizeof(NvStream));
    s->cu = nv_cuda_active() ? nv_cuda_stream_new() : nullptr;
    return s;
}

extern "C" void nv_gpu_stream_sync(void* stream) {
    if (!stream) rt_panic("gpu_sync of a nil gpu_stream");
    void* cu = ((NvStream*)stream)->cu;
    if (cu) nv_cuda_stream_sync(cu);
}

extern "C" int32_t nv_gpu_available(void) { return nv_cuda_active() ? 1 : 0; }

extern "C" void nv_gpu_sync(void) {
    if (nv_cuda_active()) nv_cuda_sync();
}
