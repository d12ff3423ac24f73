// The loop of cuda_src/streams.cu (kernel `iterate_sin`) as plain serial C++: y <- sin(y) + x,
// `work` times from y = x, one element after another on one core. A peer for
// bench/course_kernels.py.

#include <math.h>

extern "C" void iterate_sin_serial(const float *in, float *out, int n, int work)
{
    for (int i = 0; i < n; ++i) {
        float x = in[i];
        float y = x;
        for (int k = 0; k < work; ++k)
            y = sinf(y) + x;
        out[i] = y;
    }
}
