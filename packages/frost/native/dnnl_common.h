// oneDNN state shared by Frost's native image ops (dnnl_ops.cpp, dnnl_layout.cpp): the CPU engine,
// each thread's stream, per-thread scratch by argument role, the primitive cache, and the registry
// of blocked layouts a Tensor's storage may be kept in (frost_layout.h).
#pragma once
#include <dnnl.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace frost_dnnl {

dnnl::engine& eng();
dnnl::stream& strm();
[[noreturn]] void fail(const char* what, const dnnl::error& e);
// The calling thread's scratch for role slot (0 source side, 1 weights side, 2 destination side),
// at least bytes long.
void* scratch(int slot, size_t bytes);

std::mutex& cache_mu();
std::unordered_map<std::string, std::shared_ptr<void>>& cache_map();

// The cached object of type T under key, made by make() the first time.
template <class T, class F>
std::shared_ptr<T> cached(const std::string& key, F make) {
    std::lock_guard<std::mutex> g(cache_mu());
    auto& cache = cache_map();
    auto it = cache.find(key);
    if (it != cache.end()) return std::static_pointer_cast<T>(it->second);
    std::shared_ptr<T> v = make();
    cache[key] = v;
    return v;
}

// Layout handles: 0 is plain row-major (NCHW); a positive handle names a registered blocked
// descriptor. tensor_layout(d) is d's handle when a Tensor may keep d (4-d nChw8c / nChw16c
// with the channels a multiple of the block, so the storage is exactly numel floats), else 0.
// FROST_BLOCKED=0 turns blocked tensors off (every handle 0: all image ops plain, as before).
int64_t tensor_layout(const dnnl::memory::desc& d);
bool layouts_on();
const dnnl::memory::desc& layout_desc(int64_t h);
// The channel block of a registered layout (8 or 16).
int layout_block(int64_t h);
// The plain NCHW descriptor of the same dims as d.
dnnl::memory::desc plain_like(const dnnl::memory::desc& d);

// p (in layout h: 0 plain, dims of want) as memory in descriptor want: p itself when the
// layouts agree, else a reorder into the calling thread's scratch slot (profiled as what).
dnnl::memory as_desc(const dnnl::memory::desc& want, int64_t h, const void* p, int slot,
                     const char* what);

}  // namespace frost_dnnl

namespace frost_blocked {

// Batch normalization (frost.h's frost__c_batch_norm_*) on nChw<block>c storage: the same
// statistics per channel (float runs added in double), the lanes of one channel block at once.
void bn_forward(int block, int32_t training, const float* x, float* y, const float* scale,
                const float* shift, float* mean, float* var, int64_t n, int64_t c, int64_t h,
                int64_t wd, float eps, int32_t relu);
void bn_backward(int block, const float* x, const float* dy, const float* scale,
                 const float* mean, const float* var, float* dx, float* dscale, float* dshift,
                 int64_t n, int64_t c, int64_t h, int64_t wd, float eps, const float* y);

}  // namespace frost_blocked
