/* warp.h: warp-level tensor-core intrinsics on the CPU back end (issue 20, docs/phase2-numerics.md).
 *
 * Each call stands for one instruction executed by the 32 lanes of a warp together: the
 * arguments are lane-major arrays (index [lane][i]), addresses are given per lane. The results
 * are those of the PTX instructions (PTX ISA 8.x, "Matrix fragments for mma.m16n8k16" and
 * "ldmatrix"); the compiled kernel gathers its lanes' operands, calls once, and scatters. */
#ifndef NEVE_KERNEL_WARP_H
#define NEVE_KERNEL_WARP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ldmatrix.sync.aligned.m8n8.x{nmat}.shared.b16, nmat 1, 2 or 4 (the compiler passes no other):
 * lane 8*i+r gives the address of row r of matrix i (16 bytes, 8 b16 elements); lanes past
 * 8*nmat are not read. Lane l receives in out[l*nmat+i] the elements (l/4, 2*(l%4)) in the low
 * half and (l/4, 2*(l%4)+1) in the high half of matrix i. */
void nv_warp_ldmatrix(int64_t nmat, const void* const addr[32], uint32_t* out);

/* mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32, kind 0 bf16, 1 f16:
 * D = A x B + C with A 16x16, B 16x8 (K x N), C and D 16x8 f32, in PTX fragments:
 * a[lane*4+r] holds two A elements, b[lane*2+r] two B elements, c and d [lane*4+r] one each.
 * d may be c (accumulation in place). */
void nv_warp_mma_16x8x16(int64_t kind, const uint32_t* a, const uint32_t* b, const float* c,
                         float* d);

/* cp.async.ca.shared.global of 16 bytes, done at once on the CPU, so cp.async.commit_group and
 * cp.async.wait_group have nothing to wait for and need no runtime call. */
void nv_cp_async16(void* dst_smem, const void* src_global);

#ifdef __cplusplus
}
#endif

#endif
