// A 1D stencil: each output is the average of its input and the RADIUS inputs on either side,
//     out[i] = (in[i - RADIUS] + ... + in[i + RADIUS]) / (2 * RADIUS + 1)
// a moving average, which smooths a signal. An index past either end is clamped to the first or
// last element (the edge value repeats), so every output averages 2 * RADIUS + 1 inputs.
// Both kernels: block=(BLOCK_SIZE, 1, 1), grid=(ceil(n / BLOCK_SIZE), 1); any n works.
// RADIUS and BLOCK_SIZE can be changed at compile time (options=["-DBLOCK_SIZE=16"]).
#ifndef RADIUS
#define RADIUS 3
#endif
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__device__ int clamp_index(int i, int n)
{
    return min(max(i, 0), n - 1);
}

// 1. Straight from global memory: each thread loads its 2 * RADIUS + 1 inputs itself, so every
//    input is loaded by 2 * RADIUS + 1 threads, each time with a request of its own.
__global__ void stencil_global(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++)
        sum += in[clamp_index(i + k, n)];
    out[i] = sum * (1.0f / (2 * RADIUS + 1));
}

// 2. Through shared memory. The block's outputs need its own BLOCK_SIZE inputs and RADIUS more on
//    either side, the *halo*: BLOCK_SIZE + 2 * RADIUS inputs, loaded into a shared array once
//    (each thread its own element; the first RADIUS threads also one element of each halo).
//    After the barrier every thread sums its window from shared memory.
__global__ void stencil_shared(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK_SIZE + 2 * RADIUS];
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    int j = threadIdx.x + RADIUS;                  // where this thread's own input goes in s
    s[j] = in[clamp_index(i, n)];
    if (threadIdx.x < RADIUS) {
        s[j - RADIUS] = in[clamp_index(i - RADIUS, n)];            // left halo
        s[j + BLOCK_SIZE] = in[clamp_index(i + BLOCK_SIZE, n)];    // right halo
    }
    __syncthreads();     // all threads get here, even those past the end: they loaded a part
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++)
        sum += s[j + k];
    out[i] = sum * (1.0f / (2 * RADIUS + 1));
}
