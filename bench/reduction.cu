// A shared-memory tree reduction, for bench/simulator.py (its barrier-cost target).
//
// Each block of 256 threads loads 256 elements into shared memory, then halves the number of
// active threads at each step, every thread adding the element `stride` places above its own,
// with a __syncthreads() between steps: 1 + 8 barriers a block. Thread 0 writes the block's sum.
// Launched again on the block sums until one value is left (1M -> 4096 -> 16 -> 1).
//
// Compiled with PyCUDA's default extern "C" wrapping: no extern "C" here.

#define BLOCK 256

__global__ void block_sum(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;            // the last block may run past the end: pad with 0
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();                     // every step reads what the one before wrote
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
