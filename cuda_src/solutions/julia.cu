// Exercise solution: the Julia set of z -> z*z + c, one thread per pixel.
//
// Same loop as the Mandelbrot kernel, with the roles swapped: z starts at the pixel's point
// (x_min + x*dx) + i*(y_min + y*dy), and c = c_re + i*c_im is the same for every pixel.

__global__ void julia(int *iters, int width, int height,
                      float x_min, float y_min, float dx, float dy,
                      float c_re, float c_im, int max_iter)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (x >= width || y >= height)
        return;

    float z_re = x_min + x * dx;
    float z_im = y_min + y * dy;
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
