// Bug: a barrier inside a branch.
//
// Each block adds up its 256 elements in shared memory, halving the active threads each step.
// The barrier that separates the steps sits inside the if: only the threads still adding reach
// it, while the others go on to the barrier after the loop. Threads of one block waiting at
// different __syncthreads() is undefined behaviour. (The fix: the barrier after the if, where
// every thread of the block reaches it each step.)
#define SUM_BLOCK 256

__global__ void block_sums(const float *x, float *sums, int n)
{
    __shared__ float s[SUM_BLOCK];
    int t = threadIdx.x, i = blockIdx.x * SUM_BLOCK + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = SUM_BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();
        }
    }
    __syncthreads();
    if (t == 0) sums[blockIdx.x] = s[0];
}
