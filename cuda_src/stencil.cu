// A 1D stencil: each output is the average of its input and the RADIUS inputs on either side,
//     out[i] = (in[i - RADIUS] + ... + in[i + RADIUS]) / (2 * RADIUS + 1)
// a moving average, which smooths a signal. An index past either end is clamped to the first or
// last element (the edge value repeats), so every output averages 2 * RADIUS + 1 inputs.
// Kernels 1 and 2: block=(BLOCK_SIZE, 1, 1), grid=(ceil(n / BLOCK_SIZE), 1); any n works.
// RADIUS and BLOCK_SIZE can be changed at compile time (options=["-DBLOCK_SIZE=16"]).
// Kernels 3 and 4 take the radius as an argument and any block size: grid=(ceil(n / block), 1),
// shared=4 * (block + 2 * radius) bytes.
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

// 3. The radius chosen at launch. A __shared__ array's size must be known when the kernel is
//    compiled; `extern __shared__` declares one whose size the launch gives instead, in bytes
//    (PyCUDA: shared=...): here blockDim.x + 2 * radius floats, for any block size and radius.
//    A block loads its window with a loop, since the halo may be wider than the block.
__device__ void load_window(float *s, const float *in, int n, int radius)
{
    int first = blockIdx.x * blockDim.x - radius;      // the input that goes to s[0]
    for (int k = threadIdx.x; k < blockDim.x + 2 * radius; k += blockDim.x)
        s[k] = in[clamp_index(first + k, n)];
}

__global__ void stencil_dynamic(const float *in, float *out, int n, int radius)
{
    extern __shared__ float window[];          // blockDim.x + 2 * radius floats: the launch's
    load_window(window, in, n, radius);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k <= 2 * radius; k++)      // window[threadIdx.x + radius] is in[i]
        sum += window[threadIdx.x + k];
    out[i] = sum * (1.0f / (2 * radius + 1));
}

// 4. A weighted average, its weights in constant memory: every thread of a warp reads the same
//    weight at the same time, which the constant cache serves to all 32 lanes at once. The host
//    writes them before the launch (PyCUDA: module.get_global("weights") and memcpy_htod); there
//    is room for radii up to MAX_RADIUS.
#define MAX_RADIUS 32
__constant__ float weights[2 * MAX_RADIUS + 1];

__global__ void stencil_weighted(const float *in, float *out, int n, int radius)
{
    extern __shared__ float window[];          // blockDim.x + 2 * radius floats: the launch's
    load_window(window, in, n, radius);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k <= 2 * radius; k++)
        sum += weights[k] * window[threadIdx.x + k];
    out[i] = sum;
}
