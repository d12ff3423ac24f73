// Bug: a use after free (the kernel is right; the launch is not).
//
// The host keeps a buffer's address as a plain integer (as notebook 05 does to address chunks
// of a buffer), frees the buffer, allocates another array, and then launches this kernel with
// the old address. Freed device memory goes back to CUDA's allocator, which hands it out again:
// the kernel writes into whatever array lives there now.

__global__ void fill(float *y, float value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = value;
}
