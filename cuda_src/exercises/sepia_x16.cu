// Exercise: sepia tone at 16 pixels a thread, with 16-byte loads and stores, as
// rgb_to_gray_x16 in cuda_src/grayscale.cu does for grey. The checker wants it correct on
// awkward sizes and, on a GPU, fast: close to the bandwidth of a device-to-device copy.
//
// The image is flat: n pixels of interleaved RGB, pixel i's red, green and blue at 3*i, 3*i + 1
// and 3*i + 2, in rgb and in out alike. Thread t takes pixels 16t .. 16t + 15: their 48 bytes
// are three 16-byte words (uint4) in rgb, and their 48 result bytes three uint4 in out. The
// thread just past the last whole group of 16 does the other n % 16 pixels one by one (this
// part is written); the threads after it do nothing. rgb and out are 16-byte aligned.
//
// Launch: a 1D block of B threads, B = 256 for instance (the checker tries 32 to 256), and
// grid=((n // 16 + 1 + B - 1) // B, 1).
//
// TODO, in the branch for t < groups (it now converts one pixel, not sixteen):
//   1. Load the thread's three uint4 of RGB, as rgb_to_gray_x16 does, into 12 words w[].
//   2. For each pixel p of the 16, its red, green and blue are bytes 3p, 3p + 1, 3p + 2 of w
//      (byte_of); compute its three sepia channels (sepia_channel, with the weights used in
//      sepia_pixel) and put them into bytes 3p, 3p + 1, 3p + 2 of 12 result words (set_byte;
//      start the words at 0).
//   3. Store the 12 result words as three uint4 (make_uint4) at out's 3t-th, (3t+1)-th and
//      (3t+2)-th uint4.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.sepia_x16 import check_sepia_x16
//   check_sepia_x16()

__device__ unsigned int byte_of(const unsigned int *w, int k)
{
    // byte k of the little-endian words w[0], w[1], ...: the lowest 8 bits are byte 0
    return (w[k >> 2] >> (8 * (k & 3))) & 0xFFu;
}

__device__ void set_byte(unsigned int *w, int k, unsigned int value)
{
    // put value (0 to 255) into byte k of the words w[0], w[1], ... (which start at 0)
    w[k >> 2] |= value << (8 * (k & 3));
}

__device__ unsigned int sepia_channel(float r, float g, float b, float wr, float wg, float wb)
{
    // one output channel: the weighted sum, rounded and clamped to 255
    return (unsigned int)fminf(wr * r + wg * g + wb * b + 0.5f, 255.0f);
}

__device__ void sepia_pixel(const unsigned char *rgb, unsigned char *out, int i)
{
    // pixel i, one byte at a time (for the tail)
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    out[3 * i]     = sepia_channel(r, g, b, 0.393f, 0.769f, 0.189f);
    out[3 * i + 1] = sepia_channel(r, g, b, 0.349f, 0.686f, 0.168f);
    out[3 * i + 2] = sepia_channel(r, g, b, 0.272f, 0.534f, 0.131f);
}

__global__ void sepia_x16(const unsigned char *rgb, unsigned char *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int groups = n / 16;                       // whole groups of 16 pixels

    if (t < groups) {
        sepia_pixel(rgb, out, t);              // TODO: pixels 16t .. 16t + 15, with uint4
    } else if (t == groups) {
        for (int i = 16 * groups; i < n; i++)  // the tail: fewer than 16 pixels
            sepia_pixel(rgb, out, i);
    }
}
