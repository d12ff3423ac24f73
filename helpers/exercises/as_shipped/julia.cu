// Exercise: the Julia set of z -> z*z + c, one thread per pixel.
//
// The Mandelbrot kernel (cuda_src/mandelbrot.cu) starts every pixel at z = 0 and uses the pixel's
// point as c. A Julia set swaps the roles:
//   - z STARTS at the pixel's point: z = (x_min + x*dx) + i*(y_min + y*dy)
//   - c = c_re + i*c_im is the same for every pixel (a kernel argument)
// Count the steps n of z = z*z + c until |z|^2 > 4, at most max_iter, and store n in
// iters[y*width + x] (row-major: y is the row, x the column).
//
// The grid is rounded up to whole blocks, so some threads fall outside the image: they must
// not write anything.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.julia import check_julia
//   check_julia()

__global__ void julia(int *iters, int width, int height,
                      float x_min, float y_min, float dx, float dy,
                      float c_re, float c_im, int max_iter)
{
    int x = threadIdx.x;   // TODO: this is only right in block 0: add the block's offset
    int y = threadIdx.y;   // TODO: same for y
    // TODO: threads outside the image (x >= width or y >= height) must return here

    float z_re = 0.0f;     // TODO: z starts at the pixel's point, not at 0
    float z_im = 0.0f;     // TODO: the same for z_im
    int n = 0;
    while (n < max_iter && z_re * z_re + z_im * z_im <= 4.0f) {   // TODO: (or test |z|^2 > 4 in the loop)
        // TODO: one step of z = z*z + c (complex square: (a + ib)^2 = (a*a - b*b) + i*(2*a*b));
        //       compute both new parts from the OLD z_re and z_im
        n++;
    }

    iters[y * width + x] = n;
}
