// sim_log.h -- logf, log2f and log10f as a GPU computes them: CUDA's own code (libdevice's
// __nv_logf, __nv_log2f and __nv_log10f, CUDA 13.0, as nvcc builds them by default: no -ftz),
// step by step, so that they give a GPU's bits rather than the C library's. Included by
// sim_math.h, after the system headers, whose logf the macros at the end replace.
//
// The argument is split into 2^e * m, with m near 1 (a subnormal scaled by 2^23 first), and the
// logarithm of m is a polynomial in f = m - 1 in fused multiply-adds, to which e times log(2)
// is added. Every rounding is spelt out, as in sim_trig.h; bench/libdevice_bits.py compares these
// with libdevice's code itself, compiled for the CPU.
#pragma once

struct __sim_log_parts {
    float x;  // the argument, a subnormal scaled by 2^23
    float e;  // its exponent
    float f;  // its mantissa, between about 0.7 and 1.4, less 1
};

// `middle`: the bits of the mantissa at which e goes up by one (m's range is [middle, 2 middle))
static inline __sim_log_parts __sim_log_split(float a, uint32_t middle) {
    float x = a, e = 0.0f;
    if (a < 0x1p-126f) x = a * 0x1p+23f, e = -23.0f;
    uint32_t bits = __float_as_uint(x), k = (bits - middle) & 0xff800000u;
    return {x, fmaf((float)(int32_t)k, 0x1p-23f, e), __uint_as_float(bits - k) - 1.0f};
}

// A negative number, infinity or NaN: the GPU's NaN, inf, the GPU's NaN; 0: -inf.
static inline float __sim_log_special(float x, float r) {
    if (__float_as_uint(x) >= 0x7f800000u) r = x == INFINITY ? INFINITY : __sim_canonical_nanf();
    return x == 0.0f ? -INFINITY : r;
}

static inline float __sim_logf(float a) {
    static const float k[] = {-0x1.0aa04ep-3f, 0x1.2073ecp-3f, -0x1.f19b98p-4f, 0x1.1e52aap-3f,
                              -0x1.55b172p-3f, 0x1.99da16p-3f, -0x1.fffe44p-3f, 0x1.5554fp-2f, -0.5f};
    __sim_log_parts p = __sim_log_split(a, 0x3f2aaaabu);
    float log_m = fmaf(__fmul_rn(__sim_horner(p.f, k), p.f), p.f, p.f);
    return __sim_log_special(p.x, fmaf(p.e, 0x1.62e43p-1f, log_m));  // + e * log(2)
}

static inline float __sim_log2f(float a) {
    static const float k[] = {0x1.8d64fep-4f, -0x1.58fe6p-3f, 0x1.5f9e54p-3f, -0x1.6e9c86p-3f,
                              0x1.a417e8p-3f, -0x1.ec7916p-3f, 0x1.277f32p-2f, -0x1.715492p-2f,
                              0x1.ec7094p-2f, -0x1.715476p-1f};
    __sim_log_parts p = __sim_log_split(a, 0x3f3504f3u);
    float f = p.f, log2_m = fmaf(f, 0x1.715476p+0f, __fmul_rn(__fmul_rn(__sim_horner(f, k), f), f));
    return __sim_log_special(p.x, __fadd_rn(log2_m, p.e));
}

// logf's, times log10(e): a plain multiply, which a GPU, like the simulator, may fuse with an
// addition that the caller makes of the result
static inline float __sim_log10f(float a) { return 0x1.bcb7b2p-2f * __sim_logf(a); }

namespace std {  // std::logf(x) becomes std::__sim_logf(x)
using ::__sim_log10f;
using ::__sim_log2f;
using ::__sim_logf;
}  // namespace std
#define logf(x) __sim_logf(x)
#define log2f(x) __sim_log2f(x)
#define log10f(x) __sim_log10f(x)
