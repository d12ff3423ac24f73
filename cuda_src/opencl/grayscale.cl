// grayscale.cl: RGB to grey, one work-item a pixel on a 2D range (rgb_to_gray in grayscale.cu).
//
// The image is interleaved RGB, one byte a channel (uchar in OpenCL C, unsigned char in CUDA):
//     pixel i = y * width + x  has  red at rgb[3*i], green at rgb[3*i + 1], blue at rgb[3*i + 2]
// The grey value is the BT.601 luma, rounded to the nearest level: 0.299 R + 0.587 G + 0.114 B.
//
// A helper function needs no qualifier in OpenCL C (CUDA's __device__): everything in the
// program runs on the device. Dimension 0 runs along a row (x), dimension 1 down the image (y).
// Launch with local size (32, 8) and a global size rounded up to multiples of it.

uchar bt601_gray(uint r, uint g, uint b)
{
    return (uchar)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
}

__kernel void rgb_to_gray(__global const uchar *rgb, __global uchar *gray, int width, int height)
{
    int x = get_global_id(0);   // column
    int y = get_global_id(1);   // row
    if (x < width && y < height) {
        int i = y * width + x;
        gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    }
}
