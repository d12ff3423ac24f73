// Reverse the elements of each block: a first use of shared memory, and of __syncthreads().
//
// Block b holds elements b * BLOCK_SIZE ... b * BLOCK_SIZE + BLOCK_SIZE - 1 of `in`; its thread t
// writes the element that thread BLOCK_SIZE - 1 - t read. A thread cannot see another thread's
// registers, so the block passes the values through a shared array, one element a thread.
// Launch the first two with block=(BLOCK_SIZE, 1, 1) and one block per BLOCK_SIZE elements: the
// array's length must be a multiple of BLOCK_SIZE (they are about the barrier, not the edges).
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

// Reverse chunks of `chunk` elements, one chunk a block, whatever the block's size: each thread
// moves every blockDim.x-th element in and out. The chunk lives in dynamic shared memory, sized
// by the launch (shared=4 * chunk bytes): a chunk of 16384 floats, 64 KiB, is more than the
// 48 KiB a block may have until its kernel opts in (notebook 06, section 5).
__global__ void reverse_chunk(const float *in, float *out, int chunk)
{
    extern __shared__ float c[];
    const float *mine = in + (size_t)blockIdx.x * chunk;
    for (int k = threadIdx.x; k < chunk; k += blockDim.x)
        c[k] = mine[k];
    __syncthreads();
    for (int k = threadIdx.x; k < chunk; k += blockDim.x)
        out[(size_t)blockIdx.x * chunk + k] = c[chunk - 1 - k];
}
