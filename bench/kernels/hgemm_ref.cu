// The GPU reference of issue 20's HGEMM: an nvcc-built mma.sync kernel with the tiling of
// bench/kernels/hgemm.nv (the seed's structure): C = A x B^T, A M x K and B N x K bf16
// row-major (K contiguous, as the seed's x and y), C M x N f32 row-major.
//
// Block tile 128 x 128 x 32, 8 warps as 2 (M) x 4 (N), each warp 64 x 32: 4 x 4 mma.m16n8k16
// per 16 of K. Tiles of A and B go global -> shared by cp.async.ca (16 bytes a thread, two
// stages: the next K tile is in flight while the current one is multiplied), shared ->
// registers by ldmatrix.x4, with rows padded to 40 elements (80 bytes) so that the 8 rows one
// ldmatrix reads fall in 8 different 16-byte bank groups. M and N must be multiples of 128,
// K of 32 (bench/kernels/hgemm_gpu.py runs 4096^3); no edge handling, it is a timing reference.
//
// Built by bench/kernels/hgemm_gpu.py with `nvcc -ptx -arch=compute_80` (PTX JIT-compiled by
// the driver, as Neve's PTX is) and checked by tests/kernels/test_hgemm_ref.py with ptxas for
// sm_80 and sm_90.
#include <stdint.h>

namespace {

typedef uint16_t bf16;   // bits only: no bf16 arithmetic here, and no cuda_bf16.h (needs CCCL)
constexpr int BM = 128, BN = 128, BK = 32, PAD = 8, LD = BK + PAD;   // LD: shared row, elements
constexpr int WARPS_M = 2, WARPS_N = 4, THREADS = 32 * WARPS_M * WARPS_N;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;                  // 64 x 32 per warp
constexpr int MT = WM / 16, NT = WN / 8;                             // 4 x 4 mma tiles

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}

__device__ __forceinline__ void mma_bf16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// One K tile of A and B (BM and BN rows of BK elements: 4 chunks of 16 bytes a row) into a
// stage: 2 x 128 x 4 chunks, 4 per thread.
__device__ __forceinline__ void load_stage(bf16 (*sa)[LD], bf16 (*sb)[LD],
                                           const bf16* A, const bf16* B,
                                           int K, int k0) {
    for (int c = threadIdx.x; c < BM * 4; c += THREADS) {
        int row = c / 4, col = (c % 4) * 8;
        cp_async16(&sa[row][col], A + (size_t)row * K + k0 + col);
        cp_async16(&sb[row][col], B + (size_t)row * K + k0 + col);
    }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
hgemm_ref(const bf16* A, const bf16* B, float* C, int M, int N, int K) {
    __shared__ __align__(16) bf16 sa[2][BM][LD], sb[2][BN][LD];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp % WARPS_M, wn = warp / WARPS_M;
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN * K;

    float acc[MT][NT][4] = {};
    const int tiles = K / BK;
    load_stage(sa[0], sb[0], A, B, K, 0);
    asm volatile("cp.async.commit_group;\n");
    for (int t = 0; t < tiles; t++) {
        const int s = t & 1;
        if (t + 1 < tiles) {                 // next tile in flight while this one computes
            load_stage(sa[s ^ 1], sb[s ^ 1], A, B, K, (t + 1) * BK);
            asm volatile("cp.async.commit_group;\n");
            asm volatile("cp.async.wait_group 1;\n");
        } else {
            asm volatile("cp.async.wait_group 0;\n");
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            uint32_t a[MT][4], b[NT][2];
            for (int i = 0; i < MT; i++)     // lanes 0-15: rows, k 0-7; lanes 16-31: k 8-15
                ldmatrix_x4(a[i], &sa[s][wm * WM + i * 16 + lane % 16][kk + (lane / 16) * 8]);
            for (int j = 0; j < NT; j += 2) {  // two n tiles a load: (n tile, k half) per 8 lanes
                uint32_t r[4];
                ldmatrix_x4(r, &sb[s][wn * WN + (j + lane / 16) * 8 + lane % 8]
                                   [kk + ((lane / 8) % 2) * 8]);
                b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
            }
            for (int i = 0; i < MT; i++)
                for (int j = 0; j < NT; j++) mma_bf16(acc[i][j], a[i], b[j]);
        }
        __syncthreads();                     // the stage is overwritten two tiles on
    }

    const int g = lane / 4, tg = lane % 4;
    for (int i = 0; i < MT; i++)
        for (int j = 0; j < NT; j++) {
            int row = blockIdx.y * BM + wm * WM + i * 16 + g;
            int col = blockIdx.x * BN + wn * WN + j * 8 + tg * 2;
            *(float2*)&C[(size_t)row * N + col] = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2*)&C[(size_t)(row + 8) * N + col] = make_float2(acc[i][j][2], acc[i][j][3]);
        }
    (void)M;
}
