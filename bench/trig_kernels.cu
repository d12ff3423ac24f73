// sinf, cosf and sincosf on floats of every magnitude, for bench/float_identity.py. A GPU's sinf
// is software (libdevice's __nv_sinf: no special hardware), the same bits on every GPU; the
// simulator runs the same steps (helpers/sim/include/sim_trig.h). Arguments of 105615 or more
// take the long reduction (192 bits of 2/pi), the others the short one.

__global__ void trig(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s, c;
        sincosf(x[i], &s, &c);
        out[4 * i] = sinf(x[i]);
        out[4 * i + 1] = cosf(x[i]);
        out[4 * i + 2] = s;
        out[4 * i + 3] = c;
    }
}
