// Exercise (notebook 06): reverse each block's elements, through shared memory.
//
// Block b owns elements b * BLOCK ... b * BLOCK + BLOCK - 1 of `in` (fewer in the last block when
// n is not a multiple of BLOCK: len of them). It must write them to the same places of `out` in
// reverse order: out[start + j] = in[start + len - 1 - j] for j = 0 ... len - 1. Thread j loads
// element j into shared memory, and writes element j of the output, which another thread loaded:
// between the two, every thread of the block must wait for the others.
//
// The checker launches reverse_blocks with block=(BLOCK, 1, 1) and grid=(ceil(n / BLOCK), 1), n
// a multiple of BLOCK once and otherwise not, and runs it on the simulator with the race check on
// too.
//
// TODO:
//   1. Wait until every thread of the block has stored its element in s (the barrier).
//   2. Write element j of the block's output from the element it mirrors: len - 1 - j.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.reverse_blocks import check_reverse_blocks
//   check_reverse_blocks()

#define BLOCK 256

__global__ void reverse_blocks(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK];
    int start = blockIdx.x * BLOCK;
    int len = min(BLOCK, n - start);       // this block's elements: fewer in the last block
    int j = threadIdx.x;
    if (j < len)
        s[j] = in[start + j];
    // TODO: every thread of the block waits here until all have stored their element
    if (j < len)
        out[start + j] = s[j];             // TODO: element j of the output mirrors element len - 1 - j
}
