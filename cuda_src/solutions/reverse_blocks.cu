// Solution (notebook 06): reverse each block's elements, through shared memory.
//
// Thread j loads element j of the block (coalesced), waits at the barrier until every thread has
// loaded its own, then writes element j of the output from s[len - 1 - j], which another thread
// loaded (the store is coalesced too). len, not BLOCK: the last block mirrors only the elements
// it has.

#define BLOCK 256

__global__ void reverse_blocks(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK];
    int start = blockIdx.x * BLOCK;
    int len = min(BLOCK, n - start);       // this block's elements: fewer in the last block
    int j = threadIdx.x;
    if (j < len)
        s[j] = in[start + j];
    __syncthreads();                       // every element is in s before any thread reads
    if (j < len)
        out[start + j] = s[len - 1 - j];   // thread len - 1 - j loaded it
}
