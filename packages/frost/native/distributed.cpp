// Frost's MPI glue (include/frost_dist.h): Open MPI loaded with dlopen at init, a communication
// thread that runs queued all-reduces (the gradient buckets of DataParallel; non-blocking
// collectives, polled) while the main thread computes, a watchdog that ends a rank stuck in a
// collective, and the choice of one GPU per rank at load time. MPI is initialised with
// MPI_THREAD_SERIALIZED and every MPI call takes one mutex, so at most one thread is inside MPI.
//
// Why dlopen: libmpi pulls in UCX and libfabric, whose memory hooks every Frost program would
// carry if linked; and a world of one (no launcher) needs no MPI at all. The handles
// (MPI_COMM_WORLD, MPI_FLOAT, ...) are macros over Open MPI's globals, so they are looked up
// by symbol here, which ties the glue to Open MPI's ABI (the wheel that pyproject installs).
#include "frost_dist.h"

#include <dlfcn.h>
#include <mpi.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace {

struct Api {
    decltype(&MPI_Init_thread) init_thread;
    decltype(&MPI_Finalize) finalize;
    decltype(&MPI_Finalized) finalized;
    decltype(&MPI_Comm_rank) comm_rank;
    decltype(&MPI_Comm_size) comm_size;
    decltype(&MPI_Comm_set_errhandler) set_errhandler;
    decltype(&MPI_Error_string) error_string;
    decltype(&MPI_Ibarrier) barrier;
    decltype(&MPI_Iallreduce) allreduce;
    decltype(&MPI_Ibcast) bcast;
    decltype(&MPI_Iallgather) allgather;
    decltype(&MPI_Test) test;
    decltype(&MPI_Abort) abort;
    MPI_Comm world;
    MPI_Datatype f32, byte;
    MPI_Op sum, max, min;
    MPI_Errhandler errors_return;
};

Api api;
std::string last_error;
int64_t g_rank = 0, g_size = 1;
bool g_active = false, g_finalized = false;
double g_timeout = 300.0;

std::mutex mpi_mu;                  // held around every MPI call (MPI_THREAD_SERIALIZED)
std::atomic<double> busy_since{0};  // steady seconds when the running collective began; 0 idle
const char* busy_what = "";

struct Job {
    float* buf;
    int64_t n, op;
};
std::mutex q_mu;
std::condition_variable q_cv;
std::deque<Job> queue;
int64_t issued = 0, done = 0;
bool stopping = false;
std::thread comm_thread, watchdog;
std::atomic<double> wait_total{0}, comm_total{0};

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const char* what, int rc) {
    char msg[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    if (api.error_string) api.error_string(rc, msg, &len);
    fprintf(stderr, "frost/distributed: rank %lld: %s failed: %s\n", (long long)g_rank, what, msg);
    fflush(stderr);
    _exit(1);
}

void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) die(what, rc);
}

// Threads blocked in frost__dist_wait or drain: while one is, the main thread's core is idle.
std::atomic<int> waiters{0};

// Finish a non-blocking collective. Open MPI's non-blocking collectives move on only inside MPI
// calls (each round of the algorithm, each shared-memory fragment needs one), so the time
// between MPI_Test calls adds to every round. Polling without sleeping is no cure: on 2 cores
// shared with other busy processes a spin (even with sched_yield) made collectives 5 to 10 times
// slower, since the rank it waits for cannot run. So the poll always sleeps, briefly (20 us, with
// a 1 us timer slack, see comm_loop) while the caller's core is idle anyway (hard: a collective
// of the main thread; or the main thread waiting for this bucket), and growing to 250 us while
// the main thread computes, so the communication thread takes little of its core.
void complete(MPI_Request* req, int rc, const char* what, bool hard) {
    check(rc, what);
    int flag = 0;
    long nap = 20;
    for (;;) {
        check(api.test(req, &flag, MPI_STATUS_IGNORE), what);
        if (flag) return;
        if (hard || waiters.load() > 0) nap = 20;
        std::this_thread::sleep_for(std::chrono::microseconds(nap));
        nap = std::min(nap * 2, 250L);
    }
}

// One MPI collective: the mutex, and the watchdog's clock.
struct InMpi {
    std::lock_guard<std::mutex> lock;
    explicit InMpi(const char* what) : lock(mpi_mu) {
        busy_what = what;
        busy_since = now();
    }
    ~InMpi() { busy_since = 0; }
};

void watch() {
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        double t0 = busy_since;
        if (t0 > 0 && now() - t0 > g_timeout) {
            fprintf(stderr, "frost/distributed: rank %lld: %s did not finish within %g s "
                    "(FROST_DIST_TIMEOUT); another rank failed or stopped calling it\n",
                    (long long)g_rank, busy_what, g_timeout);
            fflush(stderr);
            _exit(1);
        }
    }
}

MPI_Op op_of(int64_t op) { return op == 2 ? api.max : op == 3 ? api.min : api.sum; }

void reduce(float* buf, int64_t n, int64_t op, bool hard) {
    // MPI counts are int: chunks of 2^30 floats
    for (int64_t at = 0; at < n; at += (1 << 30)) {
        int c = (int)std::min<int64_t>(n - at, 1 << 30);
        MPI_Request req;
        complete(&req, api.allreduce(MPI_IN_PLACE, buf + at, c, api.f32, op_of(op), api.world, &req),
                 "MPI_Allreduce", hard);
    }
    if (op == 1) frost__dist_scale(buf, n, 1.0f / (float)g_size);
}

void comm_loop() {
    prctl(PR_SET_TIMERSLACK, 1000UL);   // ns: a 20 us nap sleeps 20 us, not the default 70
    for (;;) {
        Job j;
        {
            std::unique_lock<std::mutex> l(q_mu);
            q_cv.wait(l, [] { return stopping || !queue.empty(); });
            if (queue.empty()) return;
            j = queue.front();
        }
        double t0 = now();
        {
            InMpi in("MPI_Allreduce of a gradient bucket");
            reduce(j.buf, j.n, j.op, false);
        }
        comm_total = comm_total + (now() - t0);
        {
            std::lock_guard<std::mutex> l(q_mu);
            queue.pop_front();
            done++;
        }
        q_cv.notify_all();
    }
}

// Blocking collectives of the main thread run after the queued ones, in program order.
void drain() {
    waiters++;
    std::unique_lock<std::mutex> l(q_mu);
    q_cv.wait(l, [] { return done == issued; });
    waiters--;
}

int64_t env_int(const char* a, const char* b) {
    const char* v = getenv(a);
    if (!v) v = getenv(b);
    return v ? atoll(v) : -1;
}

void* load_mpi() {
    std::string tried;
    const char* own = getenv("FROST_MPI_LIB");
    const char* prefix = getenv("OPAL_PREFIX");
    std::string names[] = {own ? own : "", prefix ? std::string(prefix) + "/lib/libmpi.so.40" : "",
                           "libmpi.so.40", "libmpi.so"};
    for (auto& name : names) {
        if (name.empty()) continue;
        void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (h) return h;
        tried += std::string("\n  ") + dlerror();
    }
    last_error = "cannot load Open MPI's libmpi (set FROST_MPI_LIB to its path):" + tried;
    return nullptr;
}

template <class T>
bool sym(void* h, T& out, const char* name) {
    out = (T)dlsym(h, name);
    if (!out) last_error = std::string("libmpi has no symbol ") + name + " (not Open MPI 5?)";
    return out != nullptr;
}

// One GPU per rank: under a launcher with several ranks on this machine and NEVE_DEVICE unset,
// empty or a plain "cuda" (any GPU; nsm bench --device cuda), rank local_rank drives CUDA device
// local_rank mod the device count; "cuda:N" and "cpu" are kept. This runs when
// the program is loaded, not at dist.init(): the runtime opens its CUDA context, and Frost fixes
// its default device, before main. The count comes from the driver itself (cuDeviceGetCount,
// which honours CUDA_VISIBLE_DEVICES); without a driver or a device nothing is set.
int64_t local_rank() {
    int64_t r = env_int("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID");
    return r < 0 ? 0 : r;
}

__attribute__((constructor)) void gpu_per_rank() {
    const char* dev = getenv("NEVE_DEVICE");
    bool any_gpu = !dev || !*dev || strcmp(dev, "cuda") == 0 || strcmp(dev, "gpu") == 0;
    if (!any_gpu || env_int("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS") <= 1) return;
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) return;
    auto init = (int (*)(unsigned))dlsym(cuda, "cuInit");
    auto count_of = (int (*)(int*))dlsym(cuda, "cuDeviceGetCount");
    int count = 0;
    if (init && count_of && init(0) == 0 && count_of(&count) == 0 && count > 0) {
        std::string name = "cuda:" + std::to_string(local_rank() % count);
        setenv("NEVE_DEVICE", name.c_str(), 1);
    }
    // not closed: the runtime opens the same driver next
}

}  // namespace

extern "C" {

int64_t frost__dist_local_rank(void) { return local_rank(); }

const char* frost__dist_error(void) { return last_error.c_str(); }

int64_t frost__dist_init(void) {
    if (g_active) return 0;
    int64_t size = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
    if (size <= 1) {   // no launcher, or a world of one: nothing to talk to
        g_rank = 0;
        g_size = 1;
        return 0;
    }
    if (const char* t = getenv("FROST_DIST_TIMEOUT")) g_timeout = atof(t);
    void* h = load_mpi();
    if (!h) return -1;
    bool ok = sym(h, api.init_thread, "MPI_Init_thread") && sym(h, api.finalize, "MPI_Finalize") &&
              sym(h, api.finalized, "MPI_Finalized") && sym(h, api.comm_rank, "MPI_Comm_rank") &&
              sym(h, api.comm_size, "MPI_Comm_size") &&
              sym(h, api.set_errhandler, "MPI_Comm_set_errhandler") &&
              sym(h, api.error_string, "MPI_Error_string") && sym(h, api.barrier, "MPI_Ibarrier") &&
              sym(h, api.allreduce, "MPI_Iallreduce") && sym(h, api.bcast, "MPI_Ibcast") &&
              sym(h, api.allgather, "MPI_Iallgather") && sym(h, api.test, "MPI_Test") && sym(h, api.abort, "MPI_Abort") &&
              sym(h, api.world, "ompi_mpi_comm_world") && sym(h, api.f32, "ompi_mpi_float") &&
              sym(h, api.byte, "ompi_mpi_byte") &&
              sym(h, api.sum, "ompi_mpi_op_sum") && sym(h, api.max, "ompi_mpi_op_max") &&
              sym(h, api.min, "ompi_mpi_op_min") &&
              sym(h, api.errors_return, "ompi_mpi_errors_return");
    if (!ok) return -1;
    int provided = 0;
    int rc = api.init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
        last_error = "MPI_Init_thread failed";
        return -1;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        last_error = "Open MPI gives no MPI_THREAD_SERIALIZED support";
        return -1;
    }
    api.set_errhandler(api.world, api.errors_return);
    int r = 0, s = 1;
    api.comm_rank(api.world, &r);
    api.comm_size(api.world, &s);
    g_rank = r;
    g_size = s;
    g_active = true;
    prctl(PR_SET_TIMERSLACK, 1000UL);   // the main thread's polls (its collectives)
    comm_thread = std::thread(comm_loop);
    watchdog = std::thread(watch);
    watchdog.detach();
    atexit(frost__dist_finalize);   // a normal end of main; a runtime error _exits without it
    return 0;
}

int64_t frost__dist_rank(void) { return g_rank; }
int64_t frost__dist_world_size(void) { return g_size; }
int64_t frost__dist_active(void) { return g_active ? 1 : 0; }

void frost__dist_barrier(void) {
    if (!g_active) return;
    drain();
    InMpi in("MPI_Barrier");
    MPI_Request req;
    complete(&req, api.barrier(api.world, &req), "MPI_Barrier", true);
}

void frost__dist_all_reduce(float* buf, int64_t n, int64_t op) {
    if (!g_active) return;
    drain();
    InMpi in("MPI_Allreduce");
    reduce(buf, n, op, true);
}

void frost__dist_broadcast(float* buf, int64_t n, int64_t root) {
    if (!g_active) return;
    drain();
    InMpi in("MPI_Bcast");
    for (int64_t at = 0; at < n; at += (1 << 30)) {
        int c = (int)std::min<int64_t>(n - at, 1 << 30);
        MPI_Request req;
        complete(&req, api.bcast(buf + at, c, api.f32, (int)root, api.world, &req), "MPI_Bcast", true);
    }
}

void frost__dist_broadcast_bytes(void* buf, int64_t n, int64_t root) {
    if (!g_active) return;
    drain();
    InMpi in("MPI_Bcast");
    MPI_Request req;
    complete(&req, api.bcast(buf, (int)n, api.byte, (int)root, api.world, &req), "MPI_Bcast", true);
}

void frost__dist_all_gather(const float* send, int64_t n, float* recv) {
    if (!g_active) {
        memcpy(recv, send, sizeof(float) * n);
        return;
    }
    drain();
    InMpi in("MPI_Allgather");
    MPI_Request req;
    complete(&req, api.allgather(send, (int)n, api.f32, recv, (int)n, api.f32, api.world, &req),
             "MPI_Allgather", true);
}

int64_t frost__dist_start(float* buf, int64_t n, int64_t op) {
    std::lock_guard<std::mutex> l(q_mu);
    int64_t h = issued++;
    if (!g_active) {   // a world of one: the sum is the buffer itself
        done++;
        return h;
    }
    queue.push_back(Job{buf, n, op});
    q_cv.notify_all();
    return h;
}

void frost__dist_wait(int64_t handle) {
    double t0 = now();
    waiters++;
    std::unique_lock<std::mutex> l(q_mu);
    q_cv.wait(l, [handle] { return done > handle; });
    waiters--;
    wait_total = wait_total + (now() - t0);
}

double frost__dist_wait_seconds(void) { return wait_total; }
double frost__dist_comm_seconds(void) { return comm_total; }

void frost__dist_copy(float* dst, int64_t doff, const float* src, int64_t soff, int64_t n) {
    memcpy(dst + doff, src + soff, sizeof(float) * n);
}

void frost__dist_scale(float* buf, int64_t n, float s) {
    for (int64_t i = 0; i < n; i++) buf[i] *= s;
}

void frost__dist_finalize(void) {
    if (!g_active || g_finalized) return;
    g_finalized = true;
    drain();
    {
        std::lock_guard<std::mutex> l(q_mu);
        stopping = true;
    }
    q_cv.notify_all();
    comm_thread.join();
    std::lock_guard<std::mutex> l(mpi_mu);
    api.finalize();
}

void frost__dist_abort(int64_t code, const char* msg) {
    fprintf(stderr, "frost/distributed: rank %lld: %s\n", (long long)g_rank, msg);
    fflush(stderr);
    if (g_active) api.abort(api.world, (int)code);
    _exit((int)code);
}

}  // extern "C"
