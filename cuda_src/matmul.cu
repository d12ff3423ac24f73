// Matrix multiply C = A B, two ways (after Kirk and Hwu, Programming Massively Parallel
// Processors, chapter 5).
//
// A is M x K, B is K x N, C is M x N, floats, row after row. One thread computes one element
// of C. Launch with block=(TILE_WIDTH, TILE_WIDTH, 1) = (16, 16, 1) and
// grid=(ceil(N / 16), ceil(M / 16)). Any M, K and N work, multiples of 16 or not.
#define TILE_WIDTH 16

// 1. Naive: each thread walks a row of A and a column of B in global memory. For every
//    multiply-add it loads two floats: the arithmetic waits on memory.
__global__ void matmul_naive(const float *A, const float *B, float *C, int M, int K, int N)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}

// 2. Tiled: the block walks along A's rows and B's columns one TILE_WIDTH x TILE_WIDTH tile at
//    a time. Its threads load a tile of each into shared memory (one element each), wait, and
//    take all TILE_WIDTH multiply-adds from shared memory: each float loaded from global memory
//    is used TILE_WIDTH times. Elements past the matrices' edges load as 0, which adds nothing.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float As[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int col = blockIdx.x * TILE_WIDTH + tx;
    float sum = 0.0f;
    for (int phase = 0; phase < (K + TILE_WIDTH - 1) / TILE_WIDTH; phase++) {
        int a_col = phase * TILE_WIDTH + tx, b_row = phase * TILE_WIDTH + ty;
        As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; k++)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = sum;
}
