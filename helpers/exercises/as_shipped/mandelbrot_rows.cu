// Exercise: the Mandelbrot set with one block a row.
//
// The same picture as the mandelbrot kernel (cuda_src/mandelbrot.cu), with another layout: the
// checker launches one block for each row of the image, grid = (height, 1), and blocks of fewer
// threads than the row has pixels (block = (64, 1, 1) for a row of 203 pixels). Block number b
// draws row b; its threads walk along the row together, each taking every blockDim.x-th pixel,
// so that a warp always holds 32 neighbouring pixels of one row (notebook 03's warps of 32 x 1).
//
// TODO:
//   1. The row of this block.
//   2. A loop over the row instead of one pixel: x from threadIdx.x, in steps of blockDim.x,
//      while x < width.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.mandelbrot_rows import check_mandelbrot_rows
//   check_mandelbrot_rows()

__global__ void mandelbrot_rows(int *iters, int width, int height,
                                float x_min, float y_min, float dx, float dy, int max_iter)
{
    int y = 0;                  // TODO 1: block number b draws row b
    int x = threadIdx.x;        // TODO 2: a loop, instead of this one pixel a thread,
    if (x < width) {            // TODO 2: over x = threadIdx.x, + blockDim.x, ... below width
        float c_re = x_min + x * dx;
        float c_im = y_min + y * dy;
        float z_re = 0.0f, z_im = 0.0f;
        int n = 0;
        while (n < max_iter) {
            float re2 = z_re * z_re, im2 = z_im * z_im;
            if (re2 + im2 > 4.0f)
                break;
            z_im = 2.0f * z_re * z_im + c_im;
            z_re = re2 - im2 + c_re;
            n++;
        }
        iters[y * width + x] = n;
    }
}
