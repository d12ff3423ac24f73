// The sum of cuda_src/reduction.cu's kernels as plain serial C++, one element after another on one
// core: a peer for bench/course_kernels.py on the simulator. It adds in double: a float total of
// millions of floats loses digits (each addition rounds to the total's precision), which is what a
// careful programmer avoids on a CPU. Built at run time with g++ -O2 -shared -fPIC and called
// through ctypes.

extern "C" double sum_serial(const float *x, int n)
{
    double total = 0.0;
    for (int i = 0; i < n; ++i)
        total += x[i];
    return total;
}
