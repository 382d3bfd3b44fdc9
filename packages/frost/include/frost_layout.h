// Frost's blocked tensor layouts (native/dnnl_layout.cpp, native/blocked_ops.cpp; blocked.nv).
// A layout is an int64_t handle: 0 plain NCHW, a positive value one of oneDNN's blocked formats
// (nChw8c or nChw16c, channels a multiple of the block, so storage is exactly numel floats) as
// conv2d's primitives chose it (frost__c_conv2d_layout). Buffers are float32, never kept.
#pragma once
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

// src (layout from) into dst (layout to), both of logical shape (n, c, h, w).
void frost__c_layout_reorder(int64_t from, const float* src, int64_t to, float* dst, int64_t n,
                             int64_t c, int64_t h, int64_t w);
// The channel block of a layout (1 for plain).
int64_t frost__c_layout_block(int64_t layout);
// y = relu(a + b) over n floats (any layout, the same for all three; relu as elementwise.nv).
void frost__c_add_relu(const float* a, const float* b, float* y, int64_t n);
// gx = g where y > 0, else 0 (ReLU's backward from its output).
void frost__c_relu_mask(const float* g, const float* y, float* gx, int64_t n);
// y = a + b over n floats.
void frost__c_add_n(const float* a, const float* b, float* y, int64_t n);

#ifdef __cplusplus
}
#endif
