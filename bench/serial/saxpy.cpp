// The loop of cuda_src/indexing.cu (kernel `saxpy`) as plain serial C++: y = a * x + y,
// in place, one element after another on one core. A peer for bench/course_kernels.py.

extern "C" void saxpy_serial(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; ++i)
        y[i] = a * x[i] + y[i];
}
