// The sum of each block's elements: reading shared memory that no thread of the block wrote.
//
// Block b adds up elements b * BLOCK_SIZE ... b * BLOCK_SIZE + BLOCK_SIZE - 1 of `in` (fewer in
// the last block when n is not a multiple of BLOCK_SIZE) into sums[b]. Each thread stores its
// element in a shared array; after the barrier thread 0 adds the array up.
// Launch with block=(BLOCK_SIZE, 1, 1) and grid=((n + BLOCK_SIZE - 1) / BLOCK_SIZE, 1).
#define BLOCK_SIZE 256

// Bug: in the last block the threads past the end store nothing, yet thread 0 adds all
// BLOCK_SIZE elements of s. Shared memory is not zeroed when a block starts: those elements hold
// whatever the block that ran before on this multiprocessor left there.
__global__ void block_sums_unguarded(const float *in, float *sums, int n)
{
    __shared__ float s[BLOCK_SIZE];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    if (i < n)
        s[t] = in[i];                        // the threads past the end store nothing
    __syncthreads();
    if (t == 0) {
        float sum = 0.0f;
        for (int k = 0; k < BLOCK_SIZE; k++)
            sum += s[k];                     // past the end: an element no thread wrote
        sums[blockIdx.x] = sum;
    }
}

// Fixed: the threads past the end store 0.0f, so every element thread 0 adds was written.
__global__ void block_sums(const float *in, float *sums, int n)
{
    __shared__ float s[BLOCK_SIZE];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    s[t] = i < n ? in[i] : 0.0f;             // every thread stores, 0 past the end
    __syncthreads();
    if (t == 0) {
        float sum = 0.0f;
        for (int k = 0; k < BLOCK_SIZE; k++)
            sum += s[k];
        sums[blockIdx.x] = sum;
    }
}
