// Exercise: port the sepia kernel (notebook 04's exercise, cuda_src/exercises/sepia.cu) to
// OpenCL, one work-item per pixel.
//
// The image is interleaved RGB: pixel i = y * width + x has red, green and blue at rgb[3*i],
// rgb[3*i + 1], rgb[3*i + 2], and the output has the same layout. Each output channel mixes all
// three input channels:
//
//     R' = 0.393 R + 0.769 G + 0.189 B
//     G' = 0.349 R + 0.686 G + 0.168 B
//     B' = 0.272 R + 0.534 G + 0.131 B
//
// Round each to the nearest integer and clamp it to 255 (a white pixel gives R' = 344.5). OpenCL C
// has a conversion that clamps for you: convert_uchar_sat(v) (a plain cast (uchar)v does not).
//
// The launch is a 2D range rounded up to whole work-groups: dimension 0 runs along a row (x),
// dimension 1 down the image (y), and work-items outside the image must not write anything.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.sepia_opencl import check_sepia_opencl
//   check_sepia_opencl()

__kernel void sepia(__global const uchar *rgb, __global uchar *out, int width, int height)
{
    int x = get_local_id(0);   // TODO: this is only right in work-group 0: use the global index
    int y = get_local_id(1);   // TODO: same for y
    // TODO: work-items outside the image (x >= width or y >= height) must return here

    int i = y * width + x;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];

    // TODO: apply the sepia matrix, round, and clamp each channel to 255.
    //       For now the pixel is copied unchanged.
    out[3 * i]     = (uchar)r;   // TODO
    out[3 * i + 1] = (uchar)g;   // TODO
    out[3 * i + 2] = (uchar)b;   // TODO
}
