// Exercise solution: sepia tone at 16 pixels a thread, with 16-byte loads and stores.
//
// The image is flat: n pixels of interleaved RGB, pixel i's red, green and blue at 3*i, 3*i + 1
// and 3*i + 2, in rgb and in out alike. Thread t takes pixels 16t .. 16t + 15: their 48 bytes
// are three 16-byte words (uint4) in rgb and three in out. The thread just past the last whole
// group of 16 does the other n % 16 pixels one by one; the threads after it do nothing.
// rgb and out must be 16-byte aligned (memory from gpuarray and mem_alloc is).
//
// Launch: a 1D block of B threads, B = 256 for instance (the checker tries 32 to 256), and
// grid=((n // 16 + 1 + B - 1) // B, 1).

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
        const uint4 *src = reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t;
        uint4 a = src[0], b = src[1], c = src[2];          // 48 bytes: 16 pixels of RGB
        unsigned int w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
        unsigned int res[12] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
#pragma unroll
        for (int p = 0; p < 16; p++) {
            float r = byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = byte_of(w, 3 * p + 2);
            set_byte(res, 3 * p,     sepia_channel(r, g, bl, 0.393f, 0.769f, 0.189f));
            set_byte(res, 3 * p + 1, sepia_channel(r, g, bl, 0.349f, 0.686f, 0.168f));
            set_byte(res, 3 * p + 2, sepia_channel(r, g, bl, 0.272f, 0.534f, 0.131f));
        }
        uint4 *dst = reinterpret_cast<uint4 *>(out) + 3 * (size_t)t;
        dst[0] = make_uint4(res[0], res[1], res[2], res[3]);
        dst[1] = make_uint4(res[4], res[5], res[6], res[7]);
        dst[2] = make_uint4(res[8], res[9], res[10], res[11]);
    } else if (t == groups) {
        for (int i = 16 * groups; i < n; i++)  // the tail: fewer than 16 pixels
            sepia_pixel(rgb, out, i);
    }
}
