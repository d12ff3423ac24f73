// Exercise solution: sepia tone in OpenCL, one work-item per pixel (the CUDA solution is
// cuda_src/solutions/sepia.cu).
//
// Pixel i = y * width + x has its red, green and blue bytes at 3*i, 3*i + 1 and 3*i + 2, in the
// input and in the output alike. Each output channel is a weighted sum of all three input
// channels and can exceed 255. OpenCL C has saturating conversions built in:
// convert_uchar_sat(v) rounds toward zero like a cast, but clamps to 0..255 first, so adding 0.5f
// rounds to the nearest level and no value wraps around (CUDA needs fminf for the clamp).

__kernel void sepia(__global const uchar *rgb, __global uchar *out, int width, int height)
{
    int x = get_global_id(0);   // column
    int y = get_global_id(1);   // row
    if (x >= width || y >= height)
        return;

    int i = y * width + x;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];

    float r2 = 0.393f * r + 0.769f * g + 0.189f * b;
    float g2 = 0.349f * r + 0.686f * g + 0.168f * b;
    float b2 = 0.272f * r + 0.534f * g + 0.131f * b;
    out[3 * i]     = convert_uchar_sat(r2 + 0.5f);   // round, and clamp to 255
    out[3 * i + 1] = convert_uchar_sat(g2 + 0.5f);
    out[3 * i + 2] = convert_uchar_sat(b2 + 0.5f);
}
