// Tensor storage from the program's collector, strided copies, and the small loops that are
// not worth a library call (softmax, adaptive pooling, gzip reading for the examples).
#include <gc.h>
#include <zlib.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "frost.h"
#include "profile.h"

float* frost__c_alloc(int64_t n) {
    frost_prof::Scope prof("alloc", 0);
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(float);
    void* p = GC_malloc_atomic(bytes);
    if (!p) { fprintf(stderr, "frost: out of memory (%lld floats)\n", (long long)n); exit(1); }
    memset(p, 0, bytes);
    return (float*)p;
}

float* frost__c_alloc_uninit(int64_t n) {
    frost_prof::Scope prof("alloc", 0);
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(float);
    void* p = GC_malloc_atomic(bytes);
    if (!p) { fprintf(stderr, "frost: out of memory (%lld floats)\n", (long long)n); exit(1); }
    return (float*)p;
}

void frost__c_copy(float* dst, const float* src, int64_t n) { memmove(dst, src, n * sizeof(float)); }

void frost__c_fill(float* dst, int64_t n, float v) {
    for (int64_t i = 0; i < n; i++) dst[i] = v;
}

int64_t frost__c_heap_size(void) { return (int64_t)GC_get_heap_size(); }

int64_t frost__c_gc_live_bytes(void) {
    GC_gcollect();
    return (int64_t)GC_get_memory_use();
}

int64_t frost__c_rss(void) {
    FILE* f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    long long size = 0, res = 0;
    if (fscanf(f, "%lld %lld", &size, &res) != 2) res = 0;
    fclose(f);
    return (int64_t)res * sysconf(_SC_PAGESIZE);
}

int64_t frost__c_peak_rss(void) {
    FILE* f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
    fclose(f);
    return (int64_t)kb * 1024;
}

namespace {

// Element storage of n elements of T, zeroed unless uninit (pointer-free for the collector).
template <typename T>
T* alloc_elems(int64_t n, bool zero) {
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(T);
    void* p = GC_malloc_atomic(bytes);
    if (!p) { fprintf(stderr, "frost: out of memory (%lld elements)\n", (long long)n); exit(1); }
    if (zero) memset(p, 0, bytes);
    return (T*)p;
}

template <typename T>
void strided(T* dst, const int64_t* ds, const T* src, const int64_t* ss, const int64_t* shape,
             int64_t ndim, int32_t accumulate) {
    int64_t total = 1;
    for (int64_t d = 0; d < ndim; d++) total *= shape[d];
    if (total == 0) return;
    int64_t idx[16] = {0};
    int64_t inner = ndim ? shape[ndim - 1] : 1;
    int64_t dsi = ndim ? ds[ndim - 1] : 0, ssi = ndim ? ss[ndim - 1] : 0;
    for (int64_t base = 0; base < total; base += inner) {
        int64_t doff = 0, soff = 0;
        for (int64_t d = 0; d + 1 < ndim; d++) { doff += idx[d] * ds[d]; soff += idx[d] * ss[d]; }
        T* dp = dst + doff;
        const T* sp = src + soff;
        if (accumulate) for (int64_t i = 0; i < inner; i++) dp[i * dsi] += sp[i * ssi];
        else for (int64_t i = 0; i < inner; i++) dp[i * dsi] = sp[i * ssi];
        for (int64_t d = ndim - 2; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace

void frost__c_strided(float* dst, const int64_t* ds, const float* src, const int64_t* ss,
                      const int64_t* shape, int64_t ndim, int32_t accumulate) {
    strided(dst, ds, src, ss, shape, ndim, accumulate);
}

int64_t* frost__c_alloc_i64(int64_t n) { return alloc_elems<int64_t>(n, true); }

uint8_t* frost__c_alloc_u8(int64_t n) { return alloc_elems<uint8_t>(n, true); }

void frost__c_strided_i64(int64_t* dst, const int64_t* ds, const int64_t* src, const int64_t* ss,
                          const int64_t* shape, int64_t ndim) {
    strided(dst, ds, src, ss, shape, ndim, 0);
}

void frost__c_strided_u8(uint8_t* dst, const int64_t* ds, const uint8_t* src, const int64_t* ss,
                         const int64_t* shape, int64_t ndim) {
    strided(dst, ds, src, ss, shape, ndim, 0);
}

void frost__c_softmax(float* y, const float* x, int64_t outer, int64_t d, int64_t inner,
                      int32_t log) {
    #pragma omp parallel for if (outer * d * inner > 65536)
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            const float* xp = x + o * d * inner + j;
            float* yp = y + o * d * inner + j;
            float m = -INFINITY;
            for (int64_t i = 0; i < d; i++) m = fmaxf(m, xp[i * inner]);
            double s = 0;
            for (int64_t i = 0; i < d; i++) s += std::exp((double)(xp[i * inner] - m));
            if (log) {
                float ls = (float)std::log(s);
                for (int64_t i = 0; i < d; i++) yp[i * inner] = xp[i * inner] - m - ls;
            } else {
                for (int64_t i = 0; i < d; i++) yp[i * inner] = (float)(std::exp((double)(xp[i * inner] - m)) / s);
            }
        }
}

void frost__c_softmax_backward(float* dx, const float* dy, const float* y, int64_t outer,
                               int64_t d, int64_t inner, int32_t log) {
    #pragma omp parallel for if (outer * d * inner > 65536)
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            int64_t b = o * d * inner + j;
            double s = 0;
            if (log) {
                for (int64_t i = 0; i < d; i++) s += dy[b + i * inner];
                for (int64_t i = 0; i < d; i++)
                    dx[b + i * inner] = dy[b + i * inner] - std::exp(y[b + i * inner]) * (float)s;
            } else {
                for (int64_t i = 0; i < d; i++) s += (double)dy[b + i * inner] * y[b + i * inner];
                for (int64_t i = 0; i < d; i++)
                    dx[b + i * inner] = y[b + i * inner] * (dy[b + i * inner] - (float)s);
            }
        }
}

void frost__c_adaptive_avg_pool2d(const float* x, float* y, int64_t nc, int64_t h, int64_t w,
                                  int64_t oh, int64_t ow) {
    #pragma omp parallel for if (nc * h * w > 65536)
    for (int64_t p = 0; p < nc; p++)
        for (int64_t i = 0; i < oh; i++) {
            int64_t h0 = i * h / oh, h1 = ((i + 1) * h + oh - 1) / oh;
            for (int64_t j = 0; j < ow; j++) {
                int64_t w0 = j * w / ow, w1 = ((j + 1) * w + ow - 1) / ow;
                float s = 0;
                for (int64_t a = h0; a < h1; a++)
                    for (int64_t b = w0; b < w1; b++) s += x[(p * h + a) * w + b];
                y[(p * oh + i) * ow + j] = s / (float)((h1 - h0) * (w1 - w0));
            }
        }
}

void frost__c_adaptive_avg_pool2d_backward(const float* dy, float* dx, int64_t nc, int64_t h,
                                           int64_t w, int64_t oh, int64_t ow) {
    memset(dx, 0, nc * h * w * sizeof(float));
    #pragma omp parallel for if (nc * h * w > 65536)
    for (int64_t p = 0; p < nc; p++)
        for (int64_t i = 0; i < oh; i++) {
            int64_t h0 = i * h / oh, h1 = ((i + 1) * h + oh - 1) / oh;
            for (int64_t j = 0; j < ow; j++) {
                int64_t w0 = j * w / ow, w1 = ((j + 1) * w + ow - 1) / ow;
                float g = dy[(p * oh + i) * ow + j] / (float)((h1 - h0) * (w1 - w0));
                for (int64_t a = h0; a < h1; a++)
                    for (int64_t b = w0; b < w1; b++) dx[(p * h + a) * w + b] += g;
            }
        }
}

int64_t frost__c_gz_size(const char* path) {
    gzFile f = gzopen(path, "rb");
    if (!f) return -1;
    char buf[1 << 16];
    int64_t total = 0;
    int k;
    while ((k = gzread(f, buf, sizeof buf)) > 0) total += k;
    gzclose(f);
    return k < 0 ? -1 : total;
}

int64_t frost__c_gz_read(const char* path, uint8_t* out, int64_t cap) {
    gzFile f = gzopen(path, "rb");
    if (!f) return -1;
    int64_t total = 0;
    while (total < cap) {
        int want = (int)((cap - total) < (1 << 30) ? (cap - total) : (1 << 30));
        int k = gzread(f, out + total, want);
        if (k <= 0) break;
        total += k;
    }
    gzclose(f);
    return total;
}

int64_t frost__c_save_raw(const char* path, const float* data, int64_t n) {
    FILE* f = fopen(path, "wb");
    if (!f) return -1;
    size_t k = fwrite(data, sizeof(float), (size_t)n, f);
    fclose(f);
    return (int64_t)k;
}

int64_t frost__c_load_raw(const char* path, float* data, int64_t n) {
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    size_t k = fread(data, sizeof(float), (size_t)n, f);
    fclose(f);
    return (int64_t)k;
}

int64_t frost__c_file_size(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long s = ftell(f);
    fclose(f);
    return (int64_t)s;
}
