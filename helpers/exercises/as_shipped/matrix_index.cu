// Exercise (notebook 02): 2D indexing of a row-major matrix.
//
// a and out are rows x cols matrices stored row-major: element (row, col) is at row * cols + col.
// Compute, for every element,
//     out[row][col] = a[row][col] * col_scale[col] + row_offset[row]
// which is NumPy's  out = a * col_scale + row_offset[:, None].
//
// The launch uses a 2D grid: x runs along a row (over the columns), y down the matrix
// (over the rows). With blocks of 16 x 16 threads:
//     block = (16, 16, 1), grid = (ceil(cols / 16), ceil(rows / 16))
// and rows and cols are not multiples of 16, so the grid sticks out past both edges.
// (The checker also tries blocks of 32 x 8: use blockDim, don't write 16.)
//
// Check it in the notebook with:  check_matrix_index()

__global__ void scale_shift(const float *a, const float *col_scale, const float *row_offset,
                            float *out, int rows, int cols)
{
    // TODO 1: which column and which row is this thread's? Use blockIdx, blockDim and threadIdx
    //         (x for the column, y for the row).
    int col = 0;   // TODO 1
    int row = 0;   // TODO 1

    // TODO 2: the grid is rounded up to whole blocks, so some threads are outside the matrix:
    //         make them do nothing.

    // TODO 3: is this the right place in memory for element (row, col)?
    int i = 0;     // TODO 3
    out[i] = a[i] * col_scale[col] + row_offset[row];
}
