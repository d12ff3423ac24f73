// Kernels whose results C++ leaves to the machine, or which the CUDA Math API defines bit for bit:
// float and double to integer conversions in every rounding mode (PTX's cvt saturates; NaN gives 0
// from a float to a 32-bit integer, else the top bit of the integer's width) and the integer and
// SIMD intrinsics. bench/float_identity.py compares the
// simulator's bits with an H200's.

__global__ void casts(const float *x, const double *y, unsigned long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = x[i];
    double d = y[i];
    unsigned long long *o = out + 32 * i;
    o[0] = __float2int_rn(f);   o[1] = __float2int_rz(f);   o[2] = __float2int_rd(f);   o[3] = __float2int_ru(f);
    o[4] = __float2uint_rn(f);  o[5] = __float2uint_rz(f);  o[6] = __float2uint_rd(f);  o[7] = __float2uint_ru(f);
    o[8] = __float2ll_rn(f);    o[9] = __float2ll_rz(f);    o[10] = __float2ll_rd(f);   o[11] = __float2ll_ru(f);
    o[12] = __float2ull_rn(f);  o[13] = __float2ull_rz(f);  o[14] = __float2ull_rd(f);  o[15] = __float2ull_ru(f);
    o[16] = __double2int_rn(d); o[17] = __double2int_rz(d); o[18] = __double2int_rd(d); o[19] = __double2int_ru(d);
    o[20] = __double2uint_rn(d); o[21] = __double2uint_rz(d); o[22] = __double2uint_rd(d); o[23] = __double2uint_ru(d);
    o[24] = __double2ll_rn(d);  o[25] = __double2ll_rz(d);  o[26] = __double2ll_rd(d);  o[27] = __double2ll_ru(d);
    o[28] = __double2ull_rn(d); o[29] = __double2ull_rz(d); o[30] = __double2ull_rd(d); o[31] = __double2ull_ru(d);
}

__global__ void integer_intrinsics(const unsigned *a, const unsigned *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned long long wx = ((unsigned long long)x << 32) | y, wy = ((unsigned long long)y << 32) | x;
    unsigned long long uh = __umul64hi(wx, wy);
    long long sh = __mul64hi((long long)wx, (long long)wy);
    unsigned *o = out + 24 * i;
    o[0] = __byte_perm(x, y, y & 0x7777u); o[1] = (unsigned)uh; o[2] = (unsigned)(uh >> 32);
    o[3] = (unsigned)sh; o[4] = (unsigned)(sh >> 32); o[5] = __fns(x, y % 32, (int)(y >> 27) - 16);
    o[6] = __vadd2(x, y); o[7] = __vaddss4(x, y); o[8] = __vavgs2(x, y); o[9] = __vavgs4(x, y);
    o[10] = __vcmpgtu4(x, y); o[11] = __vcmpges2(x, y); o[12] = __vsads2(x, y); o[13] = __vsadu4(x, y);
    o[14] = __vseteq2(x, x ^ (y & 0xFFFF)); o[15] = __vsetlts4(x, y); o[16] = __vabsss4(x);
    o[17] = __vsubus2(x, y); o[18] = __vhaddu4(x, y); o[19] = __vnegss2(x); o[20] = __vabsdiffs4(x, y);
    o[21] = __vmins2(x, y); o[22] = __vavgu4(x, y); o[23] = __vsubss2(x, y);
}
