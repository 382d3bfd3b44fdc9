// Pinned host memory (issue 19), for batches that a DataLoader fills on the host and a training
// step copies to the device: collected memory registered with the driver (cuMemHostRegister),
// so that a copy from it is a DMA that need not be waited for (cuMemcpyAsync), unregistered by a
// collector finalizer when it is reclaimed. Blocks are whole pages of their own (a page may be
// registered once): large objects of the collector, which start a heap block. Each block remembers the event after its
// last asynchronous copy, which a writer waits for before refilling it (nv_cuda_pinned_wait).
#include <gc.h>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include "neve_rt.h"
#include "error/panic.h"
#include "cuda/driver.h"

namespace {

struct Pinned { size_t size; void* event; };

struct {
    std::mutex mu;
    std::map<uintptr_t, Pinned> blocks;   // by address, for interior pointers
} g_pinned;

constexpr size_t kPage = 4096;

// The block holding p, or end(); with g_pinned.mu held.
std::map<uintptr_t, Pinned>::iterator find_block(const void* p) {
    auto it = g_pinned.blocks.upper_bound((uintptr_t)p);
    if (it == g_pinned.blocks.begin()) return g_pinned.blocks.end();
    --it;
    return (uintptr_t)p < it->first + it->second.size ? it : g_pinned.blocks.end();
}

void unpin(void* obj, void*) {
    void* event = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_pinned.mu);
        auto it = g_pinned.blocks.find((uintptr_t)obj);
        if (it == g_pinned.blocks.end()) return;
        event = it->second.event;
        g_pinned.blocks.erase(it);
    }
    if (event) nvcuda::event_wait_destroy(event);   // no DMA may still read it
    nvcuda::host_unregister(obj);
}

}  // namespace

extern "C" {

void* nv_cuda_pinned_alloc(int64_t bytes) {
    if (bytes <= 0) return nullptr;
    size_t size = ((size_t)bytes + kPage - 1) / kPage * kPage;
    void* p = GC_malloc_atomic(size);   // a large object: it starts a heap block of its own
    if (!p) rt_panicf("cannot allocate %lld bytes of pinned host memory", (long long)bytes);
    memset(p, 0, size);
    if (!nv_cuda_active() || (uintptr_t)p % kPage != 0) return p;
    int r = nvcuda::host_register(p, size);
    if (r != 0) return p;   // left pageable: copies from it wait, as from any host memory
    {
        std::lock_guard<std::mutex> lock(g_pinned.mu);
        g_pinned.blocks[(uintptr_t)p] = Pinned{size, nullptr};
    }
    GC_register_finalizer_no_order(p, unpin, nullptr, nullptr, nullptr);
    return p;
}

bool nv_cuda_is_pinned(const void* p) {
    if (!p) return false;
    std::lock_guard<std::mutex> lock(g_pinned.mu);
    return find_block(p) != g_pinned.blocks.end();
}

bool nv_cuda_copy_async(void* dst, const void* src, int64_t bytes) {
    if (!nv_cuda_active() || bytes <= 0) return false;
    void* old = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_pinned.mu);
        auto it = find_block(src);
        if (it == g_pinned.blocks.end()) return false;
        nvcuda::copy_async(dst, src, (size_t)bytes);
        old = it->second.event;
        it->second.event = nvcuda::event_now();
    }
    if (old) nvcuda::event_wait_destroy(old);   // an earlier copy of the same block: done by now
    return true;
}

void nv_cuda_pinned_wait(const void* p) {
    if (!nv_cuda_active()) return;
    void* event = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_pinned.mu);
        auto it = find_block(p);
        if (it == g_pinned.blocks.end()) return;
        event = it->second.event;
        it->second.event = nullptr;
    }
    if (event) nvcuda::event_wait_destroy(event);
}

}  // extern "C"
