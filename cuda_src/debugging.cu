// debugging.cu: notebook 09's kernels that are not bugs: printf and assert, and what they cost.
// The first three compute y = 2x, one thread an element, so their times compare; where_am_i prints.

// The baseline: y = 2x and nothing else.
__global__ void scale_plain(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
}

// The same with a printf: thread i prints a line when every > 0 and i is a multiple of every.
// With every = 0 the printf is compiled in but never runs.
__global__ void scale_printf(const float *x, float *y, int n, int every)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    y[i] = 2.0f * x[i];
    if (every > 0 && i % every == 0)
        printf("element %d: x = %f\n", i, x[i]);
}

// The same with an assert: a NaN in x (the only value not equal to itself) stops the kernel.
// Compiled with -DNDEBUG, the assert is gone.
__global__ void scale_checked(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(x[i] == x[i]);
        y[i] = 2.0f * x[i];
    }
}

// Who prints first? Lane 0 of every warp says where it is.
__global__ void where_am_i()
{
    if (threadIdx.x % 32 == 0)
        printf("block %d, warp %d\n", blockIdx.x, threadIdx.x / 32);
}
