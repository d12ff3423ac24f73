// Solution (notebook 14): the online softmax's running pair, one warp a row, in one pass.
//
// A sum of exp(x - m) taken against a max m becomes one against a larger max m_new when it is
// multiplied by exp(m - m_new): in the loop (a lane's own columns) and in the merge (two lanes'
// pairs). A lane with no column has m = -INFINITY and l = 0: its weight must be 0, not
// exp(-INFINITY - -INFINITY), which is NaN; the merge says so.
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
        l = l * __expf(m - m_new) + __expf(v - m_new);
        m = m_new;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        float l2 = __shfl_xor_sync(0xffffffffu, l, offset);
        float m_new = fmaxf(m, m2);
        l = (m == -INFINITY ? 0.0f : l * __expf(m - m_new))
            + (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new));
        m = m_new;
    }
    if (lane == 0) {
        row_max[row] = m;
        row_sum[row] = l;
    }
}
