// sim_convert.h -- the type-cast intrinsics and the arithmetic intrinsics with a rounding mode
// (__float2int_rd, __double2ull_ru, __ll2float_rz, __fadd_ru, __dsqrt_rd, ...), with PTX's
// answers. Included by sim_math.h.
//
// Float to integer: PTX's cvt.rni/rzi/rmi/rpi rounds to an integer (nearest even, towards zero,
// down, up), then saturates to the integer type's range. So __float2int_rn(3e9f) is INT_MAX and
// __float2uint_rz(-1.0f) is 0, where x86's conversion gives INT_MIN (0x80000000, its "integer
// indefinite") or wraps around. NaN gives 0 from a float to a 32-bit integer, and the top bit of
// the integer's width (0x80000000, 0x8000000000000000) from a double to a 32-bit integer and from
// either to a 64-bit one: so an H200 gave, for each of the 32 casts (CUDA 13.0).
//
// A rounding mode other than nearest: the operation runs with the CPU's rounding mode set to it
// (fesetround), which x86's and Arm's scalar float instructions honour. The operands and the
// result pass through empty asm statements that clobber memory, so that the compiler computes
// the operation between the two fesetround calls and never folds it at compile time.
#pragma once

enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };

// ---- float and double to integer, saturating -----------------------------------------------------
template <typename __I, typename __F> static inline __I __sim_cvt(__F __x, int __mode) {
    if (__x != __x) return sizeof(__I) == 8 || sizeof(__F) == 8 ? (__I)(1ull << (8 * sizeof(__I) - 1)) : 0;
    __F __r = __mode == cudaRoundNearest ? std::nearbyint(__x)
              : __mode == cudaRoundZero  ? std::trunc(__x)
              : __mode == cudaRoundMinInf ? std::floor(__x)
                                          : std::ceil(__x);
    constexpr int __bits = 8 * sizeof(__I) - std::is_signed<__I>::value;
    const __F __top = (__F)std::ldexp(1.0, __bits);  // 2^31, 2^32, 2^63 or 2^64: exact
    if (__r >= __top) return std::numeric_limits<__I>::max();
    if (__r <= (__F)std::numeric_limits<__I>::min()) return std::numeric_limits<__I>::min();
    return (__I)__r;
}
#define __SIM_CVT(name, I, F)                                                           \
    static inline I name##_rn(F x) { return __sim_cvt<I>(x, cudaRoundNearest); }         \
    static inline I name##_rz(F x) { return __sim_cvt<I>(x, cudaRoundZero); }            \
    static inline I name##_rd(F x) { return __sim_cvt<I>(x, cudaRoundMinInf); }          \
    static inline I name##_ru(F x) { return __sim_cvt<I>(x, cudaRoundPosInf); }
__SIM_CVT(__float2int, int, float)
__SIM_CVT(__float2uint, unsigned, float)
__SIM_CVT(__float2ll, long long, float)
__SIM_CVT(__float2ull, unsigned long long, float)
__SIM_CVT(__double2int, int, double)
__SIM_CVT(__double2uint, unsigned, double)
__SIM_CVT(__double2ll, long long, double)
__SIM_CVT(__double2ull, unsigned long long, double)
#undef __SIM_CVT

// ---- in a rounding mode ---------------------------------------------------------------------------
static inline int __sim_fe_mode(int __mode) {
    return __mode == cudaRoundZero ? FE_TOWARDZERO : __mode == cudaRoundPosInf ? FE_UPWARD
         : __mode == cudaRoundMinInf ? FE_DOWNWARD : FE_TONEAREST;
}
template <typename __T> static inline void __sim_pin(__T &__v) { __asm__ volatile("" : "+m"(__v) : : "memory"); }
template <typename __R, typename __Op, typename... __A>
static inline __R __sim_rounded(int __mode, __Op __op, __A... __a) {
    const int __old = fegetround();
    fesetround(__sim_fe_mode(__mode));
    (__sim_pin(__a), ...);
    __R __r = __op(__a...);
    __sim_pin(__r);
    fesetround(__old);
    return __r;
}
// name_rz, _ru and _rd for an operation written on its parameters (x, y, z); the _rn forms
// are the plain operations (sim_math.h gives the ones a multiply-add must not absorb).
#define __SIM_ARGS(...) __VA_ARGS__
#define __SIM_ROUNDED_ONE(name, mode, R, params, args, expr) \
    __SIM_ON_USE static inline R name params { return __sim_rounded<R>(mode, [] params { return (R)(expr); }, __SIM_ARGS args); }
#define __SIM_ROUNDED(name, R, params, args, expr)                                       \
    __SIM_ROUNDED_ONE(name##_rz, cudaRoundZero, R, params, args, expr)                  \
    __SIM_ROUNDED_ONE(name##_ru, cudaRoundPosInf, R, params, args, expr)                \
    __SIM_ROUNDED_ONE(name##_rd, cudaRoundMinInf, R, params, args, expr)

// integer to float or double: C++'s conversions round to nearest
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline float __ll2float_rn(long long x) { return (float)x; }
static inline float __ull2float_rn(unsigned long long x) { return (float)x; }
static inline double __ll2double_rn(long long x) { return (double)x; }
static inline double __ull2double_rn(unsigned long long x) { return (double)x; }
static inline double __int2double_rn(int x) { return (double)x; }
static inline double __uint2double_rn(unsigned x) { return (double)x; }
__SIM_ROUNDED(__int2float, float, (int x), (x), x)
__SIM_ROUNDED(__uint2float, float, (unsigned x), (x), x)
__SIM_ROUNDED(__ll2float, float, (long long x), (x), x)
__SIM_ROUNDED(__ull2float, float, (unsigned long long x), (x), x)
__SIM_ROUNDED(__ll2double, double, (long long x), (x), x)
__SIM_ROUNDED(__ull2double, double, (unsigned long long x), (x), x)
__SIM_ROUNDED(__double2float, float, (double x), (x), x)

// single precision (never fused into a multiply-add: each rounds on its own, as on a GPU)
__SIM_ROUNDED(__fadd, float, (float x, float y), (x, y), x + y)
__SIM_ROUNDED(__fsub, float, (float x, float y), (x, y), x - y)
__SIM_ROUNDED(__fmul, float, (float x, float y), (x, y), x * y)
__SIM_ROUNDED(__fdiv, float, (float x, float y), (x, y), x / y)
__SIM_ROUNDED(__fmaf, float, (float x, float y, float z), (x, y, z), fmaf(x, y, z))
__SIM_ROUNDED(__fmaf_ieee, float, (float x, float y, float z), (x, y, z), fmaf(x, y, z))
static inline float __fmaf_ieee_rn(float x, float y, float z) { return fmaf(x, y, z); }
__SIM_ROUNDED(__frcp, float, (float x), (x), 1.0f / x)
__SIM_ROUNDED(__fsqrt, float, (float x), (x), sqrtf(x))
// 1/sqrt(x) rounded once: computed in double, then rounded to float (the second rounding can
// move the last bit in rare cases)
static inline float __frsqrt_rn(float x) { return (float)(1.0 / sqrt((double)x)); }

// double precision
__SIM_ROUNDED(__dadd, double, (double x, double y), (x, y), x + y)
__SIM_ROUNDED(__dsub, double, (double x, double y), (x, y), x - y)
__SIM_ROUNDED(__dmul, double, (double x, double y), (x, y), x * y)
__SIM_ROUNDED(__ddiv, double, (double x, double y), (x, y), x / y)
static inline double __ddiv_rn(double x, double y) { return x / y; }
__SIM_ROUNDED(__fma, double, (double x, double y, double z), (x, y, z), fma(x, y, z))
__SIM_ROUNDED(__drcp, double, (double x), (x), 1.0 / x)
static inline double __drcp_rn(double x) { return 1.0 / x; }
__SIM_ROUNDED(__dsqrt, double, (double x), (x), sqrt(x))
static inline double __dsqrt_rn(double x) { return sqrt(x); }
#undef __SIM_ROUNDED
#undef __SIM_ROUNDED_ONE
#undef __SIM_ARGS

// The older forms that take the mode as an argument (device_double_functions.h).
#define __SIM_BY_MODE(name, R, params, args, base, dflt)                                            \
    static inline R name params, enum cudaRoundMode mode = dflt) {                                 \
        return mode == cudaRoundNearest ? base##_rn args : mode == cudaRoundZero ? base##_rz args   \
             : mode == cudaRoundPosInf ? base##_ru args : base##_rd args; }
#define __SIM_OPEN(...) (__VA_ARGS__
__SIM_BY_MODE(dmul, double, __SIM_OPEN(double a, double b), (a, b), __dmul, cudaRoundNearest)
__SIM_BY_MODE(dadd, double, __SIM_OPEN(double a, double b), (a, b), __dadd, cudaRoundNearest)
__SIM_BY_MODE(dsub, double, __SIM_OPEN(double a, double b), (a, b), __dsub, cudaRoundNearest)
__SIM_BY_MODE(double2int, int, __SIM_OPEN(double a), (a), __double2int, cudaRoundZero)
__SIM_BY_MODE(double2uint, unsigned, __SIM_OPEN(double a), (a), __double2uint, cudaRoundZero)
__SIM_BY_MODE(double2ll, long long, __SIM_OPEN(double a), (a), __double2ll, cudaRoundZero)
__SIM_BY_MODE(double2ull, unsigned long long, __SIM_OPEN(double a), (a), __double2ull, cudaRoundZero)
__SIM_BY_MODE(ll2double, double, __SIM_OPEN(long long a), (a), __ll2double, cudaRoundNearest)
__SIM_BY_MODE(ull2double, double, __SIM_OPEN(unsigned long long a), (a), __ull2double, cudaRoundNearest)
#undef __SIM_OPEN
#undef __SIM_BY_MODE
static inline double fma(double a, double b, double c, enum cudaRoundMode mode) {
    return mode == cudaRoundNearest ? fma(a, b, c) : mode == cudaRoundZero ? __fma_rz(a, b, c)
         : mode == cudaRoundPosInf ? __fma_ru(a, b, c) : __fma_rd(a, b, c);
}
static inline double int2double(int a, enum cudaRoundMode = cudaRoundNearest) { return (double)a; }
static inline double uint2double(unsigned a, enum cudaRoundMode = cudaRoundNearest) { return (double)a; }
static inline double float2double(float a, enum cudaRoundMode = cudaRoundNearest) { return (double)a; }

// the bits of a double, as two ints, and back
static inline int __double2hiint(double x) { long long i; memcpy(&i, &x, 8); return (int)(i >> 32); }
static inline int __double2loint(double x) { long long i; memcpy(&i, &x, 8); return (int)i; }
static inline double __hiloint2double(int hi, int lo) {
    unsigned long long i = ((unsigned long long)(unsigned)hi << 32) | (unsigned)lo;
    double x;
    memcpy(&x, &i, 8);
    return x;
}
