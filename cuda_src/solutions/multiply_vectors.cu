// Solution: multiply two vectors element by element, out[i] = a[i] * b[i], with several blocks.
//
// Block blockIdx.x starts at element blockIdx.x * blockDim.x; the thread's place in its block is
// added to that. The launch is whole blocks with n a multiple of the block, so every thread has
// an element and no guard is needed (scale_vector, the next exercise, adds the guard).

__global__ void multiply_vectors(const float *a, const float *b, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] * b[i];
}
