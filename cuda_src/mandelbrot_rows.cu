// The Mandelbrot set of notebook 03, one band of rows at a time: to split an image between
// several GPUs, each computing some of its rows.
//
// The whole image is width x height pixels; pixel (x, y) stands for c = (x_min + x*dx) +
// i*(y_min + y*dy), exactly as in cuda_src/mandelbrot.cu. This kernel computes only rows
// row0 to row0 + rows - 1, into a buffer that holds just those rows: iters[r * width + x] for
// row y = row0 + r. Because c comes from the row's number in the whole image, every band gives
// the very same counts as the one-launch kernel: the bands put together are its image, bit for
// bit.
//
// Launch with a 2D grid over the band: grid = (ceil(width / bx), ceil(rows / by)).

__global__ void mandelbrot_rows(int *iters, int width, int row0, int rows,
                                float x_min, float y_min, float dx, float dy, int max_iter)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int r = blockIdx.y * blockDim.y + threadIdx.y;   // row within the band
    if (x >= width || r >= rows)
        return;
    int y = row0 + r;                                // row within the whole image

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
    iters[r * width + x] = n;
}
