// Solution of the matrix-vector exercise of notebook 08: y = A x, one warp a row.
//
// Lane l of a row's warp adds A[row][c] * x[c] for c = l, l + 32, ...: at each step the warp
// reads 32 neighbouring floats of the row (coalesced). warp_sum adds the 32 lanes' sums with
// shuffles, and lane 0 stores the row's result.

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void matvec_warp(const float *A, const float *x, float *y, int rows, int cols)
{
    int lane = threadIdx.x;                            // 0 to 31
    int row = blockIdx.x * blockDim.y + threadIdx.y;   // this warp's row
    if (row >= rows)
        return;                                        // the whole warp returns together

    float v = 0.0f;
    for (int c = lane; c < cols; c += 32)
        v += A[row * cols + c] * x[c];
    v = warp_sum(v);
    if (lane == 0)
        y[row] = v;
}
