// GEMM on device memory through cuBLAS (issue 19), loaded with dlopen at run time like libcuda,
// so a program has no link-time CUDA dependency: $NEVE_CUBLAS_LIB (a path; "none" keeps the Neve
// kernel), else the nvidia-cublas wheel of the Python environment Frost was built in, else the
// system's libcublas.so.13 / .12. Under the fake driver of the tests only $NEVE_CUBLAS_LIB is
// tried (a real cuBLAS would be handed host pointers). Each Neve thread has its own handle on
// its own stream (a handle must not be used by two threads at once).
//
// Source: cuBLAS API reference (CUDA 13.0): cublasCreate_v2, cublasSetStream_v2, cublasSgemm_v2;
// column-major, so the row-major C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T.
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include "frost.h"

extern "C" {
bool nv_cuda_active(void);
void* nv_cuda_stream(void);
}

#ifndef FROST_SITE
#define FROST_SITE ""
#endif

namespace {

typedef int cublasStatus_t;
typedef struct cublasContext* cublasHandle_t;
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;

struct Cublas {
    cublasStatus_t (*Create)(cublasHandle_t*);
    cublasStatus_t (*SetStream)(cublasHandle_t, void*);
    cublasStatus_t (*Sgemm)(cublasHandle_t, int, int, int, int, int, const float*, const float*,
                            int, const float*, int, const float*, float*, int);
};

Cublas g_blas;
bool g_loaded = false;
std::once_flag g_once;
thread_local cublasHandle_t t_handle = nullptr;

bool fake_driver() {
    void* cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return cu && dlsym(cu, "fake_cuda_register_twin");
}

bool try_load(const std::string& path) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    g_blas.Create = (decltype(g_blas.Create))dlsym(lib, "cublasCreate_v2");
    g_blas.SetStream = (decltype(g_blas.SetStream))dlsym(lib, "cublasSetStream_v2");
    g_blas.Sgemm = (decltype(g_blas.Sgemm))dlsym(lib, "cublasSgemm_v2");
    if (!g_blas.Create || !g_blas.SetStream || !g_blas.Sgemm) return false;
    return true;
}

void load_once() {
    if (!nv_cuda_active()) return;
    const char* env = getenv("NEVE_CUBLAS_LIB");
    if (env && *env) {
        if (strcmp(env, "none") == 0) return;
        g_loaded = try_load(env);
        if (!g_loaded) fprintf(stderr, "warning: NEVE_CUBLAS_LIB=%s: %s; GEMM runs as a Neve kernel\n",
                               env, dlerror());
        return;
    }
    if (fake_driver()) return;
    std::string site = FROST_SITE;
    const std::string paths[] = {site + "/nvidia/cu13/lib/libcublas.so.13",
                                 site + "/nvidia/cublas/lib/libcublas.so.12", "libcublas.so.13",
                                 "libcublas.so.12"};
    for (const std::string& p : paths)
        if ((p[0] != '/' || !site.empty()) && try_load(p)) {
            g_loaded = true;
            return;
        }
}

cublasHandle_t handle() {
    if (!t_handle) {
        void* stream = nv_cuda_stream();   // also makes the context current on this thread
        if (g_blas.Create(&t_handle) != 0 || g_blas.SetStream(t_handle, stream) != 0) {
            fprintf(stderr, "error: cuBLAS: cannot create a handle on this thread's stream\n");
            exit(1);
        }
    }
    return t_handle;
}

}  // namespace

int32_t frost__c_cuda_sgemm(int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, float alpha,
                            const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                            float* c, int64_t ldc) {
    std::call_once(g_once, load_once);
    const int64_t lim = INT32_MAX;
    if (!g_loaded || m > lim || n > lim || k > lim || lda > lim || ldb > lim || ldc > lim) return 0;
    if (m == 0 || n == 0) return 1;
    cublasStatus_t r = g_blas.Sgemm(handle(), tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m, (int)k, &alpha,
                                    b, (int)ldb, a, (int)lda, &beta, c, (int)ldc);
    if (r != 0) {
        fprintf(stderr, "error: cublasSgemm failed with status %d (m %lld, n %lld, k %lld)\n", r,
                (long long)m, (long long)n, (long long)k);
        exit(1);
    }
    return 1;
}

int32_t frost__c_cuda_blas_loaded(void) {
    std::call_once(g_once, load_once);
    return g_loaded ? 1 : 0;
}
