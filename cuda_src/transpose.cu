// Matrix transpose, three ways.
//
// in is height x width floats, row after row; out, its transpose, is width x height:
//     out[x * height + y] = in[y * width + x]
// All three kernels use the same launch: block=(TILE_DIM, BLOCK_ROWS, 1) = (32, 8, 1) and
// grid=(ceil(width / 32), ceil(height / 32)). A block moves one 32 x 32 tile, each thread
// 32 / 8 = 4 of its elements. Any width and height work: the edges are guarded.
#define TILE_DIM 32
#define BLOCK_ROWS 8

// 1. Naive. Each warp reads 32 neighbouring floats of one row of in (coalesced: 4 sectors of
//    32 bytes), but writes them down a column of out: 32 floats `height` floats apart, one
//    sector each.
__global__ void transpose_naive(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            out[x * height + (y + j)] = in[(y + j) * width + x];
}

// 2. Tiled through shared memory. The block reads its tile row by row (coalesced), waits, and
//    writes the transposed tile row by row too (coalesced): the transposing happens in shared
//    memory, which has no sectors. But reading a column of the tile, tile[threadIdx.x][...],
//    puts the 32 lanes' words 32 floats apart: all in the same one of shared memory's 32 banks,
//    a 32-way bank conflict.
__global__ void transpose_tiled(const float *in, float *out, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;              // the transposed tile's corner
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 3. Tiled with padding: one unused float at the end of each tile row puts the words of a
//    column 33 floats apart, so the 32 lanes hit 32 different banks. Nothing else changes.
__global__ void transpose_padded(const float *in, float *out, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
