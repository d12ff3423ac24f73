// Solution of the non-square tile exercise of notebook 08: C = A B with 8 x 32 tiles of C and
// phases 32 deep.
//
// A phase loads an 8 x 32 tile of A (one element a thread) and a 32 x 32 tile of B (four rows
// of it a thread, ty, ty + 8, ty + 16 and ty + 24), waits, and adds 32 products a thread.
#define TILE_M 8     // rows of C a block computes: blockDim.y
#define TILE_N 32    // columns of C a block computes: blockDim.x
#define TILE_K 32    // how deep a phase goes along k: As's columns, Bs's rows

__global__ void matmul_wide(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float As[TILE_M][TILE_K];
    __shared__ float Bs[TILE_K][TILE_N];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_M + ty;      // this thread's element of C
    int col = blockIdx.x * TILE_N + tx;
    float sum = 0.0f;
    for (int phase = 0; phase < (K + TILE_K - 1) / TILE_K; phase++) {
        int a_col = phase * TILE_K + tx;     // TILE_K == blockDim.x: one element of As a thread
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        for (int r = ty; r < TILE_K; r += TILE_M) {
            int b_row = phase * TILE_K + r;
            Bs[r][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_K; k++)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = sum;
}
