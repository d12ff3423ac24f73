// Exercise (notebook 06): a gradient through dynamic shared memory, with its halo.
//
// out[i] = (in[i + 1] - in[i - 1]) / 2 for every i < n, an input outside the array taken from
// its nearest end (in[-1] is in[0], in[n] is in[n - 1]), as the stencils' clamp_index does. Each
// input is read by two outputs, so a block loads its inputs into shared memory once: its own
// blockDim.x and one more on either side, the halo, blockDim.x + 2 floats in all. The block's size
// is the launch's, so the array is declared extern __shared__ and the launch gives its bytes.
//
// The checker launches gradient with blocks of 32 to 512 threads, shared=(block + 2) * 4 bytes and
// grid=(ceil(n / block), 1), n not a multiple of the block, and runs it on the simulator with the
// race check on too. s[j], j = threadIdx.x + 1, holds in[i].
//
// TODO:
//   1. The halo: thread 0 also loads s[0] (the input before the block's first), the block's last
//      thread s[blockDim.x + 1] (the one after its last), each clamped to the array.
//   2. Wait until the whole window is in s: every thread, those past n too, reaches the barrier.
//   3. out[i] = (s[j + 1] - s[j - 1]) * 0.5f.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.gradient import check_gradient
//   check_gradient()

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
    // TODO: the halo: thread 0 loads s[0], the block's last thread s[blockDim.x + 1]
    // TODO: wait until the whole window is loaded
    if (i >= n)
        return;
    out[i] = 0.0f;                             // TODO: (s[j + 1] - s[j - 1]) * 0.5f
}
