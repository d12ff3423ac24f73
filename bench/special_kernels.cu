// Arithmetic on special values (bench/float_identity.py's special_values and special_doubles),
// in a file of its own: a stored output's digest covers its whole source file.
// Arithmetic on special values: every pair (a[i], b[i]) of NaNs with other bits and either sign,
// infinities, zeros of either sign, a subnormal and the largest float, through the operations a
// GPU has in hardware. Which NaN comes out is the machine's: the CPU passes an operand's NaN on
// and makes 0xFFC00000 of an invalid operation (0 * inf, inf - inf, 0 / 0, sqrt of -1).
__global__ void special_values(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], *o = out + 10 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = fmaf(x, y, 1.0f);
    o[5] = sqrtf(x);
    o[6] = -x;
    o[7] = fabsf(x);
    o[8] = fminf(x, y);
    o[9] = fmaxf(x, y);
}

// The same on doubles: + - * /, fma, sqrt, negation, fabs, fmin and fmax on every pair of special
// doubles (a GPU's min.f64 and max.f64 behind fmin and fmax).
__global__ void special_doubles(const double *a, const double *b, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], *o = out + 10 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = fma(x, y, 1.0);
    o[5] = sqrt(x);
    o[6] = -x;
    o[7] = fabs(x);
    o[8] = fmin(x, y);
    o[9] = fmax(x, y);
}
