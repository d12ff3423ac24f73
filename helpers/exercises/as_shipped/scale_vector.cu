// Exercise: scale a vector, y[i] = alpha * x[i] for every i < n.
//
// The checker (helpers.exercises.scale_vector.check_scale_vector) launches this kernel with
// one thread per element: blocks of various sizes, a grid of at least (n + block - 1) // block
// blocks (sometimes a few more), and n not a multiple of the block size.
//
// TODO:
//   1. Compute this thread's global index i from blockIdx.x, blockDim.x and threadIdx.x
//      (vector_add.cu shows how).
//   2. Write y[i] = alpha * x[i], but only when i < n.
//
// Keep the kernel's name and signature as they are: the checker calls it by name.

__global__ void scale_vector(const float *x, float *y, float alpha, int n)
{
    int i = threadIdx.x;   // TODO: this is only this thread's index within its block
    y[i] = alpha * x[i];   // TODO: guard against i >= n
}
