// Exercise solution: sepia tone on an interleaved RGB image, one thread per pixel.
//
// Pixel i = y * width + x has its red, green and blue bytes at 3*i, 3*i + 1 and 3*i + 2, in the
// input and in the output alike. Each output channel is a weighted sum of all three input
// channels; the sums can exceed 255, so they are clamped before the conversion to unsigned char
// (a float above 255 converted to unsigned char does not saturate: it wraps around or is undefined).

__global__ void sepia(const unsigned char *rgb, unsigned char *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (x >= width || y >= height)
        return;

    int i = y * width + x;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];

    float r2 = 0.393f * r + 0.769f * g + 0.189f * b;
    float g2 = 0.349f * r + 0.686f * g + 0.168f * b;
    float b2 = 0.272f * r + 0.534f * g + 0.131f * b;
    out[3 * i]     = (unsigned char)fminf(r2 + 0.5f, 255.0f);   // round, and clamp to 255
    out[3 * i + 1] = (unsigned char)fminf(g2 + 0.5f, 255.0f);
    out[3 * i + 2] = (unsigned char)fminf(b2 + 0.5f, 255.0f);
}
