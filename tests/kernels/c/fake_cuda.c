/* fake_cuda.c: a stand-in libcuda.so.1 on host memory, so the CUDA glue (runtime_cpp/cuda/) is
 * tested on machines without a GPU. It implements the driver entry points the glue looks up;
 * device memory is malloc'ed; calls are logged to $FAKE_CUDA_LOG ("twin ENTRY" for each kernel
 * run). Kernels run through their CPU-back-end twins, which the glue registers by entry name
 * (fake_cuda_register_twin, a symbol the real driver lacks), block after block; without a twin,
 * "add_one" (float* y, int n) runs on the host, "fault" makes the next synchronization fail
 * with CUDA_ERROR_ILLEGAL_ADDRESS (700), and PTX containing "BAD" is rejected as invalid (218). */
#include <stdint.h>
#include "fake_log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static int sticky;

/* The nv_block of neve_rt.h: what a CPU twin reads for its indices and shared memory. */
typedef struct { int64_t grid[3], block[3], idx[3]; void* smem; } nv_block;
typedef void (*twin_fn)(void** args, const nv_block* b);
static struct { char* entry; twin_fn cpu; } twins[4096];
static int ntwins;

void fake_cuda_register_twin(const char* entry, void* cpu) {
    for (int i = 0; i < ntwins; i++)
        if (strcmp(twins[i].entry, entry) == 0) return;
    if (ntwins < 4096) { twins[ntwins].entry = strdup(entry); twins[ntwins++].cpu = (twin_fn)cpu; }
}

static twin_fn twin_of(const char* entry) {
    for (int i = 0; i < ntwins; i++)
        if (strcmp(twins[i].entry, entry) == 0) return twins[i].cpu;
    return 0;
}

#define logf_ fake_log

static void log_name(const char* what, const char* name) {
    const char* p = getenv("FAKE_CUDA_LOG");
    if (!p) return;
    FILE* f = fopen(p, "a");
    fprintf(f, "%s %s\n", what, name);
    fclose(f);
}

CUresult cuInit(unsigned f) { (void)f; return getenv("FAKE_CUDA_INIT_FAILS") ? 100 : 0; }
/* FAKE_CUDA_DEVICES=N: N devices (else 1), and the device whose context is retained is logged. */
CUresult cuDeviceGetCount(int* n) {
    const char* v = getenv("FAKE_CUDA_DEVICES");
    *n = v ? atoi(v) : 1;
    return 0;
}
CUresult cuDeviceGet(int* d, int i) { *d = i; return 0; }
CUresult cuDevicePrimaryCtxRetain(void** c, int d) {
    if (getenv("FAKE_CUDA_DEVICES")) logf_("device %ld", d, 0, 0);
    *c = (void*)0x1;
    return 0;
}
CUresult cuCtxSetCurrent(void* c) { (void)c; logf_("ctx", 0, 0, 0); return 0; }
/* A stream is its number (1, 2, ... in creation order), logged by launches and waits. */
static long nstreams;
CUresult cuStreamCreate(void** s, unsigned f) {
    *s = malloc(sizeof(long));
    *(long*)*s = ++nstreams;
    logf_("stream %ld", f, 0, 0);
    return 0;
}
CUresult cuStreamDestroy_v2(void* s) { free(s); return 0; }
CUresult cuStreamSynchronize(void* s) {
    logf_("sync %ld", *(long*)s, 0, 0);
    if (sticky) return sticky;
    return 0;
}
CUresult cuModuleLoadDataEx(void** m, const char* ptx, unsigned n, int* o, void** v) {
    if (strstr(ptx, "BAD")) {
        for (unsigned i = 0; i < n; i++)
            if (o[i] == 5) strcpy((char*)v[i], "ptxas fatal: bad PTX");
        return 218;
    }
    *m = (void*)ptx;
    logf_("load", 0, 0, 0);
    return 0;
}
CUresult cuModuleGetFunction(void** f, void* m, const char* name) {
    (void)m;
    if (strcmp(name, "missing") == 0) return 500;
    *f = strdup(name);
    return 0;
}
CUresult cuFuncSetAttribute(void* f, int a, int v) { (void)f; logf_("attr %ld %ld", a, v, 0); return 0; }
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void* s, void** args, void** extra) {
    (void)extra; (void)gy; (void)gz; (void)by; (void)bz;
    const char* name = f;
    logf_("launch %ld %ld %ld", (long)gx * gy * gz, (long)bx * by * bz, smem);
    logf_("on stream %ld", *(long*)s, 0, 0);
    twin_fn cpu = twin_of(name);
    if (cpu) {
        log_name("twin", name);   /* after its "launch" line: which kernel ran */
        nv_block b = {{gx, gy, gz}, {bx, by, bz}, {0, 0, 0}, 0};
        b.smem = aligned_alloc(64, ((size_t)smem + 127) / 64 * 64);
        for (int64_t z = 0; z < gz; z++)
            for (int64_t y = 0; y < gy; y++)
                for (int64_t x = 0; x < gx; x++) {
                    b.idx[0] = x; b.idx[1] = y; b.idx[2] = z;
                    cpu(args, &b);
                }
        free(b.smem);
    } else if (strcmp(name, "add_one") == 0) {
        float* y = *(float**)args[0];
        int64_t n = *(int64_t*)args[1];
        for (int64_t i = 0; i < n; i++) y[i] += 1.0f;
    } else if (strcmp(name, "fault") == 0) {
        sticky = 700;
    } else if (strcmp(name, "toolarge") == 0) {
        return 701;
    }
    return 0;
}
CUresult cuMemAlloc_v2(uint64_t* p, size_t n) {
    if (n > ((size_t)1 << 40)) return 2;
    logf_("alloc %ld", (long)n, 0, 0);
    *p = (uint64_t)(uintptr_t)malloc(n);
    memset((void*)(uintptr_t)*p, 0xAB, n);   /* garbage, which the glue must zero */
    return 0;
}
CUresult cuMemsetD8Async(uint64_t p, unsigned char v, size_t n, void* s) {
    (void)s;
    memset((void*)(uintptr_t)p, v, n);
    return sticky;
}
CUresult cuEventCreate(void** e, unsigned f) { (void)f; *e = calloc(1, sizeof(double)); return 0; }
CUresult cuEventRecord(void* e, void* s) {
    (void)s;
    static double clock_ms;
    *(double*)e = (clock_ms += 1.5);   /* a fake clock: 1.5 ms between records */
    logf_("event", 0, 0, 0);
    return 0;
}
CUresult cuEventSynchronize(void* e) { (void)e; return sticky; }
CUresult cuEventElapsedTime_v2(float* ms, void* a, void* b) {
    *ms = (float)(*(double*)b - *(double*)a);
    return 0;
}
CUresult cuMemFree_v2(uint64_t p) { free((void*)(uintptr_t)p); logf_("free", 0, 0, 0); return 0; }
CUresult cuMemsetD8_v2(uint64_t p, unsigned char v, size_t n) { memset((void*)(uintptr_t)p, v, n); return 0; }
CUresult cuMemcpyAsync(uint64_t d, uint64_t s, size_t n, void* st) {
    (void)st;
    logf_("copy %ld", (long)n, 0, 0);
    memmove((void*)(uintptr_t)d, (void*)(uintptr_t)s, n);
    return sticky;
}
CUresult cuMemHostRegister_v2(void* p, size_t n, unsigned f) {
    (void)p; (void)f;
    logf_("pin %ld", (long)n, 0, 0);
    return 0;
}
CUresult cuMemHostUnregister(void* p) { (void)p; logf_("unpin", 0, 0, 0); return 0; }
CUresult cuEventDestroy_v2(void* e) { free(e); return 0; }
CUresult cuGetErrorName(CUresult r, const char** s) {
    *s = r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : r == 218 ? "CUDA_ERROR_INVALID_PTX"
       : r == 701 ? "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" : r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY"
       : "CUDA_ERROR_UNKNOWN";
    return 0;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
    *s = r == 700 ? "an illegal memory access was encountered" : "fake error";
    return 0;
}
