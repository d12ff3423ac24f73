// Exercise (notebook 13): a whole product on the tensor cores, one warp a 16 x 16 tile of C.
// (Solution.)
//
// B is stored by columns, so its fragment is col_major, its tile (k / 16, tile_col) starts at
// column tile_col * 16, row k: B + tile_col * 16 * K + k, and from one column to the next is K
// elements (the leading dimension). A's tile starts at row tile_row * 16, column k, with rows of K
// elements; C's at row tile_row * 16, column tile_col * 16, with rows of N.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const half *A, const half *B, float *C, int M, int K, int N)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
    if (tile_row >= M / 16) return;      // a warp past the last tile
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tile_row * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + tile_col * 16 * K + k, K);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major);
}
