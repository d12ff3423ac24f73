// Exercise (notebook 13): the last, partial tile along K. (Solution.)
//
// The loop runs while k0 < K, so the last step, with fewer than 16 columns of A left, is taken
// too; each staged element is the matrix's where its k (k0 + col for A, k0 + r for B) is below K,
// else 0, so that the tile's part past K adds nothing (and reads nothing past the matrices).
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_partial_k(const half *A, const half *B, float *C, int M, int K, int N)
{
    __shared__ __align__(32) half As[4][16][16];   // each warp's tiles
    __shared__ __align__(32) half Bs[4][16][16];
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
    if (tile_row >= M / 16) return;      // a warp past the last tile
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {   // the warp's 32 lanes stage the two tiles
            int r = i / 16, col = i % 16;
            As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f);
            Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f);
        }
        __syncwarp();
        wmma::load_matrix_sync(a, &As[w][0][0], 16);
        wmma::load_matrix_sync(b, &Bs[w][0][0], 16);
        wmma::mma_sync(c, a, b, c);
        __syncwarp();                    // the tiles are read before the next step overwrites them
    }
    wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major);
}
