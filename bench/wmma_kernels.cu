// The warp matrix functions (mma.h) on every shape and type the simulator runs, so that its
// results can be compared with NumPy (tests/kernels/test_wmma.py) and with an H200's
// (bench/wmma_probe.py): one warp loads A, B and C, multiplies, and stores D; and where each
// element of a fragment lives (which lane holds which element, as x[i]).
#include <mma.h>
using namespace nvcuda;

// The layouts, as bits of `layouts`: 1 A is column-major, 2 B is, 4 C is, 8 D is.
template <int M, int N, int K, class T, class LA, class LB, class TC, class E>
__device__ void product(const E *a, int lda, const E *b, int ldb, const TC *c, int ldc, TC *d, int ldd,
                        int layouts, int round_tf32) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, layouts & 4 ? wmma::mem_col_major : wmma::mem_row_major);
    if constexpr (sizeof(E) == 4) {  // precision::tf32: round the inputs as the CUDA samples do
        if (round_tf32) {
            for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
            for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        }
    }
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldd, layouts & 8 ? wmma::mem_col_major : wmma::mem_row_major);
}

template <int M, int N, int K, class T, class TC, class E>
__device__ void any_layout(const E *a, int lda, const E *b, int ldb, const TC *c, int ldc, TC *d, int ldd,
                           int layouts, int round_tf32) {
    switch (layouts & 3) {
        case 0: product<M, N, K, T, wmma::row_major, wmma::row_major>(a, lda, b, ldb, c, ldc, d, ldd, layouts, round_tf32); break;
        case 1: product<M, N, K, T, wmma::col_major, wmma::row_major>(a, lda, b, ldb, c, ldc, d, ldd, layouts, round_tf32); break;
        case 2: product<M, N, K, T, wmma::row_major, wmma::col_major>(a, lda, b, ldb, c, ldc, d, ldd, layouts, round_tf32); break;
        default: product<M, N, K, T, wmma::col_major, wmma::col_major>(a, lda, b, ldb, c, ldc, d, ldd, layouts, round_tf32);
    }
}

// mma_<inputs>_<M>x<N>x<K>_<accumulator>: one block of one warp.
#define MMA(NAME, M, N, K, T, TC, E)                                                                  \
    extern "C" __global__ void NAME(const E *a, int lda, const E *b, int ldb, const TC *c, int ldc, \
                                    TC *d, int ldd, int layouts, int round_tf32) {                   \
        any_layout<M, N, K, T, TC, E>(a, lda, b, ldb, c, ldc, d, ldd, layouts, round_tf32);        \
    }
MMA(mma_half_16x16x16_float, 16, 16, 16, __half, float, __half)
MMA(mma_half_32x8x16_float, 32, 8, 16, __half, float, __half)
MMA(mma_half_8x32x16_float, 8, 32, 16, __half, float, __half)
MMA(mma_half_16x16x16_half, 16, 16, 16, __half, __half, __half)
MMA(mma_half_32x8x16_half, 32, 8, 16, __half, __half, __half)
MMA(mma_half_8x32x16_half, 8, 32, 16, __half, __half, __half)
MMA(mma_bfloat16_16x16x16_float, 16, 16, 16, __nv_bfloat16, float, __nv_bfloat16)
MMA(mma_bfloat16_32x8x16_float, 32, 8, 16, __nv_bfloat16, float, __nv_bfloat16)
MMA(mma_bfloat16_8x32x16_float, 8, 32, 16, __nv_bfloat16, float, __nv_bfloat16)
MMA(mma_tf32_16x16x8_float, 16, 16, 8, wmma::precision::tf32, float, float)
MMA(mma_s8_16x16x16_int, 16, 16, 16, signed char, int, signed char)
MMA(mma_s8_32x8x16_int, 32, 8, 16, signed char, int, signed char)
MMA(mma_s8_8x32x16_int, 8, 32, 16, signed char, int, signed char)
MMA(mma_u8_16x16x16_int, 16, 16, 16, unsigned char, int, unsigned char)
MMA(mma_u8_32x8x16_int, 32, 8, 16, unsigned char, int, unsigned char)
MMA(mma_u8_8x32x16_int, 8, 32, 16, unsigned char, int, unsigned char)

// Where each element lives: matrices whose element (r, c) is r * cols + c are loaded (row-major),
// and each lane writes its x[i] to out[lane * num_elements + i]. (Exact in a __half up to 2048.)
template <int M, int N, int K>
__device__ void where(const __half *a, const __half *b, const float *c, float *out_a, float *out_b, float *out_c) {
    wmma::fragment<wmma::matrix_a, M, N, K, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, float> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, N);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    int lane = threadIdx.x;
    for (int i = 0; i < fa.num_elements; i++) out_a[lane * fa.num_elements + i] = __half2float(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) out_b[lane * fb.num_elements + i] = __half2float(fb.x[i]);
    for (int i = 0; i < fc.num_elements; i++) out_c[lane * fc.num_elements + i] = fc.x[i];
}

#define WHERE(NAME, M, N, K)                                                                               \
    extern "C" __global__ void NAME(const __half *a, const __half *b, const float *c, float *oa, float *ob, \
                                    float *oc) {                                                          \
        where<M, N, K>(a, b, c, oa, ob, oc);                                                             \
    }
WHERE(where_16x16x16, 16, 16, 16)
WHERE(where_32x8x16, 32, 8, 16)
WHERE(where_8x32x16, 8, 32, 16)

// The same for unsigned char inputs (8-bit, int accumulators): a byte holds element numbers below
// 256 only, so the probe runs it twice, on the numbers' low bytes and on their high bytes. B's rows
// are 16 bytes apart at least (PTX's rule for the leading dimension): 16 where N is 8.
template <int M, int N, int K>
__device__ void where8(const unsigned char *a, const unsigned char *b, int *out_a, int *out_b) {
    wmma::fragment<wmma::matrix_a, M, N, K, unsigned char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, unsigned char, wmma::row_major> fb;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, N < 16 ? 16 : N);
    int lane = threadIdx.x;
    for (int i = 0; i < fa.num_elements; i++) out_a[lane * fa.num_elements + i] = fa.x[i];
    for (int i = 0; i < fb.num_elements; i++) out_b[lane * fb.num_elements + i] = fb.x[i];
}

#define WHERE8(NAME, M, N, K)                                                                              \
    extern "C" __global__ void NAME(const unsigned char *a, const unsigned char *b, int *oa, int *ob) { \
        where8<M, N, K>(a, b, oa, ob);                                                                  \
    }
WHERE8(where_u8_16x16x16, 16, 16, 16)
WHERE8(where_u8_32x8x16, 32, 8, 16)
WHERE8(where_u8_8x32x16, 8, 32, 16)

// The same for tf32 (m16n16k8): element (r, c) is r * cols + c, exact in tf32 below 2048.
extern "C" __global__ void where_tf32(const float *a, const float *b, float *out_a, float *out_b) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 16);
    int lane = threadIdx.x;
    for (int i = 0; i < fa.num_elements; i++) out_a[lane * fa.num_elements + i] = fa.x[i];
    for (int i = 0; i < fb.num_elements; i++) out_b[lane * fb.num_elements + i] = fb.x[i];
}

// __float_to_tf32 on each float (cvt.rna.tf32.f32).
extern "C" __global__ void to_tf32(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = wmma::__float_to_tf32(x[i]);
}
