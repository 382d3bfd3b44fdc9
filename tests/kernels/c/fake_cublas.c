/* fake_cublas.c: a stand-in libcublas for machines without a GPU, next to fake_cuda.c (whose
 * "device" memory is host memory), so Frost's cuBLAS binding (packages/frost/native/cublas.cpp)
 * runs end to end in CI: the three entry points it looks up, sgemm in plain column-major loops.
 * Calls are logged to $FAKE_CUDA_LOG ("cublas create", "cublas stream", "cublas sgemm M N K"). */
#include <stdio.h>
#include <stdlib.h>

#include "fake_log.h"
#define log_line fake_log

int cublasCreate_v2(void** h) { *h = malloc(1); log_line("cublas create", 0, 0, 0); return 0; }
int cublasSetStream_v2(void* h, void* s) { (void)h; (void)s; log_line("cublas stream", 0, 0, 0); return 0; }

/* C (m x n) = alpha op(A) op(B) + beta C, column-major; op 1 transposes. */
int cublasSgemm_v2(void* h, int ta, int tb, int m, int n, int k, const float* alpha,
                   const float* a, int lda, const float* b, int ldb, const float* beta, float* c,
                   int ldc) {
    (void)h;
    log_line("cublas sgemm %ld %ld %ld", m, n, k);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float s = 0;
            for (int p = 0; p < k; p++)
                s += (ta ? a[p + (long)i * lda] : a[i + (long)p * lda]) *
                     (tb ? b[j + (long)p * ldb] : b[p + (long)j * ldb]);
            float* out = &c[i + (long)j * ldc];
            *out = *beta == 0.0f ? *alpha * s : *alpha * s + *beta * *out;
        }
    return 0;
}
