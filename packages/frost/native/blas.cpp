// GEMM through scipy-openblas32 (OpenBLAS 0.3, symbols prefixed scipy_): cblas_sgemm, row-major.
#include <cblas.h>
#include "frost.h"

void frost__c_gemm(int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   float* c, int64_t ldc) {
    if (m == 0 || n == 0) return;
    scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                      (blasint)m, (blasint)n, (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb,
                      beta, c, (blasint)ldc);
}

void frost__c_sum_rows(float* out, const float* x, int64_t rows, int64_t n) {
    for (int64_t i = 0; i < rows; i++) {
        const float* r = x + i * n;
        for (int64_t j = 0; j < n; j++) out[j] += r[j];
    }
}
