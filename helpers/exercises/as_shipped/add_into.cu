// Exercise: add x into y, y[i] += x[i] for every i < n, with a grid-stride loop.
//
// The checker chooses the grid to suit itself, not n: sometimes far fewer threads than elements
// (2 blocks of 32 threads for 1000 elements), sometimes more threads than elements. With a
// grid-stride loop any grid covers any n: each thread starts at its global index and steps by
// the number of threads in the whole grid, gridDim.x * blockDim.x (saxpy_grid_stride in
// cuda_src/indexing.cu). y holds values before the launch: each element must get x[i] added
// exactly once.
//
// TODO: turn the one element of each thread into a loop over all of its elements.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.add_into import check_add_into
//   check_add_into()

__global__ void add_into(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;   // TODO: start here, and step by the grid
    if (i < n)                                       // TODO: a loop, while i < n
        y[i] += x[i];
}
