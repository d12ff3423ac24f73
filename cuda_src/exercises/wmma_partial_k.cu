// Exercise (notebook 13): the last, partial tile along K.
//
// C = A B with A M x K and B K x N, both __half, row after row; C M x N float, row after row.
// M and N are multiples of 16, but K is NOT: the last step along K has fewer than 16 columns of
// A (and rows of B). The tensor cores only take whole 16 x 16 tiles, so each warp stages its
// tiles in shared memory first, with 0 where a tile reaches past K (0 adds nothing to the sum).
// (NumPy: C = A @ B.)
// Launch: block = (128, 1, 1), four warps, each a 16 x 16 tile of C; grid = (ceil(tiles / 4), 1)
// for the (M / 16) (N / 16) tiles of C.
//
// TODO: walk along K until every column of A has been used, the last tile included; stage each
// element of the two tiles, or 0 past K.
//
// Check it in the notebook with:  check_wmma_partial_k()
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
    for (int k0 = 0; k0 + 16 <= K; k0 += 16) {  // TODO: the last, partial tile too
        for (int i = lane; i < 256; i += 32) {   // the warp's 32 lanes stage the two tiles
            int r = i / 16, col = i % 16;
            As[w][r][col] = __float2half(0.0f);  // TODO: A[tile_row * 16 + r][k0 + col], or 0 past K
            Bs[w][r][col] = __float2half(0.0f);  // TODO: B[k0 + r][tile_col * 16 + col], or 0 past K
        }
        __syncwarp();
        wmma::load_matrix_sync(a, &As[w][0][0], 16);
        wmma::load_matrix_sync(b, &Bs[w][0][0], 16);
        wmma::mma_sync(c, a, b, c);
        __syncwarp();                    // the tiles are read before the next step overwrites them
    }
    wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major);
}
