// Exercise (notebook 14): the causal softmax of each row, one warp a row, that does not overflow.
//
// x holds rows x cols scores in half precision (FP16), row after row. In a language model token
// r may look at tokens 0 to r only (not at the ones after it): row r's softmax is taken over its
// columns 0 to last = min(r, cols - 1), and its columns past last become 0 (they are "masked"):
//     y[r][c] = exp(x[r][c] - m) / (sum over c' <= last of exp(x[r][c'] - m))   for c <= last,
//     y[r][c] = 0                                                             for c > last,
// with m the max of x[r][0..last], all computed in float. The masked scores are there in x, and
// may be anything: they take no part, in the sum or in the max.
//
// The checker launches causal_softmax with blocks of a few warps (blockDim.x a multiple of 32)
// and enough blocks for a warp a row (sometimes more warps than rows); cols is often not a
// multiple of 32. Some rows' scores reach about 100, and exp(100) is more than a float holds.
//
// As shipped, m is 0: right while the scores are small, inf and then NaN on the large ones.
// TODO: m, the max of the row's columns 0 to last: each lane over its own columns (lane,
//       lane + 32, ... up to last), then warp_max(m), so that all 32 lanes subtract the same max.
// warp_max and warp_sum are written: a butterfly of __shfl_xor_sync leaves the result in every
// lane.
//
// Keep the kernel's name and signature as they are: the checker calls it by name. (extern "C":
// cuda_fp16.h is C++, so the checker compiles this file with no_extern_c=True, notebook 01.)
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
    float m = 0.0f;                       // TODO: the max of columns 0 to last (then warp_max)
    float sum = 0.0f;
    for (int c = lane; c <= last; c += 32)
        sum += __expf(__half2float(in[c]) - m);
    sum = warp_sum(sum);
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = __float2half(c <= last ? __expf(__half2float(in[c]) - m) / sum
                                                           : 0.0f);
}
