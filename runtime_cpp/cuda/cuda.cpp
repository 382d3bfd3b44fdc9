// CUDA glue (LANGUAGE.md 12.4, 14.8): device memory, copies and kernel launches through the
// CUDA driver API, loaded with dlopen at run time so that a compiled program has no link-time
// CUDA dependency and runs unchanged (on the CPU back end) where libcuda.so.1 is missing.
//
// Sources: CUDA Driver API reference (cuda.h, CUDA 13.0): cuInit, cuDevicePrimaryCtxRetain,
// cuModuleLoadDataEx, cuLaunchKernel, cuMemAlloc_v2, cuMemsetD8_v2, cuMemcpyAsync; "API
// synchronization behavior" for why memsets and copies are ordered as below.
//
// Symbols are looked up with their versioned names (cuMemAlloc_v2, ...): cuda.h maps the plain
// names to them with macros, and dlsym of a plain name may give the legacy 32-bit entry.
#include <dlfcn.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cinttypes>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>
#include "neve_rt.h"
#include "error/panic.h"
#include "cuda/driver.h"

namespace {

// The few driver types and constants used here (values from cuda.h, CUDA 13.0).
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct CUevent_st* CUevent;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_INFO_LOG_BUFFER = 3, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
              CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int64_t kDefaultSmem = 48 * 1024;   // above this a kernel must opt in (attribute 8)

struct Driver {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int*);
    CUresult (*DeviceGet)(CUdevice*, int);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*StreamCreate)(CUstream*, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*ModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
    CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**);
    CUresult (*MemAlloc)(CUdeviceptr*, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*MemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*EventCreate)(CUevent*, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float*, CUevent, CUevent);
    CUresult (*MemHostRegister)(void*, size_t, unsigned);
    CUresult (*MemHostUnregister)(void*);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*GetErrorName)(CUresult, const char**);
    CUresult (*GetErrorString)(CUresult, const char**);
};

Driver g_cu;
bool g_active = false;
CUcontext g_ctx = nullptr;
bool g_sync_each = false;            // NEVE_CUDA_SYNC=1: wait after each launch (exact blame)
std::once_flag g_once;
// Present only in the fake driver of the tests (tests/kernels/c/fake_cuda.c), which runs each
// kernel through its CPU-back-end twin, registered here by entry name.
void (*g_register_twin)(const char* entry, void* cpu) = nullptr;

bool load_symbols(void* lib) {
    struct Entry { void** slot; const char* name; };
    const Entry entries[] = {
        {(void**)&g_cu.Init, "cuInit"},
        {(void**)&g_cu.DeviceGetCount, "cuDeviceGetCount"},
        {(void**)&g_cu.DeviceGet, "cuDeviceGet"},
        {(void**)&g_cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
        {(void**)&g_cu.CtxSetCurrent, "cuCtxSetCurrent"},
        {(void**)&g_cu.StreamCreate, "cuStreamCreate"},
        {(void**)&g_cu.StreamDestroy, "cuStreamDestroy_v2"},
        {(void**)&g_cu.StreamSynchronize, "cuStreamSynchronize"},
        {(void**)&g_cu.ModuleLoadDataEx, "cuModuleLoadDataEx"},
        {(void**)&g_cu.ModuleGetFunction, "cuModuleGetFunction"},
        {(void**)&g_cu.FuncSetAttribute, "cuFuncSetAttribute"},
        {(void**)&g_cu.LaunchKernel, "cuLaunchKernel"},
        {(void**)&g_cu.MemAlloc, "cuMemAlloc_v2"},
        {(void**)&g_cu.MemFree, "cuMemFree_v2"},
        {(void**)&g_cu.MemsetD8Async, "cuMemsetD8Async"},
        {(void**)&g_cu.MemcpyAsync, "cuMemcpyAsync"},
        {(void**)&g_cu.EventCreate, "cuEventCreate"},
        {(void**)&g_cu.EventRecord, "cuEventRecord"},
        {(void**)&g_cu.EventSynchronize, "cuEventSynchronize"},
        {(void**)&g_cu.EventElapsedTime, "cuEventElapsedTime_v2"},
        {(void**)&g_cu.MemHostRegister, "cuMemHostRegister_v2"},
        {(void**)&g_cu.MemHostUnregister, "cuMemHostUnregister"},
        {(void**)&g_cu.EventDestroy, "cuEventDestroy_v2"},
        {(void**)&g_cu.GetErrorName, "cuGetErrorName"},
        {(void**)&g_cu.GetErrorString, "cuGetErrorString"},
    };
    for (const Entry& e : entries) {
        *e.slot = dlsym(lib, e.name);
        if (!*e.slot) return false;
    }
    return true;
}

// Device ordinal from NEVE_DEVICE: -1 for "cpu", N for "cuda:N" / "gpu:N", else 0.
int wanted_device() {
    const char* d = getenv("NEVE_DEVICE");
    if (!d || !*d) return 0;
    if (strcmp(d, "cpu") == 0) return -1;
    const char* colon = strchr(d, ':');
    return colon ? atoi(colon + 1) : 0;
}

void init_once() {
    int ordinal = wanted_device();
    if (ordinal < 0) return;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib || !load_symbols(lib)) return;
    g_register_twin = (void (*)(const char*, void*))dlsym(lib, "fake_cuda_register_twin");
    int count = 0;
    CUdevice dev = 0;
    if (g_cu.Init(0) != CUDA_SUCCESS || g_cu.DeviceGetCount(&count) != CUDA_SUCCESS ||
        ordinal >= count || g_cu.DeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
        g_cu.DevicePrimaryCtxRetain(&g_ctx, dev) != CUDA_SUCCESS)
        return;
    const char* s = getenv("NEVE_CUDA_SYNC");
    g_sync_each = s && *s && strcmp(s, "0") != 0;
    g_active = true;
}

std::string describe(CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (g_cu.GetErrorName) g_cu.GetErrorName(r, &name);
    if (g_cu.GetErrorString) g_cu.GetErrorString(r, &text);
    std::string s = name ? name : "CUDA error " + std::to_string(r);
    if (text) s += std::string(" (") + text + ")";
    return s;
}

// Per Neve thread: the primary context made current, one non-blocking stream (it does not
// wait for the legacy default stream, so threads do not serialize each other), and the last
// launch, named when an asynchronous fault surfaces at the next synchronization.
struct ThreadState {
    CUstream stream = nullptr;
    const char* last_kernel = nullptr;
    const char* last_site = nullptr;
    ~ThreadState() {
        // The main thread's destructor runs inside exit(), possibly after the driver's own
        // teardown: leave its stream to the process end.
        if (stream && syscall(SYS_gettid) != getpid()) g_cu.StreamDestroy(stream);
    }
};
thread_local ThreadState t_cu;

[[noreturn]] void fail(CUresult r, const char* what) {
    std::string m = what;
    m += ": " + describe(r);
    rt_die(m.data(), m.size(), false);
}

// The error of a synchronization: blame the thread's last launch (faults are sticky and
// reported late; NEVE_CUDA_SYNC=1 reports each at its own launch).
[[noreturn]] void fail_async(CUresult r, const char* when) {
    std::string m;
    if (t_cu.last_kernel) {
        m = std::string("GPU error in kernel '") + t_cu.last_kernel + "' (launched at " +
            (t_cu.last_site ? t_cu.last_site : "?") + ", or an earlier launch of this thread)";
    } else {
        m = "GPU error";
    }
    m += std::string(" ") + when + ": " + describe(r);
    if (t_cu.last_kernel && !g_sync_each) m += "; NEVE_CUDA_SYNC=1 reports faults at their launch";
    rt_die(m.data(), m.size(), false);
}

CUstream thread_stream() {
    if (!t_cu.stream) {
        CUresult r = g_cu.CtxSetCurrent(g_ctx);
        if (r != CUDA_SUCCESS) fail(r, "cannot make the CUDA context current");
        r = g_cu.StreamCreate(&t_cu.stream, CU_STREAM_NON_BLOCKING);
        if (r != CUDA_SUCCESS) fail(r, "cannot create a CUDA stream");
    }
    return t_cu.stream;
}

// Explicit streams (gpu_stream(), docs/phase2.md) with launches nothing has waited for yet:
// copies, gpu_sync() and the allocator's reuse of freed memory wait for them first, so the
// implicit waits of 12.3 and 14.8 hold for launches on any stream.
std::mutex g_pending_mu;
std::vector<CUstream> g_pending;

void note_pending(CUstream s) {
    std::lock_guard<std::mutex> lock(g_pending_mu);
    for (CUstream p : g_pending)
        if (p == s) return;
    g_pending.push_back(s);
}

void drain_pending() {
    std::vector<CUstream> todo;
    {
        std::lock_guard<std::mutex> lock(g_pending_mu);
        todo.swap(g_pending);
    }
    if (todo.empty()) return;
    CUresult r = g_cu.CtxSetCurrent(g_ctx);       // a finalizer may run on any thread
    for (CUstream s : todo)
        if (r == CUDA_SUCCESS) r = g_cu.StreamSynchronize(s);
    if (r != CUDA_SUCCESS) fail_async(r, "at a synchronization");
}

void need_active(const char* what) {
    if (!nv_cuda_active()) rt_panicf("%s: no CUDA device is in use (internal error)", what);
}

// Modules are cached by a hash of their PTX text (FNV-1a 64, text compared on a hit), functions
// by kernel descriptor: a module's kernels share one PTX string and one cuModuleLoadData.
struct Cache {
    std::mutex mu;
    std::unordered_map<uint64_t, std::vector<std::pair<std::string, CUmodule>>> modules;
    std::unordered_map<const nv_kernel*, CUfunction> functions;
} g_cache;

uint64_t fnv1a(const char* s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

CUmodule load_module(const nv_kernel* k) {   // called with g_cache.mu held
    uint64_t h = fnv1a(k->ptx);
    auto& bucket = g_cache.modules[h];
    for (auto& e : bucket)
        if (e.first == k->ptx) return e.second;
    std::vector<char> err(8192, '\0'), info(8192, '\0');
    int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                  CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {err.data(), (void*)(uintptr_t)(err.size() - 1), info.data(),
                    (void*)(uintptr_t)(info.size() - 1)};
    CUmodule mod = nullptr;
    CUresult r = g_cu.ModuleLoadDataEx(&mod, k->ptx, 4, opts, vals);
    if (r != CUDA_SUCCESS) {
        std::string m = std::string("kernel '") + k->name + "': the CUDA driver rejected its PTX: " +
                        describe(r);
        if (err[0]) m += std::string("\n") + err.data();
        rt_die(m.data(), m.size(), false);
    }
    bucket.emplace_back(k->ptx, mod);
    return mod;
}

CUfunction kernel_function(const nv_kernel* k) {
    std::lock_guard<std::mutex> lock(g_cache.mu);
    auto it = g_cache.functions.find(k);
    if (it != g_cache.functions.end()) return it->second;
    CUmodule mod = load_module(k);
    CUfunction f = nullptr;
    CUresult r = g_cu.ModuleGetFunction(&f, mod, k->entry);
    if (r != CUDA_SUCCESS) {
        std::string m = std::string("kernel '") + k->name + "': no entry '" + k->entry +
                        "' in its PTX: " + describe(r);
        rt_die(m.data(), m.size(), false);
    }
    if (g_register_twin && k->cpu) g_register_twin(k->entry, (void*)k->cpu);
    g_cache.functions.emplace(k, f);
    return f;
}

}  // namespace

// The raw driver calls behind the caching allocator (alloc.cpp; driver.h).
namespace nvcuda {

Stream current_stream() { return (Stream)thread_stream(); }

int raw_alloc(void** p, size_t bytes) {
    CUdeviceptr d = 0;
    CUresult r = g_cu.MemAlloc(&d, bytes);
    *p = (void*)(uintptr_t)d;
    return r;
}

void raw_free(void* p) {
    CUresult r = g_cu.MemFree((CUdeviceptr)(uintptr_t)p);
    if (r != CUDA_SUCCESS) fail_async(r, "while freeing GPU memory");
}

void zero_async(void* p, size_t bytes, Stream s) {
    CUresult r = g_cu.MemsetD8Async((CUdeviceptr)(uintptr_t)p, 0, bytes, (CUstream)s);
    if (r == CUDA_SUCCESS) r = g_cu.StreamSynchronize((CUstream)s);
    if (r != CUDA_SUCCESS) fail_async(r, "while zeroing new GPU memory");
}

std::string error_text(int r) { return describe(r); }

int host_register(void* p, size_t bytes) {
    thread_stream();   // the context current on this thread
    return g_cu.MemHostRegister(p, bytes, 0);
}

void host_unregister(void* p) { g_cu.MemHostUnregister(p); }

void copy_async(void* dst, const void* src, size_t bytes) {
    CUresult r = g_cu.MemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes,
                                  thread_stream());
    if (r != CUDA_SUCCESS) fail_async(r, "at an asynchronous copy");
}

void* event_now() { return nv_cuda_event_record(); }

void event_wait_destroy(void* e) {
    thread_stream();
    CUresult r = g_cu.EventSynchronize((CUevent)e);
    g_cu.EventDestroy((CUevent)e);
    if (r != CUDA_SUCCESS) fail_async(r, "while waiting for an asynchronous copy");
}

void wait_explicit_streams() { drain_pending(); }

}  // namespace nvcuda

extern "C" {

bool nv_cuda_active(void) {
    std::call_once(g_once, init_once);
    return g_active;
}

void nv_cuda_copy(void* dst, const void* src, int64_t bytes) {
    need_active("copy");
    if (bytes <= 0) return;
    drain_pending();
    CUstream s = thread_stream();
    // On the thread's stream: ordered after its launches; then wait for the copy.
    CUresult r = g_cu.MemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                  (size_t)bytes, s);
    if (r == CUDA_SUCCESS) r = g_cu.StreamSynchronize(s);
    if (r != CUDA_SUCCESS) fail_async(r, "at a copy between host and device");
}

void nv_cuda_launch(const nv_kernel* k, void** args, const int64_t grid[3],
                    const int64_t block[3], int64_t smem, const char* site) {
    nv_cuda_launch_on(k, args, grid, block, smem, nullptr, site);
}

void* nv_cuda_stream_new(void) {
    need_active("stream");
    CUresult r = g_cu.CtxSetCurrent(g_ctx);
    CUstream s = nullptr;
    if (r == CUDA_SUCCESS) r = g_cu.StreamCreate(&s, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) fail(r, "cannot create a CUDA stream");
    return s;
}

void nv_cuda_stream_sync(void* stream) {
    need_active("gpu_sync");
    CUresult r = g_cu.CtxSetCurrent(g_ctx);
    if (r == CUDA_SUCCESS) r = g_cu.StreamSynchronize((CUstream)stream);
    if (r != CUDA_SUCCESS) fail_async(r, "at a synchronization of a gpu_stream");
}

// `stream` null: the calling thread's own stream.
void nv_cuda_launch_on(const nv_kernel* k, void** args, const int64_t grid[3],
                       const int64_t block[3], int64_t smem, void* stream, const char* site) {
    need_active("launch");
    site = rt_shown_path(site);
    const char* at = site ? site : "?";
    if (!k->ptx || !*k->ptx)   // the compiler leaves "" and the reason in entry (neve_rt.h)
        rt_panicf("kernel '%s' has no GPU code (%s); NEVE_DEVICE=cpu runs it on the CPU",
                  k->name, k->entry && *k->entry ? k->entry : "its PTX was not generated");
    int64_t threads = 1;
    for (int d = 0; d < 3; d++) {
        if (block[d] < 1 || block[d] > 1024)
            rt_panicf("launch of kernel '%s': block dimension %" PRId64 " outside 1..1024",
                      k->name, block[d]);
        threads *= block[d];
        if (grid[d] < 0)
            rt_panicf("launch of kernel '%s': negative grid dimension %" PRId64, k->name, grid[d]);
    }
    if (threads > 1024)
        rt_panicf("launch of kernel '%s': a block of %" PRId64 " threads (at most 1024)",
                  k->name, threads);
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return;
    if (grid[0] > 0x7fffffff || grid[1] > 65535 || grid[2] > 65535)
        rt_panicf("launch of kernel '%s': grid [%" PRId64 ", %" PRId64 ", %" PRId64
                  "] exceeds the device limits [2147483647, 65535, 65535]",
                  k->name, grid[0], grid[1], grid[2]);
    if (smem < 0 || smem > 0x7fffffff)
        rt_panicf("launch of kernel '%s': shared memory size %" PRId64 " bytes", k->name, smem);
    CUstream s = thread_stream();              // also makes the context current
    if (stream) s = (CUstream)stream;
    CUfunction f = kernel_function(k);
    std::string what = std::string("launch of kernel '") + k->name + "' at " + at + " failed";
    if (smem > kDefaultSmem) {
        CUresult r = g_cu.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           (int)smem);
        if (r != CUDA_SUCCESS) fail(r, (what + " (" + std::to_string(smem) +
                                        " bytes of shared memory)").c_str());
    }
    CUresult r = g_cu.LaunchKernel(f, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                                   (unsigned)block[0], (unsigned)block[1], (unsigned)block[2],
                                   (unsigned)smem, s, args, nullptr);
    if (r != CUDA_SUCCESS) fail(r, what.c_str());
    if (stream) note_pending(s);
    t_cu.last_kernel = k->name;
    t_cu.last_site = site;
    if (g_sync_each) nv_cuda_sync();
}

void* nv_cuda_event_record(void) {
    need_active("event");
    CUevent e = nullptr;
    CUresult r = g_cu.EventCreate(&e, 0);
    if (r == CUDA_SUCCESS) r = g_cu.EventRecord(e, thread_stream());
    if (r != CUDA_SUCCESS) fail_async(r, "at an event record");
    return e;
}

double nv_cuda_event_elapsed_ms(void* start, void* end) {
    need_active("event");
    float ms = 0;
    CUresult r = g_cu.EventSynchronize((CUevent)end);
    if (r == CUDA_SUCCESS) r = g_cu.EventElapsedTime(&ms, (CUevent)start, (CUevent)end);
    if (r != CUDA_SUCCESS) fail_async(r, "at an event synchronization");
    return ms;
}

void* nv_cuda_stream(void) {
    need_active("stream");
    return thread_stream();
}

void nv_cuda_sync(void) {
    if (!nv_cuda_active()) return;
    drain_pending();
    if (!t_cu.stream) return;
    CUresult r = g_cu.StreamSynchronize(t_cu.stream);
    if (r != CUDA_SUCCESS) fail_async(r, "at a synchronization");
}

}  // extern "C"
