// Bug: an uninitialised read.
//
// One thread a row adds up the row of a matrix into sums[row]. The kernel adds to sums[row]
// as if it started at 0, but the host made sums with gpuarray.empty: device memory from
// cudaMalloc is not zeroed, so each sum starts from whatever was there. (The fix: add up in a
// local variable that starts at 0.0f and store it once, or make sums with gpuarray.zeros.)

__global__ void row_sums(const float *m, float *sums, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    for (int c = 0; c < cols; c++)
        sums[row] += m[row * cols + c];
}
