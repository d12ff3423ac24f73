// Exercise (notebook 08): a tiled matrix multiply C = A Bt^T, for any sizes.
//
// A is M x K, Bt is N x K (B stored transposed: row j of Bt is column j of B), C is M x N, all
// floats, row after row:
//     C[row][col] = sum over k of A[row][k] * Bt[col][k]        (NumPy: C = A @ Bt.T)
// This is the product a neural network's linear layer computes (x @ W.T in PyTorch, whose
// weights W hold one output per row).
//
// Launch: block = (16, 16, 1), grid = (ceil(N / 16), ceil(M / 16)). M, K and N need
// not be multiples of 16 (the checker's first case is; its others are not), so the last tiles
// may reach past the matrices' edges.
//
// Start from the notebook's tiled kernel (matmul_tiled in cuda_src/matmul.cu): A's tile is
// loaded the same way. Bt's tile is new: load it so that neighbouring threads (threadIdx.x)
// read neighbouring floats of Bt, that is along a row of Bt (along k), as A's load does.
//
// Check it in the notebook with:  check_matmul_bt()
#define TILE 16

__global__ void matmul_bt(const float *A, const float *Bt, float *C, int M, int K, int N)
{
    // TODO 0: declare the two tiles in shared memory: float As[TILE][TILE] and
    //         float Bs[TILE][TILE + 1] (why + 1? notebook 06's padded transpose).
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;        // this thread's element of C
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int phase = 0; phase < (K + TILE - 1) / TILE; phase++) {
        // TODO 1: As[ty][tx] = element (row, phase * TILE + tx) of A, or 0.0f where that is
        //         outside A.
        // TODO 2: Bs[ty][tx] = element (blockIdx.x * TILE + ty, phase * TILE + tx) of Bt, or
        //         0.0f where that is outside Bt. (Row ty of Bs is then a row of Bt: which one
        //         belongs to this thread's column of C?)
        // TODO 3: wait until the whole tile is loaded.
        // TODO 4: add this phase's TILE products A[row][k] * Bt[col][k] to sum, from As and Bs.
        // TODO 5: wait until every thread has used the tile, before the next phase's loads
        //         overwrite it.
    }
    if (row < M && col < N)
        C[row * N + col] = sum;
}
