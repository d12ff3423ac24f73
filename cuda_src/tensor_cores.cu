// Tensor cores through the warp-level matrix API (nvcuda::wmma, #include <mma.h>): notebook 13.
//
// A warp multiplies small matrices as one: it loads a 16 x 16 tile of A and one of B into
// *fragments* (each of its 32 lanes holds some of the elements), mma_sync multiplies them on the
// tensor cores and adds the product to an accumulator fragment, and store_matrix_sync writes the
// accumulator back to memory. Inputs are 16-bit (__half or __nv_bfloat16) or TF32 (floats with
// 10 bits of fraction); the products are added in float. The tensor cores take FP16 from compute
// capability 7.0 (Volta; a T4 is 7.5), BF16 and TF32 only from 8.0 (Ampere): their kernels keep
// their bodies inside #if __CUDA_ARCH__ >= 800, and before that stop with __trap() (notebook 13
// does not launch them there).
//
// mma.h is C++ (templates): compile this file with SourceModule(..., no_extern_c=True); each
// kernel says extern "C" itself, so that get_function finds it by its plain name.
#include <mma.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
using namespace nvcuda;

// 1. One tile: D = A B for 16 x 16 matrices, A and B __half, row after row; D float. One warp.
extern "C" __global__ void one_tile(const half *A, const half *B, float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> d;
    wmma::fill_fragment(d, 0.0f);
    wmma::load_matrix_sync(a, A, 16);   // 16: the leading dimension, elements from one row to the next
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(d, a, b, d);          // d = a b + d, on the tensor cores
    wmma::store_matrix_sync(D, d, 16, wmma::mem_row_major);
}

// Which lane holds which element of an accumulator: every lane fills its fragment with its own
// lane number, and the warp stores the fragment as a 16 x 16 matrix. One warp.
extern "C" __global__ void who_holds(float *lanes)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> d;
    wmma::fill_fragment(d, (float)(threadIdx.x % 32));
    wmma::store_matrix_sync(lanes, d, 16, wmma::mem_row_major);
}

// 2. A whole product, one warp a 16 x 16 tile of C, its fragments loaded straight from global
//    memory: C (M x N, float) = A (M x K) B (K x N), both row after row. M, N and K multiples of
//    16. Launch with any block of a multiple of 32 threads and enough warps for the
//    (M / 16) (N / 16) tiles.
template <typename T>
__device__ void warp_tiles(const T *A, const T *B, float *C, int M, int K, int N)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
    if (tile_row >= M / 16) return;      // the whole warp returns: a warp's lanes share a tile
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tile_row * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + k * N + tile_col * 16, N);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major);
}

extern "C" __global__ void warp_tiles_fp16(const half *A, const half *B, float *C, int M, int K, int N)
{
    warp_tiles(A, B, C, M, K, N);
}

extern "C" __global__ void warp_tiles_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C,
                                           int M, int K, int N)
{
#if __CUDA_ARCH__ >= 800
    warp_tiles(A, B, C, M, K, N);
#else
    __trap();                            // no BF16 tensor cores before compute capability 8.0
#endif
}

// The same in TF32: float inputs, tiles of 16 x 16 x 8, each element rounded to TF32's 10 bits
// of fraction (__float_to_tf32) before the product. M and N multiples of 16, K of 8.
extern "C" __global__ void warp_tiles_tf32(const float *A, const float *B, float *C, int M, int K, int N)
{
#if __CUDA_ARCH__ >= 800
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
    if (tile_row >= M / 16) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 8) {
        wmma::load_matrix_sync(a, A + tile_row * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + k * N + tile_col * 16, N);
        for (int i = 0; i < a.num_elements; i++) a.x[i] = wmma::__float_to_tf32(a.x[i]);
        for (int i = 0; i < b.num_elements; i++) b.x[i] = wmma::__float_to_tf32(b.x[i]);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major);
#else
    __trap();                            // no TF32 tensor cores before compute capability 8.0
#endif
}

// 3. Tiles in shared memory. A block of 256 threads (8 warps) computes a 128 x 128 tile of C,
//    walking along K 64 at a time: its threads copy a 128 x 64 tile of A and a 64 x 128 tile of
//    B into shared memory (16 bytes a load, coalesced), and each warp multiplies a 32 x 64
//    rectangle of C's tile from there: 2 x 4 accumulator fragments, for which it loads 2
//    fragments of A and 4 of B at each of the tile's 4 steps of 16 (each fragment of A serves 4
//    products, each of B 2). While the tensor cores work on one tile, the next one's loads are
//    already in flight, into registers (as the register-tiled kernel of notebook 08 does).
//    A shared row is padded by SKEW elements (16 bytes), so that the 8 rows a fragment load
//    reads at once start in different banks.
//    Launch with block=(256, 1, 1), grid=(N / 128, M / 128); M and N multiples of 128, K of 64.
#define BM 128
#define BN 128
#define BK 64
#define SKEW 8
#define COPIES (BM * BK / 8 / 256)   // 16-byte pieces of each tile a thread copies: 4

template <typename T>
__device__ void shared_tiles(const T *A, const T *B, float *C, int M, int K, int N,
                             T (*As)[BK + SKEW], T (*Bs)[BN + SKEW])   // the kernel's __shared__ tiles
{
    const int warp = threadIdx.x / 32, warp_row = warp / 2, warp_col = warp % 2;   // 4 x 2 warps
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    // the 16-byte pieces this thread copies: rows a_row + 32 p of A's tile (8 pieces a row),
    // rows b_row + 16 p of B's (16 pieces a row), for p = 0 .. COPIES - 1
    const int a_row = threadIdx.x / (BK / 8), a_col = (threadIdx.x % (BK / 8)) * 8;
    const int b_row = threadIdx.x / (BN / 8), b_col = (threadIdx.x % (BN / 8)) * 8;
    uint4 next_a[COPIES], next_b[COPIES];

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[2][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) wmma::fill_fragment(c[i][j], 0.0f);

    for (int p = 0; p < COPIES; p++) {   // the first tiles
        next_a[p] = *(const uint4 *)&A[(row0 + a_row + 32 * p) * K + a_col];
        next_b[p] = *(const uint4 *)&B[(b_row + 16 * p) * N + col0 + b_col];
    }
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int p = 0; p < COPIES; p++) {
            *(uint4 *)&As[a_row + 32 * p][a_col] = next_a[p];
            *(uint4 *)&Bs[b_row + 16 * p][b_col] = next_b[p];
        }
        __syncthreads();
        if (k0 + BK < K) {               // the next tiles' loads, in flight during the products
            for (int p = 0; p < COPIES; p++) {
                next_a[p] = *(const uint4 *)&A[(row0 + a_row + 32 * p) * K + k0 + BK + a_col];
                next_b[p] = *(const uint4 *)&B[(k0 + BK + b_row + 16 * p) * N + col0 + b_col];
            }
        }
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b[4];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(a[i], &As[warp_row * 32 + i * 16][kk], BK + SKEW);
            for (int j = 0; j < 4; j++)
                wmma::load_matrix_sync(b[j], &Bs[kk][warp_col * 64 + j * 16], BN + SKEW);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++) wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
        }
        __syncthreads();                 // everyone is done with the tiles before they change
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            float *tile = C + (row0 + warp_row * 32 + i * 16) * N + col0 + warp_col * 64 + j * 16;
            wmma::store_matrix_sync(tile, c[i][j], N, wmma::mem_row_major);
        }
}

extern "C" __global__ void __launch_bounds__(256) shared_tiles_fp16(const half *A, const half *B, float *C,
                                                                    int M, int K, int N)
{
    __shared__ __align__(32) half As[BM][BK + SKEW];
    __shared__ __align__(32) half Bs[BK][BN + SKEW];
    shared_tiles(A, B, C, M, K, N, As, Bs);
}

extern "C" __global__ void __launch_bounds__(256) shared_tiles_bf16(const __nv_bfloat16 *A,
                                                                    const __nv_bfloat16 *B, float *C,
                                                                    int M, int K, int N)
{
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(32) __nv_bfloat16 As[BM][BK + SKEW];
    __shared__ __align__(32) __nv_bfloat16 Bs[BK][BN + SKEW];
    shared_tiles(A, B, C, M, K, N, As, Bs);
#else
    __trap();                            // no BF16 tensor cores before compute capability 8.0
#endif
}
