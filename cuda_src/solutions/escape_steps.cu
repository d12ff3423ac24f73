// Solution: the escape count of a list of points c, one thread per point.
//
// mandelbrot_point's loop in CUDA C: the new real part goes to a temporary first, since the new
// imaginary part needs the old real part.

__global__ void escape_steps(const float *c_re, const float *c_im, int *steps, int n,
                             int max_iter)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = 0;
    float z_re = 0.0f, z_im = 0.0f;
    while (k < max_iter && z_re * z_re + z_im * z_im <= 4.0f) {
        float re = z_re * z_re - z_im * z_im + c_re[i];
        z_im = 2.0f * z_re * z_im + c_im[i];
        z_re = re;
        k++;
    }
    steps[i] = k;
}
