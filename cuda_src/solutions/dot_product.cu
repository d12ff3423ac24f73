// Exercise solution: the dot product x . y in one launch, with warp shuffles and one atomic a block.
//
// Each thread adds up x[i] * y[i] over its elements (a grid-stride loop, so any grid covers any
// n); each warp adds its 32 threads' sums with __shfl_down_sync; lane 0 of each warp puts the
// warp's sum in shared memory; after a barrier the first warp adds those (only as many as the block
// has warps: the other lanes add 0), and its lane 0 adds the block's sum to *result.

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void dot(const float *x, const float *y, float *result, int n)
{
    __shared__ float warp_sums[32];
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int warps = blockDim.x / 32;

    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += x[i] * y[i];

    v = warp_sum(v);

    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();                       // every warp's sum is in warp_sums before warp 0 reads

    if (warp == 0) {
        v = warp_sum(lane < warps ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(result, v);          // one atomic a block
    }
}
