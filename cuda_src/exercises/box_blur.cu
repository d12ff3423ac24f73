// Exercise: a box blur through a shared-memory tile with a halo.
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

    // TODO 1: declare the tile, __shared__ float tile[TILE_Y][TILE_X], and fill it:
    //         tile[ty][tx] = the input pixel (x0 + tx, y0 + ty), where x0 = blockIdx.x * BLOCK_X -
    //         RADIUS and y0 = blockIdx.y * BLOCK_Y - RADIUS (the input pixel that goes to
    //         tile[0][0]), its column and row clamped to the image, for every ty < TILE_Y and tx < TILE_X. The tile is larger
    //         than the block, so a thread loads more than one element: loop ty from threadIdx.y
    //         in steps of BLOCK_Y, and tx from threadIdx.x in steps of BLOCK_X.
    // TODO 2: wait until every thread of the block has loaded its part of the tile.
    // TODO 3: threads outside the image stop here, not before: they have a part of the tile to
    //         load, and the barrier to reach.
    // TODO 4: sum the (2 * RADIUS + 1)^2 window from the tile (this thread's own pixel is at
    //         tile[threadIdx.y + RADIUS][threadIdx.x + RADIUS]) and store the average.
    //         For now the pixel is copied unchanged.
    if (x < width && y < height)                     // TODO 4
        out[y * width + x] = in[y * width + x];      // TODO 4
}
