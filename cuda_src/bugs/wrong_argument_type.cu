// Bug: a wrong argument type (the kernel is right; the launch is not).
//
// The kernel takes float (4-byte) arrays. The host made x with NumPy's default type, float64
// (np.random.default_rng().random(n), np.linspace, np.array([1.0, ...]) all give 8-byte
// doubles) and passed it as it is: the kernel reads the bytes of n/2 doubles as n floats.
// (The fix: x.astype(np.float32) before gpuarray.to_gpu.)

__global__ void scale(const float *x, float *y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}
