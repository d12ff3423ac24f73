// Reverse the elements of each block: a first use of shared memory, and of __syncthreads().
//
// Block b holds elements b * BLOCK_SIZE ... b * BLOCK_SIZE + BLOCK_SIZE - 1 of `in`; its thread t
// writes the element that thread BLOCK_SIZE - 1 - t read. A thread cannot see another thread's
// registers, so the block passes the values through a shared array, one element a thread.
// Launch with block=(BLOCK_SIZE, 1, 1) and one block per BLOCK_SIZE elements: the array's length
// must be a multiple of BLOCK_SIZE (these kernels are about the barrier, not about the edges).
#define BLOCK_SIZE 256

__global__ void reverse_block(const float *in, float *out)
{
    __shared__ float s[BLOCK_SIZE];          // one array per block, visible to all its threads
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    s[t] = in[i];                            // each thread puts its own element in
    __syncthreads();                         // wait until every thread of the block has
    out[i] = s[BLOCK_SIZE - 1 - t];          // then read an element another thread put in
}

// The same without the barrier: thread t reads s[BLOCK_SIZE - 1 - t] whether or not thread
// BLOCK_SIZE - 1 - t has written it yet. A data race: the result depends on the order in which
// the warps happen to run.
__global__ void reverse_block_unsynced(const float *in, float *out)
{
    __shared__ float s[BLOCK_SIZE];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    s[t] = in[i];
    out[i] = s[BLOCK_SIZE - 1 - t];          // may read s before its element was written
}
