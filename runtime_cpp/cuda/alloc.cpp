// The caching allocator of device memory (issue 19), after PyTorch's CUDACachingAllocator in
// outline: cuMemAlloc per tensor is far too slow, so freed blocks are kept on free lists per
// (stream, size class) and handed out again to the same stream, whose order makes the reuse
// safe without a synchronization. Sizes round up to 512 bytes below 1 MiB and to 2 MiB above.
// The collector does not see device memory, so it is told indirectly: once the bytes allocated
// since the last collection exceed the live bytes (at least 64 MiB), a collection runs and its
// finalizers return unreachable tensors' blocks here. Out of memory: the cache is emptied, then
// the collector run, before the error.
#include <gc.h>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>
#include "neve_rt.h"
#include "error/panic.h"
#include "cuda/driver.h"

namespace {

struct Block { size_t size; nvcuda::Stream stream; };

struct Pool {
    std::mutex mu;
    std::map<uintptr_t, Block> live;        // by address, for nv_cuda_owns of interior pointers
    std::map<std::pair<nvcuda::Stream, size_t>, std::vector<void*>> cached;
    int64_t allocated = 0, reserved = 0, since_gc = 0, peak = 0;
} g_pool;

constexpr size_t kSmall = 1 << 20, kSmallRound = 512, kLargeRound = 2 << 20;
constexpr int64_t kMinGcBytes = 64ll << 20;

size_t size_class(size_t n) {
    size_t r = n <= kSmall ? kSmallRound : kLargeRound;
    return (n + r - 1) / r * r;
}

// Returns every cached block to the driver (cuMemFree waits for the device's work).
void release_cached() {
    std::vector<void*> drop;
    {
        std::lock_guard<std::mutex> lock(g_pool.mu);
        for (auto& e : g_pool.cached) {
            for (void* p : e.second) drop.push_back(p);
            g_pool.reserved -= (int64_t)(e.first.second * e.second.size());
        }
        g_pool.cached.clear();
    }
    for (void* p : drop) nvcuda::raw_free(p);
}

void collect() {
    GC_gcollect();
    GC_invoke_finalizers();
}

void* take_cached(size_t size, nvcuda::Stream s) {   // with g_pool.mu held
    auto it = g_pool.cached.find({s, size});
    if (it == g_pool.cached.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    return p;
}

void note_live(void* p, size_t size, nvcuda::Stream s) {   // with g_pool.mu held
    g_pool.live[(uintptr_t)p] = Block{size, s};
    g_pool.allocated += (int64_t)size;
    if (g_pool.allocated > g_pool.peak) g_pool.peak = g_pool.allocated;
}

}  // namespace

extern "C" {

void* nv_cuda_alloc(int64_t bytes) {
    if (!nv_cuda_active()) rt_panicf("device_buffer: no CUDA device is in use (internal error)");
    if (bytes <= 0) return nullptr;
    size_t size = size_class((size_t)bytes);
    nvcuda::Stream s = nvcuda::current_stream();
    bool pressure;
    {
        std::lock_guard<std::mutex> lock(g_pool.mu);
        g_pool.since_gc += (int64_t)size;
        pressure = g_pool.since_gc > (g_pool.allocated > kMinGcBytes ? g_pool.allocated : kMinGcBytes);
        if (pressure) g_pool.since_gc = 0;
    }
    if (pressure) collect();   // outside the lock: finalizers call nv_cuda_free
    void* p = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_pool.mu);
        p = take_cached(size, s);
        if (p) note_live(p, size, s);
    }
    if (!p) {
        int r = nvcuda::raw_alloc(&p, size);
        for (int attempt = 0; r != 0 && attempt < 2; attempt++) {
            if (attempt == 1) collect();
            release_cached();
            r = nvcuda::raw_alloc(&p, size);
        }
        if (r != 0) {
            std::string m = "cannot allocate " + std::to_string(bytes) + " bytes of GPU memory: " +
                            nvcuda::error_text(r);
            rt_die(m.data(), m.size(), false);
        }
        std::lock_guard<std::mutex> lock(g_pool.mu);
        g_pool.reserved += (int64_t)size;
        note_live(p, size, s);
    }
    nvcuda::zero_async(p, (size_t)bytes, s);
    return p;
}

// Back to the free list of the stream that allocated it (a finalizer may run on any thread).
void nv_cuda_free(void* p) {
    if (!p || !nv_cuda_active()) return;
    // A kernel on an explicit stream may still use p: it is reused on another stream.
    nvcuda::wait_explicit_streams();
    std::lock_guard<std::mutex> lock(g_pool.mu);
    auto it = g_pool.live.find((uintptr_t)p);
    if (it == g_pool.live.end()) return;   // not ours: never handed out by nv_cuda_alloc
    g_pool.allocated -= (int64_t)it->second.size;
    g_pool.cached[{it->second.stream, it->second.size}].push_back(p);
    g_pool.live.erase(it);
}

bool nv_cuda_owns(const void* p) {
    if (!p || !nv_cuda_active()) return false;
    std::lock_guard<std::mutex> lock(g_pool.mu);
    auto it = g_pool.live.upper_bound((uintptr_t)p);
    if (it == g_pool.live.begin()) return false;
    --it;
    return (uintptr_t)p < it->first + it->second.size;
}

int64_t nv_cuda_memory_allocated(void) {
    std::lock_guard<std::mutex> lock(g_pool.mu);
    return g_pool.allocated;
}

int64_t nv_cuda_memory_reserved(void) {
    std::lock_guard<std::mutex> lock(g_pool.mu);
    return g_pool.reserved;
}

int64_t nv_cuda_max_memory_allocated(void) {
    std::lock_guard<std::mutex> lock(g_pool.mu);
    return g_pool.peak;
}

void nv_cuda_empty_cache(void) {
    if (nv_cuda_active()) release_cached();
}

}  // extern "C"
