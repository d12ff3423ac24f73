// 5. Asynchronous copies: matmul_warp_tiled.cu's kernel with both tiles copied from global
// memory straight into shared memory, C = A B.
//
// The warp-tiled kernel brings the next tiles through registers: each thread loads its floats of
// them, multiplies the current tiles, then stores those floats into shared memory, A's
// transposed (As[k][row]) so that the inner loop reads a thread's rows as float4s. Those
// registers are held through the whole multiply, at a cap of 128 a thread. Since compute
// capability 8.0 a GPU can copy global memory into shared memory without them: an asynchronous
// copy (PTX's cp.async; CUDA's __pipeline_memcpy_async) of 4, 8 or 16 bytes, which the thread
// starts, forgets, and waits for later (__pipeline_commit, __pipeline_wait_prior). Such a copy
// moves bytes as they lie: it cannot transpose. So this kernel takes A already transposed, At (K x
// M, notebook 06's transpose makes it): At's rows are the rows As needs, and both tiles arrive
// 16 bytes at a time with no thread holding them. The two copies of each tile (double
// buffering), the warps' 64 x 32 parts of C and each thread's 8 x 8 elements are the warp-tiled
// kernel's.
//
// Launch with block=(256, 1, 1), grid=(ceil(N / 128), ceil(M / 128)), At = A transposed. M and N
// must be multiples of 4 (each 16-byte copy lies wholly inside a row or wholly outside it) and the
// arrays 16-byte aligned, as gpuarray's are; any K. Before compute capability 8.0 the copies are
// a load and a store each, and the kernel still computes C.
//
// cuda_pipeline_primitives.h is C++ (templates): compile this file with SourceModule(...,
// no_extern_c=True); the kernel says extern "C" itself, so that get_function finds it by its name.
#include <cuda_pipeline_primitives.h>

#define AS_TILE 128     // a block computes a 128 x 128 tile of C
#define AS_K 16         // k a tile holds
#define AS_THREADS 256  // 8 warps, each a 64 x 32 part of C: 2 rows of 4 warps

extern "C" __global__ void __launch_bounds__(AS_THREADS, 2)
matmul_async(const float *At, const float *B, float *C, int M, int K, int N)
{
    __shared__ __align__(16) float As[2][AS_K][AS_TILE];   // A's tile, k after k (At's rows)
    __shared__ __align__(16) float Bs[2][AS_K][AS_TILE];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int row0 = blockIdx.y * AS_TILE, col0 = blockIdx.x * AS_TILE;
    const int rows = warp / 4 * 64 + lane / 4 * 8;          // the thread's 8 rows of C
    const int cols = warp % 4 * 32 + lane % 4 * 4;          // and its columns: 4 here, 4 at +16

    // Thread t copies float4s t and t + 256 of each 16 x 128 tile: row e / 32, floats (e % 32) * 4
    // on. One that lies past row K, or past column M of At or N of B, is 16 zero bytes: read from
    // nowhere (zfill 16), so that the sums need no test.
    auto copy_tiles = [&](int k0, int buf) {
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const int e = t + i * AS_THREADS, r = e / 32, c = e % 32 * 4;
            const bool a_in = k0 + r < K && row0 + c < M, b_in = k0 + r < K && col0 + c < N;
            __pipeline_memcpy_async(&As[buf][r][c], a_in ? At + (size_t)(k0 + r) * M + row0 + c : At,
                                    16, a_in ? 0 : 16);
            __pipeline_memcpy_async(&Bs[buf][r][c], b_in ? B + (size_t)(k0 + r) * N + col0 + c : B,
                                    16, b_in ? 0 : 16);
        }
        __pipeline_commit();
    };

    float acc[8][8] = {};
    copy_tiles(0, 0);
    __pipeline_wait_prior(0);   // this thread's copies have landed,
    __syncthreads();            // and so have every thread's
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += AS_K) {
        const bool more = k0 + AS_K < K;
        if (more)               // into the other copy, whose readers passed the last barrier
            copy_tiles(k0 + AS_K, buf ^ 1);   // in flight while this tile is multiplied
#pragma unroll
        for (int k = 0; k < AS_K; k++) {
            float a[8], b[8];
            *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&As[buf][k][rows]);
            *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&As[buf][k][rows + 4]);
            *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&Bs[buf][k][cols]);
            *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&Bs[buf][k][cols + 16]);
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __pipeline_wait_prior(0);   // the next tiles have landed (none were asked for at the end)
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = row0 + rows + i;
        if (row >= M)
            continue;
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int col = col0 + cols + half * 16;   // N % 4 == 0: the float4 is in or out
            if (col < N)
                *reinterpret_cast<float4 *>(C + (size_t)row * N + col) = make_float4(
                    acc[i][half * 4], acc[i][half * 4 + 1], acc[i][half * 4 + 2], acc[i][half * 4 + 3]);
        }
    }
}
