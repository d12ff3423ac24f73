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

// 3. Register tiled: a block of 256 threads computes a 128 x 128 tile of C, and each thread
//    8 x 8 elements of it, held in registers. For every k the thread reads 8 floats of A's tile
//    and 8 of B's from shared memory and does 8 x 8 = 64 multiply-adds with them: 16 floats read
//    for 64 multiply-adds, a quarter of a float each, where the tiled kernel read 2 for each one
//    (shared memory, not arithmetic, limited it).
//    Launch with block=(256, 1, 1), grid=(ceil(N / 128), ceil(M / 128)). Any M, K and N work.
//
//    - A thread's 8 rows are two groups of 4, 64 rows apart (ty*4 + 0..3 and 64 + ty*4 + 0..3),
//      and so are its 8 columns: each group of 4 is one 16-byte load (float4) from shared
//      memory, and the 16 threads of a half-warp read 16 consecutive float4s of a row of Bs,
//      without bank conflicts.
//    - A's tile is stored transposed (As[k][row]), so that a thread's 4 rows at one k lie side
//      by side; AS_PAD = 4 padding floats a row keep the transposing stores free of bank
//      conflicts (compile with -DAS_PAD=0 to see the conflicts come back).
//    - Global memory is read 16 bytes at a time (float4) where a row's length is a multiple of 4
//      floats (then every row starts 16-byte aligned); otherwise float by float.
//    - While the block computes on one tile, the loads of the next are already on their way
//      (into registers): one global-memory latency a tile is hidden behind the arithmetic.
//    - __launch_bounds__(256, MIN_BLOCKS) tells the compiler that MIN_BLOCKS blocks of 256
//      threads must fit on one SM at once, which caps the registers a thread may use
//      (65,536 / (256 x MIN_BLOCKS)). Compile with -DMIN_BLOCKS=... to try other values.
#define BM 128
#define BN 128
#define BK 8
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 2
#endif
#ifndef AS_PAD
#define AS_PAD 4
#endif

// M[r][c .. c+3] of a rows x cols matrix, 0 past its edges. c is a multiple of 4; vec says that
// rows start 16-byte aligned (cols % 4 == 0), so that four in range are one float4 load.
__device__ __forceinline__ float4 load4(const float *m, int rows, int cols, int r, int c, bool vec)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (r >= rows)
        return v;
    const float *p = m + (size_t)r * cols + c;
    if (vec && c + 3 < cols)
        return *reinterpret_cast<const float4 *>(p);
    if (c < cols)     v.x = p[0];
    if (c + 1 < cols) v.y = p[1];
    if (c + 2 < cols) v.z = p[2];
    if (c + 3 < cols) v.w = p[3];
    return v;
}

// C[r][c .. c+3] = v, the elements inside the matrix only.
__device__ __forceinline__ void store4(float *m, int rows, int cols, int r, int c, float4 v,
                                       bool vec)
{
    if (r >= rows)
        return;
    float *p = m + (size_t)r * cols + c;
    if (vec && c + 3 < cols) {
        *reinterpret_cast<float4 *>(p) = v;
        return;
    }
    if (c < cols)     p[0] = v.x;
    if (c + 1 < cols) p[1] = v.y;
    if (c + 2 < cols) p[2] = v.z;
    if (c + 3 < cols) p[3] = v.w;
}

__global__ void __launch_bounds__(256, MIN_BLOCKS)
matmul_register_tiled(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ __align__(16) float As[BK][BM + AS_PAD];   // A's tile, transposed: As[k][row]
    __shared__ __align__(16) float Bs[BK][BN];
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool vec_a = K % 4 == 0, vec_b = N % 4 == 0;
    // Which 4 floats each thread loads: of A's 128 x 8 tile, row t / 2, columns (t % 2) * 4 + 0..3;
    // of B's 8 x 128 tile, row t / 32, columns (t % 32) * 4 + 0..3.
    const int a_r = t / 2, a_c = (t % 2) * 4, b_r = t / 32, b_c = (t % 32) * 4;

    float acc[8][8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    float4 a_next = load4(A, M, K, row0 + a_r, a_c, vec_a);
    float4 b_next = load4(B, K, N, b_r, col0 + b_c, vec_b);
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[a_c + 0][a_r] = a_next.x;
        As[a_c + 1][a_r] = a_next.y;
        As[a_c + 2][a_r] = a_next.z;
        As[a_c + 3][a_r] = a_next.w;
        *reinterpret_cast<float4 *>(&Bs[b_r][b_c]) = b_next;
        __syncthreads();
        if (k0 + BK < K) {   // the next tile's loads, in flight during the arithmetic below
            a_next = load4(A, M, K, row0 + a_r, k0 + BK + a_c, vec_a);
            b_next = load4(B, K, N, k0 + BK + b_r, col0 + b_c, vec_b);
        }
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[8], b[8];
            *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&As[k][64 + ty * 4]);
            *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&Bs[k][64 + tx * 4]);
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        store4(C, M, N, r, col0 + tx * 4,
               make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]), vec_b);
        store4(C, M, N, r, col0 + 64 + tx * 4,
               make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]), vec_b);
    }
}
