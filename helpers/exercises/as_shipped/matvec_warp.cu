// Exercise (notebook 08): a matrix-vector product y = A x, one warp a row, coalesced.
//
// A is rows x cols, floats, row after row; x has cols elements, y rows:
//     y[row] = sum over c of A[row][c] * x[c]                  (NumPy: y = A @ x)
// One thread a row would be the obvious kernel, but then the 32 threads of a warp read 32
// different rows at each step, cols floats apart: 32 separate memory transactions for 32 floats.
// Here a whole warp takes a row, and its lanes read the row side by side: lane l takes columns
// l, l + 32, l + 64, ..., so at each step the warp reads 32 neighbouring floats (one 128-byte
// line, notebook 04's coalescing), and the warp adds its 32 partial sums with shuffles
// (notebook 07's warp_sum).
//
// Launch: block = (32, W, 1), W warps a block, one a row; grid = (ceil(rows / W), 1).
// threadIdx.x is the lane, threadIdx.y the warp's place in its block. rows and cols need not be
// multiples of 32 or of W (the checker's are not, but for one case whose rows are).
//
// Check your kernel in the notebook with:
//   from helpers.exercises.matvec_warp import check_matvec_warp
//   check_matvec_warp()

__device__ float warp_sum(float v)
{
    // TODO 2: lane 0 ends with the 32 lanes' sum: v += __shfl_down_sync(0xffffffff, v, offset)
    return v;
}

__global__ void matvec_warp(const float *A, const float *x, float *y, int rows, int cols)
{
    int lane = threadIdx.x;                            // 0 to 31
    int row = blockIdx.x * blockDim.y + threadIdx.y;   // this warp's row
    if (row >= rows)
        return;                                        // the whole warp returns together

    float v = 0.0f;
    // TODO 1: this lane's share of the row: A[row][c] * x[c] for c = lane, lane + 32, ... < cols
    v = warp_sum(v);
    if (lane == 0)
        y[row] = v;
}
