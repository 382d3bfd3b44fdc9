// The CUDA glue's internal interface between cuda.cpp (driver calls) and alloc.cpp (the caching
// allocator); not part of neve_rt.h.
#pragma once
#include <cstddef>
#include <string>

namespace nvcuda {
typedef struct Stream_st* Stream;
Stream current_stream();                            // the calling Neve thread's stream
int raw_alloc(void** p, size_t bytes);              // cuMemAlloc: 0 or the CUresult
void raw_free(void* p);                             // cuMemFree; a failure is a runtime error
void zero_async(void* p, size_t bytes, Stream s);   // ordered on s, then waits for s
std::string error_text(int r);                      // "CUDA_ERROR_X (text)"
// Pinned host memory and asynchronous copies (pinned.cpp): cuMemHostRegister / Unregister,
// cuMemcpyAsync on the calling thread's stream without a wait, events (0 or the CUresult).
int host_register(void* p, size_t bytes);
void host_unregister(void* p);
void copy_async(void* dst, const void* src, size_t bytes);   // a failure is a runtime error
void* event_now();                                  // recorded on the calling thread's stream
void event_wait_destroy(void* e);
void wait_explicit_streams();                       // gpu_stream()s with launches not waited for
}  // namespace nvcuda
