// Exercise (notebook 02): 2D indexing of a row-major matrix.  SOLUTION
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

__global__ void scale_shift(const float *a, const float *col_scale, const float *row_offset,
                            float *out, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // x: which column
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // y: which row

    if (row >= rows || col >= cols)                   // the grid sticks out past both edges
        return;

    int i = row * cols + col;                         // row-major: a row is cols elements long
    out[i] = a[i] * col_scale[col] + row_offset[row];
}
