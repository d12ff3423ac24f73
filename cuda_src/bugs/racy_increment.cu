// Bug: a racy increment.
//
// Counts the elements above a threshold. (*count)++ is three steps: read the count, add one,
// write it back. Two threads that read the same old value both write old + 1, and one of the
// two increments is lost. (The fix: atomicAdd(count, 1), which does the three as one.)

__global__ void count_above(const float *x, int *count, float threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > threshold)
        (*count)++;
}
