// Exercise: the escape count of a list of points c, one thread per point.
//
// Point i is c = c_re[i] + i*c_im[i]. Its count is the number of steps of z = z*z + c, from
// z = 0, taken while |z|^2 <= 4, at most max_iter: the loop of mandelbrot_point in notebook 03,
// now run by one thread for its own point. Each thread runs its loop for as many steps as its
// own point needs.
//
// The index and the guard are written; the loop is yours.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.escape_steps import check_escape_steps
//   check_escape_steps()

__global__ void escape_steps(const float *c_re, const float *c_im, int *steps, int n,
                             int max_iter)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = 0;
    // TODO: z starts at 0: float z_re = 0.0f, z_im = 0.0f; then, while k < max_iter and
    //       z_re * z_re + z_im * z_im <= 4: one step of z = z*z + c,
    //       (a + ib)^2 = (a*a - b*b) + i*(2*a*b), both new parts from the OLD z; then k++.
    steps[i] = k;
}
