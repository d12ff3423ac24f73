// Exercise (notebook 09): a bug hunt. One bug, planted; find it with the tools, and fix it.
//
// column_means stores in means[col] the mean of column col of m, a rows x cols matrix of floats
// stored row after row (NumPy: means = m.mean(axis=0)): one thread a column, so that the 32
// threads of a warp read 32 neighbouring floats of a row at each step (coalesced).
// Launch: block = (B, 1, 1), grid = ((cols + B - 1) / B, 1).
//
// It compiles, and on a square matrix it even gives the right means. On others it does not, and
// on a matrix with more rows than columns it reads outside m. Run it on one (say 100 x 37) on
// the simulator, whose bounds checks name the thread, the element and the line of the first
// access outside an array (on a GPU: compute-sanitizer --tool memcheck); or printf, from one
// thread, the index it reads at each step (section 3). Fix the bug, then run the checker.
//
// Keep the kernel's name and signature as they are: the checker calls it by name.

__global__ void column_means(const float *m, float *means, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols)
        return;
    float sum = 0.0f;
    for (int r = 0; r < rows; r++)
        sum += m[r * rows + col];
    means[col] = sum / rows;
}
