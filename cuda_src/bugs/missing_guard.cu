// Bug: a missing bounds guard.
//
// y[i] = 2 x[i], one thread an element. The grid is a whole number of blocks, so when n is not a
// multiple of the block size the last block has threads with no element, and nothing stops them:
// they read past the end of x and write past the end of y. (The fix: if (i < n).)

__global__ void scale_no_guard(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = 2.0f * x[i];
}
