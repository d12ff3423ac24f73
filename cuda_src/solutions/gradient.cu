// Solution (notebook 06): a gradient through dynamic shared memory, with its halo.
//
// Every thread loads its own input into s[threadIdx.x + 1] (clamped: threads past n load
// in[n - 1], which the last output needs as its right neighbour); thread 0 and the block's last
// thread also load the halo on their side. After the barrier, which every thread reaches (the
// threads past n return only after it), each output reads its two neighbours from s.

__device__ int clamp_index(int i, int n)
{
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

__global__ void gradient(const float *in, float *out, int n)
{
    extern __shared__ float s[];               // blockDim.x + 2 floats: the launch gives the bytes
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = threadIdx.x + 1;                   // in[i] goes to s[j]
    s[j] = in[clamp_index(i, n)];
    if (threadIdx.x == 0)                      // the halo, one input on either side
        s[0] = in[clamp_index(i - 1, n)];
    if (threadIdx.x == blockDim.x - 1)
        s[blockDim.x + 1] = in[clamp_index(i + 1, n)];
    __syncthreads();                           // the whole window is in s
    if (i >= n)
        return;
    out[i] = (s[j + 1] - s[j - 1]) * 0.5f;
}
