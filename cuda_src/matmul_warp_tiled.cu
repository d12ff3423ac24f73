// 4. Warp tiled: matmul.cu's register-tiled kernel, one level of tiling more, C = A B.
//
// A is M x K, B is K x N, C is M x N, floats, row after row (as in matmul.cu). A block of
// WT_THREADS threads computes a WT_BM x WT_BN tile of C; each of its warps a WT_WM x WT_WN part of
// that tile; each thread of a warp WT_WMITER x WT_WNITER small WT_TM x WT_TN pieces of the warp's
// part, held in registers. Launch with block=(WT_THREADS, 1, 1) and
// grid=(ceil(N / WT_BN), ceil(M / WT_BM)). Any M, K and N work.
//
// What each level adds to the register-tiled kernel:
//  - The warp's part of C is one contiguous WT_WM x WT_WN rectangle, so its 32 threads read few
//    distinct addresses of the shared tiles at each k: the same float4 for a row's threads (a
//    broadcast); the float4 reads of a quarter-warp, served together, touch a bank once at most.
//  - Double buffering: two copies of each shared tile. While the block multiplies with one, the
//    next tile's loads are in flight into registers and then stored into the other copy, so the
//    loop needs one __syncthreads() a tile instead of two.
//  - Global memory is read 16 bytes at a time (float4) where a row's length is a multiple of 4
//    floats, as in matmul.cu; A's tile is stored transposed (As[k][row]) so that the reads of
//    the inner loop are float4s too.
// The sizes are compile-time constants: compile with -DWT_BM=... and the others to try other
// shapes (bench/sgemm_sweep.py tries several on a GPU). These defaults were the fastest of the
// eight it tried on the H200 at 4096 x 4096 the first time (later sweeps put 128 x 256 tiles
// level with them or at most 0.6 points ahead, within a run's noise: bench/RESULTS.md): a block
// of 256 threads (8 warps of 64 x 32), each thread 8 x 8 elements of C in two pieces of 8 x 4,
// 128 registers.
#ifndef WT_BM
#define WT_BM 128
#endif
#ifndef WT_BN
#define WT_BN 128
#endif
#ifndef WT_BK
#define WT_BK 16
#endif
#ifndef WT_WM
#define WT_WM 64
#endif
#ifndef WT_WN
#define WT_WN 32
#endif
#ifndef WT_WNITER
#define WT_WNITER 2
#endif
#ifndef WT_TM
#define WT_TM 8
#endif
#ifndef WT_TN
#define WT_TN 4
#endif
#ifndef WT_MIN_BLOCKS
#define WT_MIN_BLOCKS 2
#endif
#define WT_THREADS ((WT_BM / WT_WM) * (WT_BN / WT_WN) * 32)
#define WT_WMITER ((WT_WM * WT_WN) / (32 * WT_TM * WT_TN * WT_WNITER))
#define WT_WSUBM (WT_WM / WT_WMITER)        // rows of one of a warp's pieces
#define WT_WSUBN (WT_WN / WT_WNITER)        // columns of one
#define WT_A_PAD 4                          // keeps the transposing stores of A 2-way at most
#define WT_A_LOADS (WT_BM * WT_BK / 4 / WT_THREADS)   // float4s of A's tile a thread loads
#define WT_B_LOADS (WT_BK * WT_BN / 4 / WT_THREADS)   // and of B's

static_assert(WT_WMITER >= 1 && WT_WMITER * 32 * WT_TM * WT_TN * WT_WNITER == WT_WM * WT_WN,
              "a warp's WT_WM x WT_WN part must split into whole pieces of WT_TM x WT_TN for "
              "each of its 32 threads, WT_WNITER pieces a row: change WT_WNITER");
static_assert(WT_A_LOADS >= 1 && WT_B_LOADS >= 1 && WT_TM % 4 == 0 && WT_TN % 4 == 0,
              "each thread loads whole float4s of both tiles, and reads its TM and TN in "
              "float4s: make the tiles larger or the block smaller");

// M[r][c .. c+3] of a rows x cols matrix, 0 past its edges (as matmul.cu's load4).
__device__ __forceinline__ float4 wt_load4(const float *m, int rows, int cols, int r, int c,
                                           bool vec)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows)
        return v;
    const float *p = m + (size_t)r * cols + c;
    if (vec && c + 3 < cols)
        return *reinterpret_cast<const float4 *>(p);
    if (c < cols)     v.x = p[0];
    if (c + 1 < cols) v.y = p[1];
    if (c + 2 < cols) v.z = p[2];
    if (c + 3 < cols) v.w = p[3];
    return v;
}

__global__ void __launch_bounds__(WT_THREADS, WT_MIN_BLOCKS)
matmul_warp_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ __align__(16) float As[2][WT_BK][WT_BM + WT_A_PAD];   // A's tile, transposed
    __shared__ __align__(16) float Bs[2][WT_BK][WT_BN];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int row0 = blockIdx.y * WT_BM, col0 = blockIdx.x * WT_BN;
    const int warp_row = warp / (WT_BN / WT_WN), warp_col = warp % (WT_BN / WT_WN);
    const int lane_row = lane / (WT_WSUBN / WT_TN), lane_col = lane % (WT_WSUBN / WT_TN);
    const bool vec_a = K % 4 == 0, vec_b = N % 4 == 0;

    float acc[WT_WMITER * WT_TM][WT_WNITER * WT_TN] = {};
    float4 a_next[WT_A_LOADS], b_next[WT_B_LOADS];

    // Thread t loads float4 number t + i * WT_THREADS of each tile: of A's WT_BM x WT_BK tile,
    // row e / (WT_BK / 4) and columns (e % (WT_BK / 4)) * 4 + 0..3; of B's, likewise by rows
    // of WT_BN.
    auto load = [&](int k0) {
#pragma unroll
        for (int i = 0; i < WT_A_LOADS; i++) {
            int e = t + i * WT_THREADS;
            a_next[i] = wt_load4(A, M, K, row0 + e / (WT_BK / 4), k0 + (e % (WT_BK / 4)) * 4,
                                 vec_a);
        }
#pragma unroll
        for (int i = 0; i < WT_B_LOADS; i++) {
            int e = t + i * WT_THREADS;
            b_next[i] = wt_load4(B, K, N, k0 + e / (WT_BN / 4), col0 + (e % (WT_BN / 4)) * 4,
                                 vec_b);
        }
    };
    auto store = [&](int buf) {
#pragma unroll
        for (int i = 0; i < WT_A_LOADS; i++) {
            int e = t + i * WT_THREADS, r = e / (WT_BK / 4), c = (e % (WT_BK / 4)) * 4;
            As[buf][c + 0][r] = a_next[i].x;
            As[buf][c + 1][r] = a_next[i].y;
            As[buf][c + 2][r] = a_next[i].z;
            As[buf][c + 3][r] = a_next[i].w;
        }
#pragma unroll
        for (int i = 0; i < WT_B_LOADS; i++) {
            int e = t + i * WT_THREADS;
            *reinterpret_cast<float4 *>(&Bs[buf][e / (WT_BN / 4)][(e % (WT_BN / 4)) * 4]) =
                b_next[i];
        }
    };

    load(0);
    store(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += WT_BK) {
        const bool more = k0 + WT_BK < K;
        if (more)
            load(k0 + WT_BK);     // in flight while this tile is multiplied
#pragma unroll
        for (int k = 0; k < WT_BK; k++) {
            float a[WT_WMITER * WT_TM], b[WT_WNITER * WT_TN];
#pragma unroll
            for (int i = 0; i < WT_WMITER; i++)
#pragma unroll
                for (int j = 0; j < WT_TM; j += 4)
                    *reinterpret_cast<float4 *>(&a[i * WT_TM + j]) =
                        *reinterpret_cast<const float4 *>(&As[buf][k][warp_row * WT_WM +
                            i * WT_WSUBM + lane_row * WT_TM + j]);
#pragma unroll
            for (int i = 0; i < WT_WNITER; i++)
#pragma unroll
                for (int j = 0; j < WT_TN; j += 4)
                    *reinterpret_cast<float4 *>(&b[i * WT_TN + j]) =
                        *reinterpret_cast<const float4 *>(&Bs[buf][k][warp_col * WT_WN +
                            i * WT_WSUBN + lane_col * WT_TN + j]);
#pragma unroll
            for (int i = 0; i < WT_WMITER * WT_TM; i++)
#pragma unroll
                for (int j = 0; j < WT_WNITER * WT_TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        if (more)
            store(buf ^ 1);       // the other copy: its last readers finished before the
        __syncthreads();          // barrier that ended the previous tile
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < WT_WMITER; i++)
#pragma unroll
        for (int r = 0; r < WT_TM; r++) {
            int row = row0 + warp_row * WT_WM + i * WT_WSUBM + lane_row * WT_TM + r;
            if (row >= M)
                continue;
#pragma unroll
            for (int j = 0; j < WT_WNITER; j++) {
                const int col = col0 + warp_col * WT_WN + j * WT_WSUBN + lane_col * WT_TN;
                const float *v = &acc[i * WT_TM + r][j * WT_TN];
#pragma unroll
                for (int c = 0; c < WT_TN; c += 4) {
                    float *p = C + (size_t)row * N + col + c;
                    if (vec_b && col + c + 3 < N) {       // one 16-byte store
                        *reinterpret_cast<float4 *>(p) = make_float4(v[c], v[c + 1], v[c + 2],
                                                                     v[c + 3]);
                        continue;
                    }
                    for (int q = 0; q < 4 && col + c + q < N; q++)
                        p[q] = v[c + q];
                }
            }
        }
}
