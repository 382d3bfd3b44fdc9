// Warp-level tensor-core intrinsics on the CPU (kernel/warp.h): the same elements in the same
// lanes as the PTX instructions, and mma's sums in a fixed order (docs/phase2-numerics.md).
#include <cstring>
#include "neve_rt.h"
#include "kernel/warp.h"

namespace {

// PTX fragment coordinates (PTX ISA, "Matrix fragments for mma.m16n8k16 with floating point
// type"): lane = 4 * groupID + threadID_in_group.
inline int group(int lane) { return lane >> 2; }
inline int in_group(int lane) { return lane & 3; }

inline float element(int64_t kind, uint32_t word, int half) {
    int32_t bits = (int32_t)((word >> (16 * half)) & 0xffff);
    return kind == 0 ? nv_bf16_to_f32(bits) : nv_half_to_f32(bits);
}

}  // namespace

extern "C" {

void nv_warp_ldmatrix(int64_t nmat, const void* const addr[32], uint32_t* out) {
    for (int lane = 0; lane < 32; lane++)
        for (int64_t i = 0; i < nmat; i++) {
            const char* row = (const char*)addr[8 * i + group(lane)];
            memcpy(&out[lane * nmat + i], row + 4 * in_group(lane), 4);
        }
}

void nv_warp_mma_16x8x16(int64_t kind, const uint32_t* a, const uint32_t* b, const float* c,
                         float* d) {
    float A[16][16], B[16][8], D[16][8];
    for (int lane = 0; lane < 32; lane++) {
        int g = group(lane), t = in_group(lane);
        for (int r = 0; r < 4; r++)          // a[r]: rows g (r even) / g+8 (r odd), cols +8 for r >= 2
            for (int h = 0; h < 2; h++)
                A[g + 8 * (r & 1)][2 * t + h + 8 * (r >> 1)] = element(kind, a[lane * 4 + r], h);
        for (int r = 0; r < 2; r++)          // b[r]: k = 2t+h (+8 for r = 1), n = g
            for (int h = 0; h < 2; h++)
                B[2 * t + h + 8 * r][g] = element(kind, b[lane * 2 + r], h);
        for (int r = 0; r < 4; r++)          // c[r]: row g (+8 for r >= 2), col 2t + r%2
            D[g + 8 * (r >> 1)][2 * t + (r & 1)] = c[lane * 4 + r];
    }
    // bf16 and f16 products are exact in f32 (8- and 11-bit significands); summed from C then
    // k = 0..15, each add rounded to nearest even.
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            float acc = D[m][n];
            for (int k = 0; k < 16; k++) acc += A[m][k] * B[k][n];
            D[m][n] = acc;
        }
    for (int lane = 0; lane < 32; lane++)
        for (int r = 0; r < 4; r++)
            d[lane * 4 + r] = D[group(lane) + 8 * (r >> 1)][2 * in_group(lane) + (r & 1)];
}

void nv_cp_async16(void* dst_smem, const void* src_global) { memcpy(dst_smem, src_global, 16); }

}  // extern "C"
