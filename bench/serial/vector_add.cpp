// The loop of cuda_src/vector_add.cu (kernel `vector_add`) as plain serial C++, one element
// after another on one core: a peer for bench/course_kernels.py on the simulator.
// Built at run time with g++ -O2 -shared -fPIC and called through ctypes.

extern "C" void vector_add_serial(const float *a, const float *b, float *out, int n)
{
    for (int i = 0; i < n; ++i)
        out[i] = a[i] + b[i];
}
