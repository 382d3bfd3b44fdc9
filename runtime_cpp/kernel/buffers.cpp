// Buffers on the host side (LANGUAGE.md 3.4, 14.8): the storage objects that own `T[]` memory.
//
// A buffer object's first word is the element address (compiled code reads it to make the
// {address, owner} pair). Host memory lives inside the object itself (one collected, never
// scanned block, 64-byte aligned data), so it is reclaimed with the last `T[]` owning it.
// Device memory (a GPU in use) is held by a small object whose finalizer frees it; without a
// GPU, device buffers are host buffers (12.4). Copies and reads wait for the calling thread's
// launches (the CUDA glue does; CPU launches are complete when nv_launch returns).
#include <gc.h>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "gc/alloc.h"

namespace {

constexpr size_t kAlign = 64;

void free_device(void* obj, void*) {
    NvBuffer* b = (NvBuffer*)obj;
    void* p = b->addr;
    b->addr = nullptr;
    nv_cuda_free(p);
}

NvBuffer* new_buffer(int64_t bytes, int32_t device) {
    if (device && nv_cuda_active()) {
        NvBuffer* b = (NvBuffer*)rt_alloc_atomic(sizeof(NvBuffer));
        b->addr = nv_cuda_alloc(bytes > 0 ? bytes : 1);
        b->bytes = bytes;
        b->device = 1;
        GC_REGISTER_FINALIZER_NO_ORDER(b, free_device, nullptr, nullptr, nullptr);
        return b;
    }
    size_t head = (sizeof(NvBuffer) + kAlign - 1) & ~(kAlign - 1);
    char* raw = (char*)rt_alloc_atomic_uninit(head + (size_t)bytes + kAlign);
    NvBuffer* b = (NvBuffer*)raw;
    uintptr_t data = ((uintptr_t)raw + head + kAlign - 1) & ~(uintptr_t)(kAlign - 1);
    b->addr = (void*)data;
    b->bytes = bytes;
    b->device = 0;
    memset(b->addr, 0, (size_t)bytes);
    return b;
}

// Bytes per element: a buffer of buffers holds addresses alone (3.4); an array slot of a
// buffer type holds {address, owner}.
int64_t buf_elem_size(const NvType* t) { return t->kind == NV_BUFFER ? 8 : t->size; }

void copy_bytes(void* dst, const void* src, int64_t bytes) {
    if (bytes <= 0) return;
    if (nv_cuda_active()) nv_cuda_copy(dst, src, bytes);
    else memmove(dst, src, (size_t)bytes);
}

}  // namespace

extern "C" NvBuffer* nv_buffer_new(int64_t n, int64_t elem_size, int32_t device) {
    if (n < 0) rt_panicf("buffer of negative size %lld", (long long)n);
    int64_t bytes;
    if (__builtin_mul_overflow(n, elem_size, &bytes)) rt_panic("out of memory");
    return new_buffer(bytes, device);
}

extern "C" NvBuffer* nv_buffer_from_array(const NvArray* a, const NvType* elem, int32_t device) {
    int64_t n = a ? a->len : 0;
    int64_t es = buf_elem_size(elem);
    NvBuffer* b = new_buffer(n * es, device);
    if (n == 0) return b;
    if (elem->kind == NV_BUFFER) {          // {address, owner} slots -> addresses
        void** tmp = (void**)rt_alloc_atomic_uninit((size_t)n * 8);
        for (int64_t i = 0; i < n; i++) tmp[i] = ((void* const*)a->data)[2 * i];
        copy_bytes(b->addr, tmp, n * 8);
    } else {
        copy_bytes(b->addr, a->data, n * es);
    }
    return b;
}

extern "C" NvArray* nv_buffer_to_array(const void* addr, int64_t n, const NvType* elem) {
    if (n < 0) rt_panicf("to_array of negative count %lld", (long long)n);
    if (n > 0 && !addr) rt_panic("to_array of nil buffer");
    NvArray* a = nv_array_new(elem, n);
    if (n == 0) return a;
    if (elem->kind == NV_BUFFER) {
        void** tmp = (void**)rt_alloc_atomic_uninit((size_t)n * 8);
        copy_bytes(tmp, addr, n * 8);
        for (int64_t i = 0; i < n; i++) {
            ((void**)a->data)[2 * i] = tmp[i];      // owner nil: memory of unknown origin
            ((void**)a->data)[2 * i + 1] = nullptr;
        }
    } else {
        copy_bytes(a->data, addr, n * elem->size);
    }
    return a;
}

extern "C" void nv_buffer_copy(void* dst, const void* src, int64_t n, int64_t elem_size) {
    if (n < 0) rt_panicf("copy of negative count %lld", (long long)n);
    if (n == 0) return;
    if (!dst || !src) rt_panic(!dst ? "copy to nil buffer" : "copy from nil buffer");
    copy_bytes(dst, src, n * elem_size);
}
