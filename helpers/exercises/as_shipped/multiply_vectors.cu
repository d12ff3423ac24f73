// Exercise: multiply two vectors element by element, out[i] = a[i] * b[i], with several blocks.
//
// One block holds at most 1024 threads, so a longer vector needs several blocks. The checker
// launches this kernel with one thread per element in whole blocks: n is a multiple of the block
// size here (blocks of 32 to 256 threads, grids of 3 to 13 blocks), so every thread has an
// element. threadIdx.x is a thread's place in ITS block: block 1's threads count from 0 again.
//
// TODO:
//   1. The element of this thread: its block's first element, blockIdx.x * blockDim.x, plus its
//      place in the block (vector_add.cu shows how).
//   2. Write out[i] = a[i] * b[i].
//
// Check your kernel in the notebook with:
//   from helpers.exercises.multiply_vectors import check_multiply_vectors
//   check_multiply_vectors()

__global__ void multiply_vectors(const float *a, const float *b, float *out)
{
    int i = threadIdx.x;    // TODO 1: only right in block 0: add the block's first element
    out[i] = a[i];          // TODO 2: multiply by b[i]
}
