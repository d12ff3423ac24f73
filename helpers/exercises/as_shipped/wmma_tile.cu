// Exercise (notebook 13): one tile on the tensor cores.
//
// C = A B for 16 x 16 matrices, computed by one warp with the warp-level matrix API:
//   A is __half, stored row after row:       A[r][k] is at A[r * 16 + k]
//   B is __half, stored COLUMN after column: B[k][c] is at B[c * 16 + k]
//   C is float, stored row after row:         C[r][c] is at C[r * 16 + c]
// (NumPy: C = A @ B.) Launch: block = (32, 1, 1), grid = (1, 1).
//
// TODO: declare the three fragments (each input's layout is how it is stored), set the
// accumulator to 0, load A and B (the leading dimension: the elements from one row, or one
// column, to the next), multiply, and store C row after row.
//
// Check it in the notebook with:  check_wmma_tile()
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_tile(const half *A, const half *B, float *C)
{
    // TODO: the fragments, fill_fragment, two load_matrix_sync, mma_sync, store_matrix_sync
}
