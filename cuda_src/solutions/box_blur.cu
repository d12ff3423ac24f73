// Exercise: a box blur through a shared-memory tile with a halo (the solution).
//
// in and out are grey images of width x height floats, row after row: pixel (x, y) is at
// y * width + x. Each output pixel is the average of the (2 * RADIUS + 1)^2 input pixels around
// it, the square from (x - RADIUS, y - RADIUS) to (x + RADIUS, y + RADIUS). A pixel of that square
// outside the image takes the value of the nearest pixel inside it: clamp its column to
// 0 .. width - 1 and its row to 0 .. height - 1 (clamp_index below).
//
// Launch: block=(BLOCK_X, BLOCK_Y, 1) = (32, 8, 1), grid=(ceil(width / 32), ceil(height / 8)).
// A block computes a BLOCK_X x BLOCK_Y piece of out. Its outputs need the inputs under that piece
// and RADIUS more on every side, the halo: a TILE_X x TILE_Y tile, which the block loads into
// shared memory once; each input in it is then read by up to (2 * RADIUS + 1)^2 threads.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.box_blur import check_box_blur
//   check_box_blur()
#define RADIUS 2
#define BLOCK_X 32
#define BLOCK_Y 8
#define TILE_X (BLOCK_X + 2 * RADIUS)
#define TILE_Y (BLOCK_Y + 2 * RADIUS)

__device__ int clamp_index(int i, int n)
{
    return min(max(i, 0), n - 1);
}

__global__ void box_blur(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * BLOCK_X + threadIdx.x;      // this thread's output pixel
    int y = blockIdx.y * BLOCK_Y + threadIdx.y;

    __shared__ float tile[TILE_Y][TILE_X];
    int x0 = blockIdx.x * BLOCK_X - RADIUS;          // the input pixel that goes to tile[0][0]
    int y0 = blockIdx.y * BLOCK_Y - RADIUS;
    // The tile is larger than the block: each thread loads every element of it that lies a
    // whole number of blocks away from its own position.
    for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)
        for (int tx = threadIdx.x; tx < TILE_X; tx += BLOCK_X)
            tile[ty][tx] = in[clamp_index(y0 + ty, height) * width + clamp_index(x0 + tx, width)];
    __syncthreads();                                 // the whole tile is there

    if (x >= width || y >= height)                   // only now: these threads loaded a part
        return;
    float sum = 0.0f;
    for (int dy = 0; dy <= 2 * RADIUS; dy++)         // the window: tile[threadIdx.y + dy][...]
        for (int dx = 0; dx <= 2 * RADIUS; dx++)
            sum += tile[threadIdx.y + dy][threadIdx.x + dx];
    out[y * width + x] = sum * (1.0f / ((2 * RADIUS + 1) * (2 * RADIUS + 1)));
}
