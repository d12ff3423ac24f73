// The loop of cuda_src/mandelbrot.cu (kernel `mandelbrot`) as plain serial C++: the same float
// arithmetic in the same order, one pixel after another on one core. A peer for
// bench/course_kernels.py and bench/simulator.py (which also runs one image per core at once:
// ctypes lets go of the GIL).

extern "C" void mandelbrot_serial(int *iters, int width, int height, float x_min, float y_min,
                                  float dx, float dy, int max_iter)
{
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
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
}
