// Exercise (notebook 08): a tiled matrix multiply C = A B whose tiles are not square.
//
// A is M x K, B is K x N, C is M x N, all floats, row after row (NumPy: C = A @ B). A block of
// 32 x 8 threads computes an 8-row, 32-column tile of C, one element a thread, and each phase
// goes TILE_K = 32 deep along k: the wide rows give 32 threads of a warp 32 neighbouring
// columns (coalesced loads of B and stores of C), and the deeper phase halves the barriers of a
// 16-deep one. The tiles of a phase:
//
//     As: TILE_M x TILE_K =  8 x 32, one element a thread: As[ty][tx]
//     Bs: TILE_K x TILE_N = 32 x 32, four elements a thread: rows ty, ty + 8, ty + 16, ty + 24
//
// Launch: block = (32, 8, 1), grid = (ceil(N / 32), ceil(M / 8)). M, K and N need not be
// multiples of the tiles' sides (the checker's are not, but for one M of 8): elements past the
// matrices' edges load as 0.
//
// As shipped it compiles and runs, but each thread loads one row of Bs (the block's 8 rows of
// threads fill only 8 of its 32 rows), and the multiply-adds go only 8 deep. Follow the TODOs.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.matmul_wide import check_matmul_wide
//   check_matmul_wide()
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
        int b_row = phase * TILE_K + ty;     // TODO 1: Bs has TILE_K rows: load r = ty, ty + TILE_M, ... < TILE_K
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;  // TODO 1: into Bs[r][tx]
        __syncthreads();
        for (int k = 0; k < TILE_M; k++)     // TODO 2: how deep does a phase go?
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = sum;
}
