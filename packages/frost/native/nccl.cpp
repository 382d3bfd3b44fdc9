// Frost's NCCL glue (include/frost_dist.h, frost__nccl_*): the "nccl" backend of
// frost/distributed. libnccl.so.2 is loaded with dlopen at dist.init("nccl") (NEVE_NCCL_LIB, else
// the nvidia-nccl wheels of the Python environment nsm built with, else the library search path);
// rank 0's ncclUniqueId reaches the others over MPI (distributed.cpp), then ncclCommInitRank.
// Collectives run on device buffers, enqueued on the calling Neve thread's CUDA stream (the one
// Frost's kernels run on), so they are ordered after the kernels that produced the data and
// before those that read it, with no host synchronization.
//
// Types and values from nccl.h (NCCL 2.18+): ncclUniqueId is 128 bytes passed by value,
// ncclFloat32 = 7, ncclSum 0, ncclMax 2, ncclMin 3, ncclAvg 4 (NCCL 2.10+).
#include "frost_dist.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

// The runtime's per-thread stream (runtime_cpp/cuda/driver.h), linked into every Neve program.
namespace nvcuda {
typedef struct Stream_st* Stream;
Stream current_stream();
}  // namespace nvcuda

extern "C" bool nv_cuda_active(void);

namespace {

typedef int Result;
typedef struct Comm_st* Comm;
struct UniqueId {
    char internal[128];
};
constexpr int kFloat32 = 7;

struct Nccl {
    Result (*get_unique_id)(UniqueId*);
    Result (*comm_init_rank)(Comm*, int, UniqueId, int);
    Result (*comm_destroy)(Comm);
    const char* (*error_string)(Result);
    Result (*all_reduce)(const void*, void*, size_t, int, int, Comm, void*);
    Result (*broadcast)(const void*, void*, size_t, int, int, Comm, void*);
    Result (*all_gather)(const void*, void*, size_t, int, Comm, void*);
};

Nccl nccl;
Comm g_comm = nullptr;
std::string last_error;

[[noreturn]] void die(const char* what, Result r) {
    fprintf(stderr, "frost/distributed: rank %lld: %s failed: %s\n", (long long)frost__dist_rank(),
            what, nccl.error_string ? nccl.error_string(r) : "?");
    fflush(stderr);
    _exit(1);
}

void check(Result r, const char* what) {
    if (r != 0) die(what, r);
}

void* load() {
    std::string tried;
    const char* own = getenv("NEVE_NCCL_LIB");
    std::string names[] = {own ? own : "",
#ifdef FROST_SITE
                           std::string(FROST_SITE) + "/nvidia/nccl/lib/libnccl.so.2",
                           std::string(FROST_SITE) + "/nvidia/cu13/lib/libnccl.so.2",
#endif
                           "libnccl.so.2"};
    for (auto& name : names) {
        if (name.empty()) continue;
        void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
        tried += std::string("\n  ") + dlerror();
    }
    last_error = "cannot load NCCL's libnccl.so.2 (pip install nvidia-nccl-cu12, or set "
                 "NEVE_NCCL_LIB to its path):" + tried;
    return nullptr;
}

template <class T>
bool sym(void* h, T& out, const char* name) {
    out = (T)dlsym(h, name);
    if (!out) last_error = std::string("libnccl has no symbol ") + name;
    return out != nullptr;
}

void* stream() { return (void*)nvcuda::current_stream(); }

int op_of(int64_t op) { return op == 1 ? 4 : op == 2 ? 2 : op == 3 ? 3 : 0; }

void destroy() {
    if (g_comm) nccl.comm_destroy(g_comm);
    g_comm = nullptr;
}

}  // namespace

extern "C" {

const char* frost__nccl_error(void) { return last_error.c_str(); }

int64_t frost__nccl_init(void) {
    if (g_comm) return 0;
    if (!nv_cuda_active()) {
        last_error = "no usable CUDA device: NCCL works on CUDA tensors (no driver or GPU, or "
                     "NEVE_DEVICE=cpu); use backend \"mpi\" for CPU tensors";
        return -1;
    }
    void* h = load();
    if (!h) return -1;
    bool ok = sym(h, nccl.get_unique_id, "ncclGetUniqueId") &&
              sym(h, nccl.comm_init_rank, "ncclCommInitRank") &&
              sym(h, nccl.comm_destroy, "ncclCommDestroy") &&
              sym(h, nccl.error_string, "ncclGetErrorString") &&
              sym(h, nccl.all_reduce, "ncclAllReduce") && sym(h, nccl.broadcast, "ncclBroadcast") &&
              sym(h, nccl.all_gather, "ncclAllGather");
    if (!ok) return -1;
    UniqueId id;
    memset(&id, 0, sizeof id);
    int64_t rank = frost__dist_rank(), size = frost__dist_world_size();
    if (rank == 0) check(nccl.get_unique_id(&id), "ncclGetUniqueId");
    frost__dist_broadcast_bytes(&id, sizeof id, 0);   // MPI; a world of one keeps its own
    stream();                                         // the context current on this thread
    check(nccl.comm_init_rank(&g_comm, (int)size, id, (int)rank), "ncclCommInitRank");
    atexit(destroy);   // registered after MPI's finalize, so it runs before it
    return 0;
}

int64_t frost__nccl_active(void) { return g_comm ? 1 : 0; }

void frost__nccl_all_reduce(float* buf, int64_t n, int64_t op) {
    check(nccl.all_reduce(buf, buf, (size_t)n, kFloat32, op_of(op), g_comm, stream()), "ncclAllReduce");
}

void frost__nccl_broadcast(float* buf, int64_t n, int64_t root) {
    check(nccl.broadcast(buf, buf, (size_t)n, kFloat32, (int)root, g_comm, stream()), "ncclBroadcast");
}

void frost__nccl_all_gather(const float* send, int64_t n, float* recv) {
    check(nccl.all_gather(send, recv, (size_t)n, kFloat32, g_comm, stream()), "ncclAllGather");
}

}  // extern "C"
