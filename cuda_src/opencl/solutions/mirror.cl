// Solution: mirror an image left to right, one work-item per pixel, on a 2D range.
//
// Dimension 1 of the range gives the row, get_global_id(1), as dimension 0 gives the column. The
// range is rounded up to whole work-groups, so the work-items past the right or bottom edge
// return before they touch memory. The pixel (x, y) of the mirror is the input's pixel at column
// width - 1 - x (not width - x, which for x = 0 is the next row's first pixel).

__kernel void mirror(__global const float *in, __global float *out, int width, int height)
{
    int x = get_global_id(0);   // the column
    int y = get_global_id(1);   // the row
    if (x >= width || y >= height)
        return;

    out[y * width + x] = in[y * width + (width - 1 - x)];
}
