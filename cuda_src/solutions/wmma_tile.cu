// Exercise (notebook 13): one tile on the tensor cores. (Solution.)
//
// C = A B for 16 x 16 matrices, one warp: A __half row after row, B __half column after column,
// C float row after row. B's fragment is declared col_major, since that is how B is stored; the
// leading dimension of each is 16 (a row of A, a column of B, a row of C).
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_tile(const half *A, const half *B, float *C)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, A, 16);
    wmma::load_matrix_sync(fb, B, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);
}
