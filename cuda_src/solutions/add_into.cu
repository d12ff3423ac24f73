// Solution: add x into y, y[i] += x[i] for every i < n, with a grid-stride loop.
//
// Thread t of the grid handles t, t + stride, t + 2 * stride, ... below n, where stride is the
// number of threads in the grid: every element once, whatever the grid.

__global__ void add_into(const float *x, float *y, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] += x[i];
}
