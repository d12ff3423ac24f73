// vector_add.cu: the first data-parallel kernel, out[i] = a[i] + b[i].
//
// One thread per element. Each thread works out the one index it is responsible for from its
// block's position in the grid and its own position in the block:
//
//     block 0: threads 0..blockDim.x-1  -> elements 0..blockDim.x-1
//     block 1: threads 0..blockDim.x-1  -> elements blockDim.x..2*blockDim.x-1
//     ...
//
// The grid is a whole number of blocks, so when n is not a multiple of the block size the
// last block has threads with no element: the bounds guard (i < n) keeps them from writing
// past the end of out.

__global__ void vector_add(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a[i] + b[i];
    }
}
