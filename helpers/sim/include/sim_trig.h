// sim_trig.h -- sinf, cosf and sincosf as a GPU computes them: CUDA's own code (libdevice's
// __nv_sinf, __nv_cosf and __nv_sincosf, CUDA 13.0, as nvcc builds them by default: no -ftz),
// step by step, so that they give a GPU's bits rather than the C library's. Included by
// sim_math.h, after the system headers, whose sinf the macros at the end replace.
//
// The argument is reduced to t = x - q * pi/2: for |x| < 105615 with pi/2 in three parts and
// fused multiply-adds (Cody and Waite); beyond, with 192 bits of 2/pi (Payne and Hanek). Then
// sin or cos of t is a polynomial in t*t, picked by q's low bit and negated by its second. Every
// rounding is spelt out (fmaf, __fmul_rn), so the compiler's own fusing cannot change a bit.
// bench/libdevice_bits.py compares these with libdevice's code itself, compiled for the CPU.
#pragma once

struct __sim_quadrant_and_rest {
    float t;  // x - q * pi/2, |t| <= pi/4 or so
    int q;    // the quadrant (its two low bits count)
};

// 2/pi's first 192 bits after the binary point, the lowest word first (libdevice's __cudart_i2opi_f)
static const uint32_t __sim_two_over_pi[6] = {0x3c439041u, 0xdb629599u, 0xf534ddc0u,
                                              0xfc2757d1u, 0x4e441529u, 0xa2f9836eu};

// |x| >= 105615 and finite: x's 24-bit mantissa times 2/pi in fixed point, keeping the bits
// around the binary point that matter for x's exponent.
__attribute__((noinline, cold)) static __sim_quadrant_and_rest __sim_trig_reduce_far(float x) {
    uint32_t bits = __float_as_uint(x), sign = bits & 0x80000000u;
    int e = (int)((bits >> 23) & 255u) - 128;          // at least 15 here
    uint32_t mantissa = (bits << 8) | 0x80000000u, words[7], carry = 0;
    for (int k = 0; k < 6; k++) {
        uint64_t p = (uint64_t)__sim_two_over_pi[k] * mantissa + carry;
        words[k] = (uint32_t)p;
        carry = (uint32_t)(p >> 32);
    }
    words[6] = carry;
    int first = 4 - (e >> 5), shift = e & 31;
    uint32_t hi = words[first + 2], lo = words[first + 1];
    if (shift) {
        hi = (hi << shift) + (lo >> (32 - shift));
        lo = (lo << shift) + (words[first] >> (32 - shift));
    }
    uint32_t quadrant = hi >> 30;
    hi = (hi << 2) + (lo >> 30);
    lo <<= 2;
    uint32_t round_up = hi >> 31;                      // the fraction is over a half
    int q = (int)(quadrant + round_up);
    if (sign) q = -q;
    if (round_up) hi = ~hi, lo = ~lo, sign ^= 0x80000000u;
    double fraction = (double)(int64_t)(((uint64_t)hi << 32) | lo);
    float t = (float)(fraction * 0x1.921fb54442d19p-64);  // times pi/2, scaled
    return {sign ? -t : t, q};
}

static inline __sim_quadrant_and_rest __sim_trig_reduce(float x) {
    // x * 2/pi to the nearest integer, ties to even (cvt.rni): adding 1.5 * 2^23 leaves it in the
    // low bits of the sum while it is below 2^22 (beyond, the long way below gives q)
    float sum = __fmul_rn(x, 0x1.45f306p-1f) + 0x1.8p+23f;
    int q = __float_as_int(sum) - 0x4b400000;
    float qf = __fsub_rn(sum, 0x1.8p+23f);
    float t = fmaf(qf, -0x1.921fb4p+0f, x);               // pi/2 in three parts
    t = fmaf(qf, -0x1.4442dp-24f, t);
    t = fmaf(qf, -0x1.84698ap-48f, t);
    if (fabsf(x) < 105615.0f) return {t, q};
    // infinity or NaN: the GPU's NaN, which every step after passes on with its bits
    if (!(fabsf(x) < INFINITY)) return {__sim_canonical_nanf(), 0};
    return __sim_trig_reduce_far(x);
}

// A polynomial in f (here and in sim_log.h): k[0], then c * f + k[i] for each coefficient after
// it, each step one fused multiply-add
template <int __N> static inline float __sim_horner(float f, const float (&k)[__N]) {
    float c = k[0];
    for (int i = 1; i < __N; i++) c = fmaf(c, f, k[i]);
    return c;
}

static inline float __sim_sin_poly(float t, float t2) {
    static const float k[] = {-0x1.9a82a6p-13f, 0x1.110bc8p-7f, -0x1.55555p-3f};
    return fmaf(__sim_horner(t2, k), fmaf(t2, t, 0.0f), t);
}
static inline float __sim_cos_poly(float t2) {
    static const float k[] = {0x1.9758p-16f, -0x1.6c0fdap-10f, 0x1.555576p-5f, -0x1.fffffep-2f,
                              1.0f};
    return __sim_horner(t2, k);
}
// sin of the quadrant q plus t (cosf: q + 1), negated as libdevice does it, by a fused
// multiply-add with -1 and 0 (which gives +0 for 0)
static inline float __sim_sin_quadrant(__sim_quadrant_and_rest r) {
    float t2 = __fmul_rn(r.t, r.t);
    float z = (r.q & 1) ? __sim_cos_poly(t2) : __sim_sin_poly(r.t, t2);
    return (r.q & 2) ? fmaf(z, -1.0f, 0.0f) : z;
}

static inline float __sim_sinf(float x) { return __sim_sin_quadrant(__sim_trig_reduce(x)); }
static inline float __sim_cosf(float x) {
    __sim_quadrant_and_rest r = __sim_trig_reduce(x);
    r.q += 1;
    return __sim_sin_quadrant(r);
}
// Both from one reduction; negated by a change of sign.
static inline void __sim_sincosf(float x, float *s, float *c) {
    __sim_quadrant_and_rest r = __sim_trig_reduce(x);
    float t2 = __fmul_rn(r.t, r.t), sin_t = __sim_sin_poly(r.t, t2), cos_t = __sim_cos_poly(t2);
    if (r.q & 1) {
        float swap = sin_t;
        sin_t = cos_t, cos_t = swap;
    }
    *s = (r.q & 2) ? -sin_t : sin_t;
    *c = ((r.q + 1) & 2) ? -cos_t : cos_t;
}

namespace std {  // std::sinf(x) becomes std::__sim_sinf(x)
using ::__sim_cosf;
using ::__sim_sincosf;
using ::__sim_sinf;
}  // namespace std
#define sinf(x) __sim_sinf(x)
#define cosf(x) __sim_cosf(x)
#define sincosf(x, s, c) __sim_sincosf((x), (s), (c))
