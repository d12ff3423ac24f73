// sim_simd.h -- the SIMD intrinsics on 32-bit words (__vadd2, __vcmpgtu4, __vsads2, ...), as the
// CUDA Math API defines them: each works on two 16-bit halves (the "2" forms) or four bytes
// (the "4" forms) of its arguments at once. Included by sim_math.h.
//
// __vcmp* give all ones in a lane where the comparison holds, __vset* give 1 in that lane; the
// "ss" forms saturate to the signed range of a lane, the "us" forms to the unsigned range;
// __vavgu* round half up ((a + b + 1) >> 1), __vavgs* half away from zero (-46.5 gives -47 on
// an H200), __vhaddu* round down; __vsad* add the lanes'
// absolute differences into one number.
#pragma once

// f(unsigned lane of a, of b, the same read as signed) for each lane, the results packed again
template <int __W, typename __F> static inline unsigned __sim_lanes(unsigned __a, unsigned __b, __F __f) {
    const unsigned __m = (1u << __W) - 1;
    unsigned __r = 0;
    for (int __s = 0; __s < 32; __s += __W) {
        long __u = (__a >> __s) & __m, __v = (__b >> __s) & __m;
        long __x = __u >= (1L << (__W - 1)) ? __u - (1L << __W) : __u;
        long __y = __v >= (1L << (__W - 1)) ? __v - (1L << __W) : __v;
        __r |= ((unsigned)__f(__u, __v, __x, __y) & __m) << __s;
    }
    return __r;
}
template <int __W> static inline long __sim_sat_s(long __v) {
    return __v < -(1L << (__W - 1)) ? -(1L << (__W - 1)) : __v > (1L << (__W - 1)) - 1 ? (1L << (__W - 1)) - 1 : __v;
}
template <int __W> static inline long __sim_sat_u(long __v) {
    return __v < 0 ? 0 : __v > (1L << __W) - 1 ? (1L << __W) - 1 : __v;
}
static inline long __sim_abs(long __v) { return __v < 0 ? -__v : __v; }

// u, v: the lanes as unsigned; x, y: as signed; W: the lane's width in bits
#define __SIM_V2(name, expr)                                                                     \
    __SIM_ON_USE static inline unsigned name##2(unsigned a, unsigned b) {                         \
        return __sim_lanes<16>(a, b, [](long u, long v, long x, long y) -> long {                 \
            constexpr int W = 16; (void)u, (void)v, (void)x, (void)y; return (expr); });          \
    }                                                                                             \
    __SIM_ON_USE static inline unsigned name##4(unsigned a, unsigned b) {                         \
        return __sim_lanes<8>(a, b, [](long u, long v, long x, long y) -> long {                  \
            constexpr int W = 8; (void)u, (void)v, (void)x, (void)y; return (expr); });           \
    }
#define __SIM_V1(name, expr)                                                                     \
    __SIM_V2(__sim_unary_##name, expr)                                                            \
    __SIM_ON_USE static inline unsigned name##2(unsigned a) { return __sim_unary_##name##2(a, 0); } \
    __SIM_ON_USE static inline unsigned name##4(unsigned a) { return __sim_unary_##name##4(a, 0); }

__SIM_V1(__vabs, __sim_abs(x))
__SIM_V1(__vabsss, __sim_sat_s<W>(__sim_abs(x)))
__SIM_V1(__vneg, -x)
__SIM_V1(__vnegss, __sim_sat_s<W>(-x))
__SIM_V2(__vadd, u + v)
__SIM_V2(__vaddss, __sim_sat_s<W>(x + y))
__SIM_V2(__vaddus, __sim_sat_u<W>(u + v))
__SIM_V2(__vsub, u - v)
__SIM_V2(__vsubss, __sim_sat_s<W>(x - y))
__SIM_V2(__vsubus, __sim_sat_u<W>(u - v))
__SIM_V2(__vavgs, (x + y + (x + y >= 0 ? 1 : -1)) / 2)  // half away from zero (the H200's)
__SIM_V2(__vavgu, (u + v + 1) >> 1)
__SIM_V2(__vhaddu, (u + v) >> 1)
__SIM_V2(__vabsdiffs, __sim_abs(x - y))
__SIM_V2(__vabsdiffu, __sim_abs(u - v))
__SIM_V2(__vmaxs, x > y ? x : y)
__SIM_V2(__vmaxu, u > v ? u : v)
__SIM_V2(__vmins, x < y ? x : y)
__SIM_V2(__vminu, u < v ? u : v)
__SIM_V2(__vcmpeq, -(long)(u == v))
__SIM_V2(__vcmpne, -(long)(u != v))
__SIM_V2(__vcmpges, -(long)(x >= y))
__SIM_V2(__vcmpgeu, -(long)(u >= v))
__SIM_V2(__vcmpgts, -(long)(x > y))
__SIM_V2(__vcmpgtu, -(long)(u > v))
__SIM_V2(__vcmples, -(long)(x <= y))
__SIM_V2(__vcmpleu, -(long)(u <= v))
__SIM_V2(__vcmplts, -(long)(x < y))
__SIM_V2(__vcmpltu, -(long)(u < v))
__SIM_V2(__vseteq, u == v)
__SIM_V2(__vsetne, u != v)
__SIM_V2(__vsetges, x >= y)
__SIM_V2(__vsetgeu, u >= v)
__SIM_V2(__vsetgts, x > y)
__SIM_V2(__vsetgtu, u > v)
__SIM_V2(__vsetles, x <= y)
__SIM_V2(__vsetleu, u <= v)
__SIM_V2(__vsetlts, x < y)
__SIM_V2(__vsetltu, u < v)
#undef __SIM_V1
#undef __SIM_V2

// the sum of the lanes' absolute differences
template <int __W, bool __Signed> static inline unsigned __sim_sad(unsigned __a, unsigned __b) {
    unsigned __sum = 0;
    __sim_lanes<__W>(__a, __b, [&__sum](long __u, long __v, long __x, long __y) -> long {
        __sum += (unsigned)(__Signed ? __sim_abs(__x - __y) : __sim_abs(__u - __v));
        return 0;
    });
    return __sum;
}
static inline unsigned __vsads2(unsigned a, unsigned b) { return __sim_sad<16, true>(a, b); }
static inline unsigned __vsadu2(unsigned a, unsigned b) { return __sim_sad<16, false>(a, b); }
static inline unsigned __vsads4(unsigned a, unsigned b) { return __sim_sad<8, true>(a, b); }
static inline unsigned __vsadu4(unsigned a, unsigned b) { return __sim_sad<8, false>(a, b); }
