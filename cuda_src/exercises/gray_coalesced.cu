// Exercise (notebook 04): grey, one thread a pixel, on a flat grid: which pixel should thread t
// take?
//
// The image is interleaved RGB, as in cuda_src/grayscale.cu: pixel (x, y) is i = y * width + x,
// with red, green and blue at rgb[3*i], rgb[3*i + 1], rgb[3*i + 2]; gray[i] is its grey value.
// The checker launches gray_coalesced with a 1D grid, blocks of 64 to 256 threads, rounded up to
// whole blocks: ceil(width * height / block) of them. Thread t = blockIdx.x * blockDim.x +
// threadIdx.x converts one pixel.
//
// Any choice that gives every pixel a thread of its own gives the right image; only some are
// fast. As shipped, thread t walks down the columns (x = t / height, y = t % height): a warp's
// 32 threads read 32 pixels of one column, each a whole row (3 * width bytes) from the next, so
// every thread's byte costs a 32-byte sector of its own. The checker says PASS for a right image,
// and FAST when a warp's loads are also coalesced (a few sectors serve the whole warp).
//
// TODO:
//   1. The grid is rounded up to whole blocks: the threads with t >= width * height must return
//      before they touch memory.
//   2. Make neighbouring threads take neighbouring pixels of a row: threadIdx.x must run along x.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.gray_coalesced import check_gray_coalesced
//   check_gray_coalesced()

__device__ unsigned char bt601_gray(unsigned int r, unsigned int g, unsigned int b)
{
    return (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
}

__global__ void gray_coalesced(const unsigned char *rgb, unsigned char *gray, int width,
                               int height)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: the threads past the last pixel (t >= width * height) return here
    int x = t / height;    // TODO: down a column; neighbouring threads must take neighbouring x
    int y = t % height;    // TODO: and the row follows from t the same way
    int i = y * width + x;
    gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
}
