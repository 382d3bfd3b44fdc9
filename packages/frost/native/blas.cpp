// GEMM through scipy-openblas32 (OpenBLAS 0.3, symbols prefixed scipy_): cblas_sgemm, row-major.
// OpenBLAS's own thread pool fights the OpenMP pool of oneDNN and the collector's threads for
// the cores (measured here: MLP steps 6x slower with both pools awake), so OpenBLAS runs
// single-threaded and large products are split by rows over OpenMP threads instead.
#include <cblas.h>
#include <omp.h>
#include <mutex>
#include "frost.h"
#include "profile.h"

static void one_thread_blas() {
    static std::once_flag once;
    std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

void frost__c_gemm(int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   float* c, int64_t ldc) {
    if (m == 0 || n == 0) return;
    frost_prof::Scope prof("blas.sgemm", 2.0 * m * n * k);
    one_thread_blas();
    auto ta_ = ta ? CblasTrans : CblasNoTrans;
    auto tb_ = tb ? CblasTrans : CblasNoTrans;
    int threads = omp_get_max_threads();
    double work = (double)m * (double)n * (double)k;
    int parts = work < (1 << 20) ? 1 : (int)(m / 16 < threads ? m / 16 : threads);
    if (parts <= 1) {
        scipy_cblas_sgemm(CblasRowMajor, ta_, tb_, (blasint)m, (blasint)n, (blasint)k, alpha, a,
                          (blasint)lda, b, (blasint)ldb, beta, c, (blasint)ldc);
        return;
    }
    #pragma omp parallel for num_threads(parts) schedule(static, 1)
    for (int p = 0; p < parts; p++) {
        int64_t i0 = m * p / parts, i1 = m * (p + 1) / parts;
        // rows i0..i1 of op(A): row offset when A is not transposed, column offset when it is
        const float* ap = ta ? a + i0 : a + i0 * lda;
        scipy_cblas_sgemm(CblasRowMajor, ta_, tb_, (blasint)(i1 - i0), (blasint)n, (blasint)k,
                          alpha, ap, (blasint)lda, b, (blasint)ldb, beta, c + i0 * ldc,
                          (blasint)ldc);
    }
}

void frost__c_sum_rows(float* out, const float* x, int64_t rows, int64_t n) {
    for (int64_t i = 0; i < rows; i++) {
        const float* r = x + i * n;
        for (int64_t j = 0; j < n; j++) out[j] += r[j];
    }
}
