// Exercise (notebook 14): the online softmax's running pair, one warp a row, in one pass.
//
// x holds rows x cols scores in half precision (FP16), row after row. For each row r write
//     row_max[r] = m, the max of the row, and
//     row_sum[r] = l, the sum over the row of exp(x - m),
// reading the row ONCE: each lane keeps a running pair (m, l) over its columns (lane, lane + 32,
// ...), then the lanes merge their pairs with __shfl_xor_sync. Whenever a max grows from m to
// m_new, a sum taken against m must be rescaled to m_new: multiplied by exp(m - m_new).
//
// The checker launches online_softmax with blocks of a few warps and a warp a row, on rows whose
// max comes first, last or anywhere, and on rows shorter than a warp (some lanes then have no
// column at all: their m stays -INFINITY, and exp(-INFINITY - -INFINITY) is NaN).
//
// TODO:
//   1. in the loop, rescale l to the new max before adding exp(v - m_new);
//   2. in the merge, rescale both sums to m_new (a sum whose max is -INFINITY counts 0).
//
// Keep the kernel's name and signature as they are: the checker calls it by name. (extern "C":
// cuda_fp16.h is C++, so the checker compiles this file with no_extern_c=True, notebook 01.)
#include <cuda_fp16.h>

extern "C" __global__ void online_softmax(const __half *x, float *row_max, float *row_sum, int rows, int cols)
{
    int lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;              // a whole warp leaves: the shuffles stay full
    const __half *in = x + (size_t)row * cols;
    float m = -INFINITY, l = 0.0f;        // this lane's running max and sum
    for (int c = lane; c < cols; c += 32) {
        float v = __half2float(in[c]);
        float m_new = fmaxf(m, v);
        l = l + __expf(v - m_new);        // TODO: rescale l to m_new first
        m = m_new;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        float l2 = __shfl_xor_sync(0xffffffffu, l, offset);
        float m_new = fmaxf(m, m2);
        l = l + l2;                       // TODO: rescale l and l2 to m_new
        m = m_new;
    }
    if (lane == 0) {
        row_max[row] = m;
        row_sum[row] = l;
    }
}
