// The loop of cuda_src/grayscale.cu (kernels `rgb_to_gray` and `rgb_to_gray_x16`: the same
// result) as plain serial C++: BT.601 luma of n interleaved RGB pixels, the same float
// arithmetic and rounding, one pixel after another on one core. A peer for
// bench/course_kernels.py.

extern "C" void rgb_to_gray_serial(const unsigned char *rgb, unsigned char *gray, int n)
{
    for (int i = 0; i < n; ++i) {
        unsigned int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        gray[i] = (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
    }
}
