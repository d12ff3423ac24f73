// Solution of the first bug hunt of notebook 09: column_means with its stride fixed.
//
// Element (r, col) of a rows x cols matrix stored row after row is m[r * cols + col]: a row is
// cols floats long. The kernel stepped by rows, which is the same only for a square matrix; with
// more rows than columns its last steps land past the end of m, where the bounds checks (and
// memcheck) stop it.

__global__ void column_means(const float *m, float *means, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols)
        return;
    float sum = 0.0f;
    for (int r = 0; r < rows; r++)
        sum += m[r * cols + col];       // FIX: a row is cols floats long, not rows
    means[col] = sum / rows;
}
