// Frost's view of device memory: thin wrappers over the runtime's caching allocator (neve_rt.h,
// nv_cuda_*), which is linked into every Neve program.
#include <cstdint>
#include "frost.h"

extern "C" {
bool nv_cuda_active(void);
bool nv_cuda_owns(const void* p);
int64_t nv_cuda_memory_allocated(void);
int64_t nv_cuda_memory_reserved(void);
int64_t nv_cuda_max_memory_allocated(void);
void nv_cuda_empty_cache(void);
void* nv_cuda_event_record(void);
void* nv_cuda_pinned_alloc(int64_t bytes);
bool nv_cuda_is_pinned(const void* p);
bool nv_cuda_copy_async(void* dst, const void* src, int64_t bytes);
void nv_cuda_pinned_wait(const void* p);
double nv_cuda_event_elapsed_ms(void* start, void* end);
}

int32_t frost__c_on_device(const float* p) { return nv_cuda_owns(p) ? 1 : 0; }
int64_t frost__c_cuda_memory_allocated(void) { return nv_cuda_active() ? nv_cuda_memory_allocated() : 0; }
int64_t frost__c_cuda_memory_reserved(void) { return nv_cuda_active() ? nv_cuda_memory_reserved() : 0; }
int64_t frost__c_cuda_max_memory_allocated(void) {
    return nv_cuda_active() ? nv_cuda_max_memory_allocated() : 0;
}
void frost__c_cuda_empty_cache(void) { nv_cuda_empty_cache(); }

float* frost__c_alloc_pinned(int64_t n) {
    return (float*)nv_cuda_pinned_alloc((n > 0 ? n : 1) * (int64_t)sizeof(float));
}
int64_t* frost__c_alloc_pinned_i64(int64_t n) {
    return (int64_t*)nv_cuda_pinned_alloc((n > 0 ? n : 1) * (int64_t)sizeof(int64_t));
}
int32_t frost__c_copy_async(float* dst, const float* src, int64_t n) {
    return nv_cuda_copy_async(dst, src, n * (int64_t)sizeof(float)) ? 1 : 0;
}
int32_t frost__c_copy_async_i64(int64_t* dst, const int64_t* src, int64_t n) {
    return nv_cuda_copy_async(dst, src, n * (int64_t)sizeof(int64_t)) ? 1 : 0;
}
int32_t frost__c_is_pinned(const float* p) { return nv_cuda_is_pinned(p) ? 1 : 0; }
void frost__c_pinned_wait(const float* p) { nv_cuda_pinned_wait(p); }
void frost__c_pinned_wait_i64(const int64_t* p) { nv_cuda_pinned_wait(p); }

int64_t frost__c_cuda_event_record(void) {
    return nv_cuda_active() ? (int64_t)(intptr_t)nv_cuda_event_record() : 0;
}
double frost__c_cuda_event_elapsed_ms(int64_t start, int64_t end) {
    if (!start || !end) return 0.0;
    return nv_cuda_event_elapsed_ms((void*)(intptr_t)start, (void*)(intptr_t)end);
}
