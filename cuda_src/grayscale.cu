// RGB to grayscale, three ways: one pixel a thread (1), 16 pixels a thread with 16-byte loads
// and stores (2), and the step between them, 4 pixels a thread with 4-byte loads and stores (3).
//
// The image is interleaved RGB, one unsigned char a channel, rows one after another:
//     pixel i = y * width + x  has  red at rgb[3*i], green at rgb[3*i + 1], blue at rgb[3*i + 2]
// The grey value is the BT.601 luma, rounded to the nearest level:
//     gray = 0.299 R + 0.587 G + 0.114 B
// The weights add up to 1, so the result never exceeds 255 and needs no clamp.

__device__ unsigned char bt601_gray(unsigned int r, unsigned int g, unsigned int b)
{
    return (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
}

// 1. Naive: a 2D grid, one thread a pixel.
//    Launch with block=(32, 8, 1), grid=(ceil(width / 32), ceil(height / 8)).
//    Each thread reads 3 single bytes and writes 1: a warp moves only 96 + 32 bytes per
//    group of load and store instructions, so the memory system is asked for many small pieces.
__global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (x < width && y < height) {
        int i = y * width + x;
        gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    }
}

// 2. Faster: 16 pixels a thread, 16-byte loads and stores.
//    The conversion does not care about rows, so the image is treated as one flat run of
//    n = width * height pixels. Thread t takes pixels 16t .. 16t + 15: their 48 bytes of RGB are
//    exactly three 16-byte words (uint4), and their 16 grey values exactly one uint4. So each
//    thread issues 3 wide loads and 1 wide store instead of 48 byte loads and 16 byte stores,
//    and has 48 bytes in flight at once.
//
//    Requirements: rgb and gray must be 16-byte aligned (memory from mem_alloc / gpuarray is
//    256-byte aligned; an offset view into a buffer may not be). Any n works: the thread just past
//    the last whole group of 16 does the remaining n % 16 pixels one by one.
//    Launch with a 1D grid of at least n / 16 + 1 threads, e.g. block=(256, 1, 1),
//    grid=((n / 16 + 1 + 255) // 256, 1).
__device__ unsigned int byte_of(const unsigned int *w, int k)
{
    // byte k of the little-endian words w[0], w[1], ... (k is a constant after unrolling)
    return (w[k >> 2] >> (8 * (k & 3))) & 0xFFu;
}

__global__ void rgb_to_gray_x16(const unsigned char *rgb, unsigned char *gray, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int groups = n / 16;                       // whole groups of 16 pixels

    if (t < groups) {
        const uint4 *src = reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t;
        uint4 a = src[0], b = src[1], c = src[2];          // 3 x 16 bytes = 16 pixels of RGB
        unsigned int w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
        unsigned int out[4] = {0u, 0u, 0u, 0u};
#pragma unroll
        for (int p = 0; p < 16; p++) {
            unsigned int g = bt601_gray(byte_of(w, 3 * p), byte_of(w, 3 * p + 1),
                                        byte_of(w, 3 * p + 2));
            out[p >> 2] |= g << (8 * (p & 3));         // pack 4 grey bytes into a word
        }
        reinterpret_cast<uint4 *>(gray)[t] = make_uint4(out[0], out[1], out[2], out[3]);
    } else if (t == groups) {
        for (int i = 16 * groups; i < n; i++)          // the tail: fewer than 16 pixels
            gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    }
}

// 3. Between the two: 4 pixels a thread, 4-byte loads and stores ("thread coarsening": fewer
//    threads, each with more work). Thread t takes pixels 4t .. 4t + 3: their 12 bytes of RGB are
//    three 32-bit words, their 4 grey values one word. So each thread has 12 bytes in flight at
//    once (the naive kernel 3, the 16-pixel one 48).
//    Requirements as for rgb_to_gray_x16, with 4-byte alignment. Launch with a 1D grid of at
//    least n / 4 + 1 threads: the thread just past the last whole group does the n % 4 others.
__global__ void rgb_to_gray_x4(const unsigned char *rgb, unsigned char *gray, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int groups = n / 4;                        // whole groups of 4 pixels

    if (t < groups) {
        const unsigned int *src = reinterpret_cast<const unsigned int *>(rgb) + 3 * (size_t)t;
        unsigned int w[3] = {src[0], src[1], src[2]};      // 3 x 4 bytes = 4 pixels of RGB
        unsigned int out = 0u;
#pragma unroll
        for (int p = 0; p < 4; p++) {
            unsigned int g = bt601_gray(byte_of(w, 3 * p), byte_of(w, 3 * p + 1),
                                        byte_of(w, 3 * p + 2));
            out |= g << (8 * p);                       // pack 4 grey bytes into a word
        }
        reinterpret_cast<unsigned int *>(gray)[t] = out;
    } else if (t == groups) {
        for (int i = 4 * groups; i < n; i++)           // the tail: fewer than 4 pixels
            gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    }
}
