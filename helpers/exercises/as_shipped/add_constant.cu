// Exercise: add a constant to every element, y[i] = x[i] + c, with one block of threads.
//
// A kernel is the body of a loop written for one i. In Python the loop would be
//     for i in range(n): y[i] = x[i] + c
// The checker launches this kernel with ONE block of exactly n threads (block = (n, 1, 1),
// grid = (1, 1), n at most 1024), so the block's thread number i has element i, and no thread
// is left over.
//
// TODO:
//   1. Which element is this thread's? threadIdx.x says where the thread is in its block.
//   2. Write y[i] = x[i] + c.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.add_constant import check_add_constant
//   check_add_constant()

__global__ void add_constant(const float *x, float *y, float c)
{
    int i = 0;      // TODO 1: every thread takes element 0: use the thread's place in the block
    y[i] = x[i];    // TODO 2: add c
}
