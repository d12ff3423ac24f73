// Half precision and bfloat16 (cuda_fp16.h, cuda_bf16.h): the conversions, the arithmetic, the
// comparisons and the math functions, each result stored as its bits, so that the simulator's can
// be compared with a GPU's bit for bit (tests/kernels/test_half_precision.py against NumPy's
// float16 and a bfloat16 model; bench/float_identity.py against an H200's stored outputs).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Every 16-bit pattern as a half and as a bfloat16: to float, and back to 16 bits.
extern "C" __global__ void widen(const unsigned short *bits, float *h, float *b, unsigned short *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    h[i] = __half2float(__ushort_as_half(bits[i]));
    b[i] = __bfloat162float(__ushort_as_bfloat16(bits[i]));
    back[2 * i] = __half_as_ushort(__float2half_rn(h[i]));
    back[2 * i + 1] = __bfloat16_as_ushort(__float2bfloat16_rn(b[i]));
}

// A float or a double to 16 bits in each rounding mode; an int to 16 bits.
extern "C" __global__ void narrow(const float *x, const double *d, const int *k, unsigned short *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = x[i];
    unsigned short *o = out + 16 * i;
    o[0] = __half_as_ushort(__float2half_rn(f));   o[1] = __half_as_ushort(__float2half_rz(f));
    o[2] = __half_as_ushort(__float2half_rd(f));   o[3] = __half_as_ushort(__float2half_ru(f));
    o[4] = __bfloat16_as_ushort(__float2bfloat16_rn(f)); o[5] = __bfloat16_as_ushort(__float2bfloat16_rz(f));
    o[6] = __bfloat16_as_ushort(__float2bfloat16_rd(f)); o[7] = __bfloat16_as_ushort(__float2bfloat16_ru(f));
    o[8] = __half_as_ushort(__double2half(d[i]));  o[9] = __bfloat16_as_ushort(__double2bfloat16(d[i]));
    o[10] = __half_as_ushort(__int2half_rn(k[i])); o[11] = __half_as_ushort(__int2half_rz(k[i]));
    o[12] = __half_as_ushort(__int2half_rd(k[i])); o[13] = __half_as_ushort(__int2half_ru(k[i]));
    o[14] = __bfloat16_as_ushort(__int2bfloat16_rn(k[i]));
    o[15] = __half_as_ushort(__float2half(f));
}

#define HALF_OPS 24
#define HALF_INTS 6
// What has a name of its own for each type.
__device__ __half low(__half2 p) { return __low2half(p); }
__device__ __half high(__half2 p) { return __high2half(p); }
__device__ __nv_bfloat16 low(__nv_bfloat162 p) { return __low2bfloat16(p); }
__device__ __nv_bfloat16 high(__nv_bfloat162 p) { return __high2bfloat16(p); }
__device__ void to_int(__half a, int *k) {
    k[0] = __half2int_rn(a); k[1] = __half2int_rz(a); k[2] = __half2int_rd(a); k[3] = __half2int_ru(a);
}
__device__ void to_int(__nv_bfloat16 a, int *k) {
    k[0] = __bfloat162int_rn(a); k[1] = __bfloat162int_rz(a); k[2] = __bfloat162int_rd(a); k[3] = __bfloat162int_ru(a);
}
// The operators and intrinsics on (a, b, c): 16-bit results as bits, comparisons and integer
// conversions as ints. T is __half or __nv_bfloat16, T2 its pair.
template <typename T, typename T2>
__device__ void ops(const T a, const T b, const T c, unsigned short *o, int *k) {
    T s = a;
    s += b;
    T2 p = T2(a, b), q = T2(b, c);
    T2 pq = __hmul2(p, q);
    T v[HALF_OPS] = {a + b, a - b, a * b, a / b, __hfma(a, b, c), __hmax(a, b), __hmin(a, b),
                     __hmax_nan(a, b), __hmin_nan(a, b), __hadd_sat(a, b), __hfma_relu(a, b, c),
                     __hneg(a), __habs(a), s, low(pq), high(pq), hsqrt(a), hrcp(a),
                     hexp(a), hlog(a), hsin(a), hcos(a), hfloor(a), hrint(a)};
    for (int j = 0; j < HALF_OPS; j++) o[j] = *(const unsigned short *)&v[j];
    k[0] = (a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 | (a >= b) << 5 |
           __hequ(a, b) << 6 | __hltu(a, b) << 7 | __hisnan(a) << 8 | (__hisinf(a) & 3) << 9 |
           __hbgt2(p, q) << 11;
    k[1] = __hlt2_mask(p, q);
    to_int(a, k + 2);
}

extern "C" __global__ void half_ops(const __half *a, const __half *b, const __half *c, unsigned short *out,
                         int *ints, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ops<__half, __half2>(a[i], b[i], c[i], out + HALF_OPS * i, ints + HALF_INTS * i);
}

extern "C" __global__ void bfloat16_ops(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const __nv_bfloat16 *c,
                             unsigned short *out, int *ints, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ops<__nv_bfloat16, __nv_bfloat162>(a[i], b[i], c[i], out + HALF_OPS * i, ints + HALF_INTS * i);
}

// Warp shuffles and atomics: each lane's value shifted down by one, a pair's halves swapped
// across the warp, and atomicAdd of halves, pairs and bfloat16s into three sums.
extern "C" __global__ void half_warp(const __half *a, __half *down, __half2 *swapped, __half *sum,
                          __half2 *sum2, __nv_bfloat16 *bsum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half x = i < n ? a[i] : __float2half(0.0f);
    __half y = __shfl_down_sync(0xffffffffu, x, 1);
    __half2 p = __shfl_xor_sync(0xffffffffu, __halves2half2(x, y), 16);
    if (i >= n) return;
    down[i] = y;
    swapped[i] = __lowhigh2highlow(p);
    atomicAdd(sum, __float2half(1.0f));
    atomicAdd(sum2, __halves2half2(__float2half(0.5f), __float2half(-0.25f)));
    atomicAdd(bsum, __float2bfloat16(1.0f));
}
