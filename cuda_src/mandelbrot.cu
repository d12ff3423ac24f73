// The Mandelbrot set, one thread per pixel.
//
// Pixel (x, y) stands for the complex number c = (x_min + x*dx) + i*(y_min + y*dy).
// Starting from z = 0, the thread iterates z = z*z + c and counts the steps until |z|^2 > 4
// (then z is certain to run off to infinity) or until max_iter steps have passed (then c is
// taken to be inside the set). iters[y*width + x] gets that count: row-major, like a NumPy
// array of shape (height, width).
//
// Compiled with PyCUDA's default extern "C" wrapping: no extern "C" here.

__global__ void mandelbrot(int *iters, int width, int height,
                           float x_min, float y_min, float dx, float dy, int max_iter)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (x >= width || y >= height)                   // the grid is rounded up to whole blocks
        return;

    float c_re = x_min + x * dx;
    float c_im = y_min + y * dy;
    float z_re = 0.0f, z_im = 0.0f;
    int n = 0;
    while (n < max_iter) {
        float re2 = z_re * z_re, im2 = z_im * z_im;
        if (re2 + im2 > 4.0f)                        // escaped
            break;
        z_im = 2.0f * z_re * z_im + c_im;            // (a + ib)^2 = a^2 - b^2 + 2iab
        z_re = re2 - im2 + c_re;
        n++;
    }
    iters[y * width + x] = n;
}

// The same computation in double precision: the arguments that place the pixels are doubles too,
// so that a deep zoom (tiny dx, dy) keeps its detail. Only the arithmetic type changes.
__global__ void mandelbrot_double(int *iters, int width, int height,
                                  double x_min, double y_min, double dx, double dy, int max_iter)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    double c_re = x_min + x * dx;
    double c_im = y_min + y * dy;
    double z_re = 0.0, z_im = 0.0;
    int n = 0;
    while (n < max_iter) {
        double re2 = z_re * z_re, im2 = z_im * z_im;
        if (re2 + im2 > 4.0)
            break;
        z_im = 2.0 * z_re * z_im + c_im;
        z_re = re2 - im2 + c_re;
        n++;
    }
    iters[y * width + x] = n;
}
