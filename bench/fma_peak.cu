// fma_peak.cu: the arithmetic ceiling for bench/course_kernels.py (not a course kernel).
//
// Each thread runs 8 independent chains x <- a * x + b for `iters` steps. nvcc contracts each
// a * x + b into one fused multiply-add (FFMA), counted as 2 FLOPs; the 8 chains give every warp
// 8 independent FMAs in flight, and the unrolled loop leaves few other instructions, so a full
// grid runs close to the device's FP32 peak. The result, written so that nothing is optimised
// away, is 8 * b / (1 - a) once the chains have converged (a = 0.5, b = 1: 16).
//
// On the simulator (g++ without -mfma) each step is a multiply and an add: still 2 FLOPs.

__global__ void fma_peak(float *out, int iters, float a, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x0 = 1e-6f * (i & 1023), x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
#pragma unroll 16
    for (int k = 0; k < iters; ++k) {
        x0 = a * x0 + b;
        x1 = a * x1 + b;
        x2 = a * x2 + b;
        x3 = a * x3 + b;
        x4 = a * x4 + b;
        x5 = a * x5 + b;
        x6 = a * x6 + b;
        x7 = a * x7 + b;
    }
    out[i] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
