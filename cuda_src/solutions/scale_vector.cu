// Solution: scale a vector, y[i] = alpha * x[i] for every i < n.
//
// One thread per element, as in vector_add.cu: the global index from the block's position and
// the thread's position in it, and a bounds guard for the threads of the last block (and of any
// extra blocks) that have no element.

__global__ void scale_vector(const float *x, float *y, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i];
    }
}
