// sinf, cosf, sincosf, logf, log2f and log10f on floats of every magnitude, for
// bench/float_identity.py. A GPU's versions are software (libdevice's __nv_sinf and friends: no
// special hardware), the same bits on every GPU; the simulator runs the same steps
// (helpers/sim/include/sim_trig.h, sim_log.h). Arguments of 105615 or more take sinf's long
// reduction (192 bits of 2/pi), the others the short one; the logarithms of negative numbers
// are NaN.

__global__ void libdevice_functions(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float *o = out + 7 * i;
        o[0] = sinf(x[i]);
        o[1] = cosf(x[i]);
        sincosf(x[i], &o[2], &o[3]);
        o[4] = logf(x[i]);
        o[5] = log2f(x[i]);
        o[6] = log10f(x[i]);
    }
}
