// Solution (notebook 14): the causal softmax of each row, one warp a row, that does not overflow.
//
// Each lane finds the max of its visible columns (up to last), warp_max gives every lane the
// row's max m, and both exp() calls take x - m: every exponential is then at most 1 and the sum
// at least 1 (the max's own term). The max skips the masked columns as the sum does: a masked
// score larger than the visible ones would make every exp(x - m) underflow to 0, and 0 / 0 is NaN.
#include <cuda_fp16.h>

__device__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void causal_softmax(const __half *x, __half *y, int rows, int cols)
{
    int lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;              // a whole warp leaves: the shuffles stay full
    const __half *in = x + (size_t)row * cols;
    int last = min(row, cols - 1);        // the last column this row may see
    float m = -INFINITY;
    for (int c = lane; c <= last; c += 32)
        m = fmaxf(m, __half2float(in[c]));
    m = warp_max(m);
    float sum = 0.0f;
    for (int c = lane; c <= last; c += 32)
        sum += __expf(__half2float(in[c]) - m);
    sum = warp_sum(sum);
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = __float2half(c <= last ? __expf(__half2float(in[c]) - m) / sum
                                                           : 0.0f);
}
