// Exercise (notebook 13): a whole product on the tensor cores, one warp a 16 x 16 tile of C.
//
// C = A B with
//   A: M x K __half, row after row:       A[r][k] is at A[r * K + k]
//   B: K x N __half, COLUMN after column: B[k][c] is at B[c * K + k] (as a linear layer's weights)
//   C: M x N float, row after row:        C[r][c] is at C[r * N + c]
// M, N and K are multiples of 16, and not equal. (NumPy: C = A @ B.)
// Launch: block = (128, 1, 1), four warps; grid = (ceil(tiles / 4), 1) for the (M / 16) (N / 16)
// tiles of C, so the last block may have warps past the last tile: they return at once.
//
// Warp w computes tile (w / (N / 16), w % (N / 16)) of C, walking along K 16 at a time, as
// section 3's kernel does; but B is stored by columns here.
// TODO: B's layout; each step's loads (where each tile starts, and the leading dimension: the
// elements from one row, or column, to the next); the store of C's tile.
//
// Check it in the notebook with:  check_wmma_gemm()
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const half *A, const half *B, float *C, int M, int K, int N)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tile_row = warp / (N / 16);      // TODO: and tile_col = warp % (N / 16), for B and C
    if (tile_row >= M / 16) return;      // a warp past the last tile
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;  // TODO: B's layout
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k = 0; k < K; k += 16) {
        // TODO: load a from A's tile (tile_row, k / 16) and b from B's tile (k / 16, tile_col)
        wmma::mma_sync(c, a, b, c);
    }
    // TODO: store c into C's tile (tile_row, tile_col)
}
