// The result of cuda_src/transpose.cu (its three kernels compute the same) as plain serial C++:
// `in`, height rows of width floats, transposed into `out`, width rows of height floats, one row
// of out after another, on one core. A peer for bench/course_kernels.py.

extern "C" void transpose_serial(const float *in, float *out, int width, int height)
{
    for (int x = 0; x < width; ++x)          // row x of out is column x of in
        for (int y = 0; y < height; ++y)
            out[(long)x * height + y] = in[(long)y * width + x];
}
