// Exercise: mirror an image left to right, one work-item per pixel, on a 2D range.
//
// The image is height rows of width floats, row after row: pixel (x, y) is in[y * width + x].
// The mirror's pixel (x, y) is the input's pixel at the mirrored column, width - 1 - x, in the
// same row: column 0 swaps with column width - 1.
//
//     in:   a b c d e          out:  e d c b a
//           f g h i j                j i h g f
//
// The launch is a 2D range rounded up to whole work-groups: dimension 0 runs along a row (x),
// dimension 1 down the image (y), and work-items outside the image must not write anything.
//
// TODO: y from dimension 1 of the range; the guard; read the mirrored column.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.mirror_opencl import check_mirror_opencl
//   check_mirror_opencl()

__kernel void mirror(__global const float *in, __global float *out, int width, int height)
{
    int x = get_global_id(0);   // the column
    int y = get_local_id(1);    // TODO: this is only right in the first row of work-groups
    // TODO: work-items outside the image (x >= width or y >= height) must return here

    out[y * width + x] = in[y * width + x];   // TODO: read the pixel at the mirrored column
}
