// Exercise (notebook 08): a tiled matrix multiply C = A Bt^T, for any sizes. (Solution.)
//
// A is M x K, Bt is N x K (B stored transposed: row j of Bt is column j of B), C is M x N, all
// floats, row after row: C[row][col] = sum over k of A[row][k] * Bt[col][k], NumPy's A @ Bt.T.
// Launch with block = (16, 16, 1), grid = (ceil(N / 16), ceil(M / 16)).
#define TILE 16

__global__ void matmul_bt(const float *A, const float *Bt, float *C, int M, int K, int N)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];     // Bs[j][k]: + 1 against bank conflicts in Bs[tx][k]
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;        // this thread's element of C
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int phase = 0; phase < (K + TILE - 1) / TILE; phase++) {
        int k = phase * TILE + tx;               // both loads run along k: coalesced
        int bt_row = blockIdx.x * TILE + ty;     // the block's columns of C are rows of Bt
        As[ty][tx] = (row < M && k < K) ? A[row * K + k] : 0.0f;
        Bs[ty][tx] = (bt_row < N && k < K) ? Bt[bt_row * K + k] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; j++)
            sum += As[ty][j] * Bs[tx][j];        // row tx of Bs is this thread's column of C
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = sum;
}
