// Bug: a bounds guard off by one.
//
// The same y[i] = 2 x[i], with a guard that lets one thread too many through: the elements are
// 0 .. n-1, so thread i = n reads and writes one element past the end. (The fix: i < n, not <=.)

__global__ void scale_off_by_one(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        y[i] = 2.0f * x[i];
}
