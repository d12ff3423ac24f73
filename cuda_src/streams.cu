// Kernels for notebook 05 (page-locked memory, streams and events).
//
// iterate_sin gives the copy/compute pipeline something to compute: each thread reads one
// element x and iterates  y <- sin(y) + x  `work` times, starting from y = x. `work` sets how long
// the kernel runs per element, so the notebook can make the kernel take about as long as copying
// its chunk over PCIe (a plain copy kernel would be ~80x faster than the PCIe copies on an H200).
//
// The iteration stays bounded (|y| <= 1 + |x|), so float32 is fine and a NumPy loop of the same
// form reproduces the result to a few units in the last place.
//
// Launched through PyCUDA's SourceModule, which wraps the source in extern "C": no extern "C" here.

__global__ void iterate_sin(const float *in, float *out, int n, int work)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        float y = x;
        for (int k = 0; k < work; ++k)
            y = sinf(y) + x;
        out[i] = y;
    }
}
