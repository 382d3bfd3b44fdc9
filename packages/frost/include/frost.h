// Frost's native glue (LANGUAGE.md 11.2): plain C entry points over OpenBLAS (GEMM), oneDNN 3.2
// (convolution, pooling, batch norm) and a few strided loops. nsm's bindgen turns each
// `frost__c_NAME` into `frost.c_NAME` in the package's entry module.
//
// Every tensor argument is a contiguous float32 buffer (`float[]` in Neve; int64 and bool storage
// are `int[]` and `u8[]`) in NCHW order for images and OIHW for convolution weights; sizes are
// int64_t (`int`). Functions never keep a pointer past the call. Errors (a oneDNN failure) print
// one line on stderr and exit(1).
#pragma once
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

// Storage: n float32 zeros from the program's collector (bdwgc, pointer-free), reclaimed when no
// Neve object refers to them any more (bdwgc's own schedule: extra collections paced on
// storage bytes made the MNIST CNN's peak RSS vary more between runs, 11-15% against 0.5%,
// and did not lower ResNet-18's).
float* frost__c_alloc(int64_t n);
float* frost__c_alloc_uninit(int64_t n);
void frost__c_copy(float* dst, const float* src, int64_t n);
void frost__c_fill(float* dst, int64_t n, float v);
// Device memory (issue 19), through the runtime's caching allocator (runtime_cpp/cuda/alloc.cpp):
// whether p lies in a live device block, the allocator's statistics in bytes, empty_cache, and
// timing events on the calling thread's stream. All are 0 / no-ops without a GPU in use.
int32_t frost__c_on_device(const float* p);
int64_t frost__c_cuda_memory_allocated(void);
int64_t frost__c_cuda_memory_reserved(void);
int64_t frost__c_cuda_max_memory_allocated(void);
void frost__c_cuda_empty_cache(void);
// The same GEMM as frost__c_gemm on device memory through cuBLAS (native/cublas.cpp): 1 when
// done, 0 when cuBLAS is not loaded (the caller launches the Neve kernel); whether it is loaded.
int32_t frost__c_cuda_sgemm(int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, float alpha,
                            const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                            float* c, int64_t ldc);
int32_t frost__c_cuda_blas_loaded(void);
// Pinned host storage for batches moved to the device (the runtime's nv_cuda_pinned_*): n zeros,
// collected like other storage; a copy of n elements from pinned src to the device enqueued
// without a wait (1), or 0 when src is not pinned (the caller copies); the wait before
// refilling a pinned buffer for its last such copy.
float* frost__c_alloc_pinned(int64_t n);
int64_t* frost__c_alloc_pinned_i64(int64_t n);
int32_t frost__c_copy_async(float* dst, const float* src, int64_t n);
int32_t frost__c_copy_async_i64(int64_t* dst, const int64_t* src, int64_t n);
int32_t frost__c_is_pinned(const float* p);
void frost__c_pinned_wait(const float* p);
void frost__c_pinned_wait_i64(const int64_t* p);
// An event recorded on the calling thread's stream (0 without a GPU), and the milliseconds
// between two (waits for the later one; 0.0 for a 0 event).
int64_t frost__c_cuda_event_record(void);
double frost__c_cuda_event_elapsed_ms(int64_t start, int64_t end);
// Collector statistics for memory tests: the heap size in bytes, and the bytes in use after a
// full collection.
int64_t frost__c_heap_size(void);
int64_t frost__c_gc_live_bytes(void);
// Resident set size of the process in bytes (/proc/self/statm).
int64_t frost__c_rss(void);
// Peak resident set size of the process in bytes (VmHWM of /proc/self/status).
int64_t frost__c_peak_rss(void);

// dst[i] (+)= src[j] over an ndim index space `shape`, addresses from per-dimension strides
// (0 = broadcast or reduce): expand with accumulate = 0, sum-to-shape with accumulate = 1.
void frost__c_strided(float* dst, const int64_t* dst_strides, const float* src,
                      const int64_t* src_strides, const int64_t* shape, int64_t ndim,
                      int32_t accumulate);

// int64 and bool (one byte, 0 or 1) storage, zeroed, and their strided copies (no accumulate).
int64_t* frost__c_alloc_i64(int64_t n);
uint8_t* frost__c_alloc_u8(int64_t n);
void frost__c_strided_i64(int64_t* dst, const int64_t* dst_strides, const int64_t* src,
                          const int64_t* src_strides, const int64_t* shape, int64_t ndim);
void frost__c_strided_u8(uint8_t* dst, const int64_t* dst_strides, const uint8_t* src,
                         const int64_t* src_strides, const int64_t* shape, int64_t ndim);

// C (m x n) = alpha * op(A) op(B) + beta * C, row-major, op = transpose when ta/tb != 0
// (cblas_sgemm of scipy-openblas32).
void frost__c_gemm(int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                   float* c, int64_t ldc);
// out (m x n) += column sums of x (rows x n) into a bias gradient: out[j] += sum_i x[i, j].
void frost__c_sum_rows(float* out, const float* x, int64_t rows, int64_t n);

// Softmax over the middle axis of an (outer, d, inner) view; log = 1 gives log-softmax.
void frost__c_softmax(float* y, const float* x, int64_t outer, int64_t d, int64_t inner,
                      int32_t log);
// Gradient of the above from its output y: softmax dx = y * (dy - sum(dy * y)),
// log-softmax dx = dy - exp(y) * sum(dy).
void frost__c_softmax_backward(float* dx, const float* dy, const float* y, int64_t outer,
                               int64_t d, int64_t inner, int32_t log);

// Convolution, NCHW x OIHW -> NCHW (oneDNN convolution_forward, direct algorithm); bias may be
// NULL. Output size OH = (H + 2 ph - KH) / sh + 1, likewise OW. xl, yl: the layouts of x and y
// (frost_layout.h; 0 plain; yl 0 or frost__c_conv2d_layout(0, ...)).
void frost__c_conv2d_forward(const float* x, const float* w, const float* b, float* y,
                             int64_t n, int64_t c, int64_t h, int64_t wd, int64_t oc,
                             int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                             int64_t pw, int64_t xl, int64_t yl);
// Its gradients from dy (N, OC, OH, OW): dx (the input's, unless NULL), then dw (unless NULL)
// and db (unless NULL), all overwritten; dy is reordered once for both passes. xl, dyl, dxl:
// the layouts of x, dy and dx (dxl 0 or frost__c_conv2d_layout(1, ...)); dw and db are plain.
void frost__c_conv2d_backward(const float* x, const float* dy, const float* w, float* dx,
                              float* dw, float* db, int64_t n, int64_t c, int64_t h, int64_t wd,
                              int64_t oc, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                              int64_t ph, int64_t pw, int64_t xl, int64_t dyl, int64_t dxl);
// The layout of the primitive's output (which 0) or input gradient (which 1) when a tensor may
// keep it (frost_layout.h), else 0.
int64_t frost__c_conv2d_layout(int32_t which, int64_t n, int64_t c, int64_t h, int64_t wd,
                               int64_t oc, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                               int64_t ph, int64_t pw);

// Pooling (oneDNN pooling_forward/backward): kind 0 max, 1 average counting padding
// (PyTorch's AvgPool2d default). Max pooling keeps its argmax in ws, whose size in floats is
// frost__c_pool2d_ws_size(...) (0 for average pooling).
int64_t frost__c_pool2d_ws_size(int32_t kind, int64_t n, int64_t c, int64_t h, int64_t wd,
                                int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                                int64_t pw);
void frost__c_pool2d_forward(int32_t kind, const float* x, float* y, float* ws, int64_t n,
                             int64_t c, int64_t h, int64_t wd, int64_t kh, int64_t kw,
                             int64_t sh, int64_t sw, int64_t ph, int64_t pw);
void frost__c_pool2d_backward(int32_t kind, const float* dy, float* dx, const float* ws,
                              int64_t n, int64_t c, int64_t h, int64_t wd, int64_t kh,
                              int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw);
// Adaptive average pooling to (oh, ow) with PyTorch's bins: start = floor(i H / oh),
// end = ceil((i + 1) H / oh).
void frost__c_adaptive_avg_pool2d(const float* x, float* y, int64_t nc, int64_t h, int64_t wd,
                                  int64_t oh, int64_t ow);
void frost__c_adaptive_avg_pool2d_backward(const float* dy, float* dx, int64_t nc, int64_t h,
                                           int64_t wd, int64_t oh, int64_t ow);

// Batch normalization over (N, H, W) per channel (plain loops, scale and shift).
// training = 1: mean and var (biased) are written with the batch statistics; training = 0:
// they are read (running statistics). relu = 1: y = max(bn(x), 0) in the same pass. layout: of
// x and y (frost_layout.h; 0 plain).
void frost__c_batch_norm_forward(int32_t training, const float* x, float* y,
                                 const float* scale, const float* shift, float* mean,
                                 float* var, int64_t n, int64_t c, int64_t h, int64_t wd,
                                 float eps, int32_t relu, int64_t layout);
// Training-mode gradient: dx, dscale, dshift overwritten. y: NULL, or the output of a fused
// ReLU (dy then counts only where y > 0). layout: of x, dy, dx and y.
void frost__c_batch_norm_backward(const float* x, const float* dy, const float* scale,
                                  const float* mean, const float* var, float* dx,
                                  float* dscale, float* dshift, int64_t n, int64_t c,
                                  int64_t h, int64_t wd, float eps, const float* y,
                                  int64_t layout);

// A gzip (or plain) file's uncompressed size in bytes, -1 when it cannot be read; then its
// bytes into out (at most cap), returning the count (zlib gzread).
int64_t frost__c_gz_size(const char* path);
int64_t frost__c_gz_read(const char* path, uint8_t* out, int64_t cap);

// Raw little-endian float32 files (tests exchange tensors with NumPy's tofile/fromfile):
// returns the number of floats written/read, -1 when the file cannot be opened.
int64_t frost__c_save_raw(const char* path, const float* data, int64_t n);
int64_t frost__c_load_raw(const char* path, float* data, int64_t n);
// Size of a file in bytes, -1 when missing.
int64_t frost__c_file_size(const char* path);

// Per-op profile (FROST_PROFILE=1, native/profile.cpp): prof_on says whether it is on (the
// variable is read once); prof_begin opens a timed scope (returns 0, reading no clock, when off),
// prof_end closes it as op with its FLOPs (0 when undefined), a no-op for t0 = 0. Scopes nest
// per thread; a scope's own time excludes its nested scopes. Printed at exit (stderr) and
// written to FROST_PROFILE_JSON; reset drops what was recorded; step ends a training step (the
// report gives the median of the steps' op time, as nsm bench gives median step times);
// write_json returns the number of ops written, -1 when the file cannot be written.
int32_t frost__c_prof_on(void);
int64_t frost__c_prof_begin(void);
void frost__c_prof_end(const char* op, int64_t t0, double flops);
void frost__c_prof_reset(void);
void frost__c_prof_step(void);
int64_t frost__c_prof_write_json(const char* path);
void frost__c_prof_print(void);
// CPU seconds used by the process so far, all threads (CLOCK_PROCESS_CPUTIME_ID): benchmarks
// report CPU time per step beside wall time on shared machines.
double frost__c_process_cpu_s(void);

#ifdef __cplusplus
}
#endif
