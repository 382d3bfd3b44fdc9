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
double nv_cuda_event_elapsed_ms(void* start, void* end);
}

int32_t frost__c_on_device(const float* p) { return nv_cuda_owns(p) ? 1 : 0; }
int64_t frost__c_cuda_memory_allocated(void) { return nv_cuda_active() ? nv_cuda_memory_allocated() : 0; }
int64_t frost__c_cuda_memory_reserved(void) { return nv_cuda_active() ? nv_cuda_memory_reserved() : 0; }
int64_t frost__c_cuda_max_memory_allocated(void) {
    return nv_cuda_active() ? nv_cuda_max_memory_allocated() : 0;
}
void frost__c_cuda_empty_cache(void) { nv_cuda_empty_cache(); }

int64_t frost__c_cuda_event_record(void) {
    return nv_cuda_active() ? (int64_t)(intptr_t)nv_cuda_event_record() : 0;
}
double frost__c_cuda_event_elapsed_ms(int64_t start, int64_t end) {
    if (!start || !end) return 0.0;
    return nv_cuda_event_elapsed_ms((void*)(intptr_t)start, (void*)(intptr_t)end);
}
