// Exercise (notebook 07): the dot product x . y = x[0]*y[0] + x[1]*y[1] + ... + x[n-1]*y[n-1],
// in one launch, with warp shuffles.
//
// The checker sets *result to 0, then launches dot with blocks of any multiple of 32 threads (up
// to 1024) and grids of any size: often far fewer threads than elements, sometimes more. The
// kernel must add the whole dot product to *result. The plan (reduce_grid_stride in
// cuda_src/reduction.cu sums one array the same way):
//
//   1. each thread adds up x[i] * y[i] for its elements: a grid-stride loop over every i < n;
//   2. each warp adds its 32 threads' sums with __shfl_down_sync (write warp_sum below);
//   3. lane 0 of each warp writes its warp's sum to warp_sums[warp]; after a __syncthreads(), the
//      first warp adds those up with warp_sum (only the block's blockDim.x / 32 warp sums: its
//      other lanes add 0), and its lane 0 adds the block's sum to *result with atomicAdd. One
//      atomic a block.
//
// As shipped it compiles and runs, but only thread 0 of each block adds its own x[i] * y[i].
//
// Check your kernel in the notebook with:
//   from helpers.exercises.dot_product import check_dot
//   check_dot()

__device__ float warp_sum(float v)
{
    // TODO: add v over the warp's 32 lanes, so that lane 0 ends with their sum:
    // v += __shfl_down_sync(0xffffffff, v, offset) for offset = 16, 8, 4, 2, 1.
    return v;
}

__global__ void dot(const float *x, const float *y, float *result, int n)
{
    // TODO 1: a grid-stride loop (this counts one element a thread, and only in the first pass)
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // TODO 1
    float v = i < n ? x[i] * y[i] : 0.0f;    // TODO 1

    v = warp_sum(v);

    // TODO 3: warp_sums in shared memory, a barrier, the first warp adds them, one atomicAdd
    if (threadIdx.x == 0)      // TODO 3
        atomicAdd(result, v);  // TODO 3
}
