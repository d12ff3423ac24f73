// The histogram of cuda_src/histogram.cu's kernels as plain serial C++, one pixel after another on
// one core: a peer for bench/course_kernels.py on the simulator. bins must hold 256 zeros.
// Built at run time with g++ -O2 -shared -fPIC and called through ctypes.

extern "C" void histogram_serial(const unsigned char *pixels, int n, unsigned int *bins)
{
    for (int i = 0; i < n; ++i)
        bins[pixels[i]]++;
}
