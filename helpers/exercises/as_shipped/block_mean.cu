// Exercise (notebook 09): a kernel with three planted bugs. Find each with the tools, fix it.
//
// subtract_block_mean takes away from every element the mean of its block of 256 elements,
//     y[i] = x[i] - (the mean of x over the block that i belongs to),
// and stores each block's mean in means[blockIdx.x]. When n is not a multiple of 256, the last
// block is partly empty: its mean is over the elements it has.
// Launch: block = (256, 1, 1), grid = ((n + 255) / 256, 1). The checker makes means with
// gpuarray.empty, as a caller who needs nothing but the kernel's results would.
//
// It compiles and runs, but it has three bugs, one for each of these:
//   - the simulator's bounds checks      (on a GPU: compute-sanitizer --tool memcheck)
//   - the race check, settings.racecheck  (compute-sanitizer --tool racecheck)
//   - the init check, settings.initcheck  (compute-sanitizer --tool initcheck)
// Run it under each (the notebook shows how), read what each says, fix the kernel, and run the
// checker. It confirms each fix on its own.
//
// Keep the kernel's name and signature as they are: the checker calls it by name.
#define BLOCK 256

__global__ void subtract_block_mean(const float *x, float *y, float *means, int n)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x;
    int first = blockIdx.x * BLOCK;
    int i = first + t;
    int count = min(BLOCK, n - first);  // the elements this block has

    tile[t] = x[i];

    if (t == 0) {
        for (int k = 0; k < count; k++)
            means[blockIdx.x] += tile[k];
        means[blockIdx.x] /= count;
    }
    __syncthreads();

    if (i < n)
        y[i] = x[i] - means[blockIdx.x];
}
