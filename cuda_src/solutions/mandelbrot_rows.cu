// Solution: the Mandelbrot set with one block a row.
//
// Block blockIdx.x draws row blockIdx.x; its threads stride along the row by blockDim.x, so that
// in every pass of the loop a warp works on 32 neighbouring pixels of the row.

__global__ void mandelbrot_rows(int *iters, int width, int height,
                                float x_min, float y_min, float dx, float dy, int max_iter)
{
    int y = blockIdx.x;
    for (int x = threadIdx.x; x < width; x += blockDim.x) {
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
