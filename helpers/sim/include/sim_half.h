// sim_half.h -- the arithmetic behind cuda_fp16.h and cuda_bf16.h: 16-bit floats as a GPU of
// compute capability 9.0 rounds them, bit for bit. Included by those two headers (a kernel
// includes them itself, as with nvcc); every name here is reserved.
//
// A 16-bit float is kept as its bits. Each operation computes its exact result as a double plus
// the sign of what the double left out, then rounds that once to the 16-bit format, in integers:
// so a sum, product, quotient, square root or fused multiply-add rounds exactly once, as the
// GPU's add.f16, mul.f16, fma.rn.f16 (and their .bf16 forms) do, subnormals, infinities and
// overflow included. A double holds the exact sum or product of two 16-bit floats, but not always
// the exact a*b+c, a quotient or an integer of 64 bits: there the part it leaves out is found
// exactly (an error-free sum, the remainder a - q*b by fma), and only its sign matters, to break
// a tie or to step off a value the double hit exactly.
//
// NaN results are the canonical NaN, 0x7fff, as PTX gives them.
#pragma once

// The functions of cuda_fp16.h and cuda_bf16.h that return a 16-bit float or a pair are inlined
// in a build instrumented for the microscope: one that g++ did not inline (a module of many
// kernels), whose result went straight into memory (tile[t] = __float2half(0.0f)), was a call
// whose store GCC's instrumentation leaves out, and the init check took the tile for never written.
#ifdef SIM_TRACE
#define __SIM_HALF_FN static inline __attribute__((__always_inline__))
#else
#define __SIM_HALF_FN static inline
#endif

enum { __sim_rn = cudaRoundNearest, __sim_rz = cudaRoundZero, __sim_ru = cudaRoundPosInf,
       __sim_rd = cudaRoundMinInf };

// A 16-bit format: M bits of fraction, exponent bias B (binary16: 10, 15; bfloat16: 7, 127).
template <int __M, int __B> struct __sim_fp16 {
    static constexpr unsigned short __inf = (unsigned short)((2 * __B + 1) << __M);
    static constexpr unsigned short __nan = 0x7fff;
    static constexpr unsigned short __one = (unsigned short)(__B << __M);

    // The bits of x + r, where r is a value of sign __lo (-1, 0, 1) smaller than half of x's last
    // bit as a double, rounded in mode (cudaRoundNearest, Zero, PosInf, MinInf).
    static unsigned short __round(double __x, int __lo, int __mode) {
        if (__x != __x) return __nan;
        const bool __neg = std::signbit(__x);
        const unsigned short __sign = __neg ? 0x8000 : 0;
        const double __a = std::fabs(__x);
        const int __lo_mag = __neg ? -__lo : __lo;  // the left-out part, in the magnitude's direction
        if (__a == 0) return __sign;
        if (std::isinf(__a)) return __sign | __inf;
        int __e;
        std::frexp(__a, &__e);
        __e -= 1;                                                       // 2^e <= a < 2^(e+1)
        const int __eq = (__e < 1 - __B ? 1 - __B : __e);              // subnormals: the least exponent
        const double __s = std::ldexp(__a, __M - __eq);                // a in units of the last bit
        const double __fl = std::floor(__s), __frac = __s - __fl;      // both exact
        // Encodings grow with the magnitude, across exponents and into infinity: one more is the
        // next value up.
        unsigned long long __enc = ((unsigned long long)(__eq + __B - 1) << __M) + (unsigned long long)__fl;
        const bool __toward_zero = __mode == __sim_rz || (__mode == __sim_rd && !__neg) ||
                                   (__mode == __sim_ru && __neg);
        if (__mode == __sim_rn) {
            if (__frac > 0.5 || (__frac == 0.5 && (__lo_mag > 0 || (__lo_mag == 0 && (__enc & 1))))) __enc++;
        } else if (__toward_zero) {
            if (__frac == 0 && __lo_mag < 0) __enc--;
        } else if (__frac > 0 || __lo_mag > 0) {
            __enc++;
        }
        if (__enc >= __inf) __enc = (__mode != __sim_rn && __toward_zero) ? __inf - 1 : __inf;
        return __sign | (unsigned short)__enc;
    }
    static unsigned short __from_double(double __x, int __mode = __sim_rn) { return __round(__x, 0, __mode); }
    // a double's NaN keeps its sign and the top of its payload (cvt.rn.f16.f64, as measured on an
    // H200); a float's becomes the canonical NaN
    static unsigned short __from_double_keeping_nan(double __x) {
        if (__x == __x) return __round(__x, 0, __sim_rn);
        unsigned long long __b;
        memcpy(&__b, &__x, 8);
        return (unsigned short)((__b >> 48) & 0x8000) | __inf | (1u << (__M - 1)) |
               (unsigned short)((__b >> (52 - __M)) & ((1u << __M) - 1));
    }
    // an integer, exactly: the double nearest it and the sign of the rest
    template <typename __I> static unsigned short __from_int(__I __v, int __mode) {
        const double __d = (double)__v;
        const __int128 __rest = (__int128)__v - (__int128)__d;
        return __round(__d, __rest > 0 ? 1 : __rest < 0 ? -1 : 0, __mode);
    }

    // to float: exact. A NaN: a bfloat16 is a float's top bits, and keeps them; a half gives the
    // canonical NaN (cvt.f32.f16, as measured on an H200).
    static float __to_float(unsigned short __h) {
        const unsigned __sign = (unsigned)(__h & 0x8000) << 16, __mag = __h & 0x7fff;
        unsigned __bits;
        if (__mag > __inf && __M != 7) {
            __bits = 0x7fffffffu;
        } else if (__mag >= __inf) {
            __bits = 0x7f800000u | ((__mag & ((1u << __M) - 1)) << (23 - __M));
        } else if (__mag >> __M) {  // normal
            __bits = (((__mag >> __M) + 127 - __B) << 23) | ((__mag & ((1u << __M) - 1)) << (23 - __M));
        } else {  // zero or subnormal: (fraction) * 2^(1 - B - M), exact in a float
            float __f = std::ldexp((float)__mag, 1 - __B - __M);
            memcpy(&__bits, &__f, 4);
        }
        if (__bits != 0x7fffffffu) __bits |= __sign;
        float __f;
        memcpy(&__f, &__bits, 4);
        return __f;
    }
    static bool __is_nan(unsigned short __h) { return (__h & 0x7fff) > __inf; }

    // ---- operations rounded once (round to nearest even) ---------------------------------------
    static unsigned short __add(unsigned short __a, unsigned short __b) {
        const double __x = __to_float(__a), __y = __to_float(__b);
        const double __s = __x + __y;
        if (!std::isfinite(__s)) return __from_double(__s);
        const double __yy = __s - __x, __err = (__x - (__s - __yy)) + (__y - __yy);  // exact: __s + __err == __x + __y
        return __round(__s, __err > 0 ? 1 : __err < 0 ? -1 : 0, __sim_rn);
    }
    // neg and abs give the canonical NaN for a NaN, as an H200's neg.f16 and abs.f16 do
    static unsigned short __neg(unsigned short __a) { return __is_nan(__a) ? __nan : __a ^ 0x8000; }
    static unsigned short __abs(unsigned short __a) { return __is_nan(__a) ? __nan : __a & 0x7fff; }
    static unsigned short __sub(unsigned short __a, unsigned short __b) { return __add(__a, __neg(__b)); }
    static unsigned short __mul(unsigned short __a, unsigned short __b) {  // the product is exact
        return __from_double((double)__to_float(__a) * (double)__to_float(__b));
    }
    static unsigned short __fma(unsigned short __a, unsigned short __b, unsigned short __c) {
        const double __p = (double)__to_float(__a) * (double)__to_float(__b), __z = __to_float(__c);
        const double __s = __p + __z;
        if (!std::isfinite(__s)) return __from_double(__s);
        const double __zz = __s - __p, __err = (__p - (__s - __zz)) + (__z - __zz);
        return __round(__s, __err > 0 ? 1 : __err < 0 ? -1 : 0, __sim_rn);
    }
    static unsigned short __div(unsigned short __a, unsigned short __b) {  // correctly rounded
        const double __x = __to_float(__a), __y = __to_float(__b), __q = __x / __y;
        if (!std::isfinite(__q) || __q == 0) return __from_double(__q);
        const double __rest = std::fma(-__q, __y, __x);  // exact: x - q*y
        const int __sign = (__rest > 0) == (__y > 0) ? 1 : -1;
        return __round(__q, __rest == 0 ? 0 : __sign, __sim_rn);
    }
    static unsigned short __sqrt(unsigned short __a) {  // correctly rounded
        const double __x = __to_float(__a), __r = std::sqrt(__x);
        if (!std::isfinite(__r) || __r == 0) return __from_double(__r);
        const double __rest = std::fma(-__r, __r, __x);
        return __round(__r, __rest > 0 ? 1 : __rest < 0 ? -1 : 0, __sim_rn);
    }
    // A result clamped to [0, 1] (.sat), NaN to +0; or to [0, inf) (.relu), NaN kept.
    static unsigned short __sat(unsigned short __r) {
        if (__is_nan(__r) || (__r & 0x8000)) return 0;
        return __r > __one ? __one : __r;
    }
    static unsigned short __relu(unsigned short __r) {
        return __is_nan(__r) ? __nan : ((__r & 0x8000) && (__r & 0x7fff)) ? 0 : __r;
    }

    // ---- comparisons (ordered: false when either is NaN) ----------------------------------------
    static int __cmp(unsigned short __a, unsigned short __b) {  // -1, 0, 1; 2 when unordered
        if (__is_nan(__a) || __is_nan(__b)) return 2;
        const float __x = __to_float(__a), __y = __to_float(__b);
        return __x < __y ? -1 : __x > __y ? 1 : 0;
    }
    // max and min: a NaN loses to a number; -0 is below +0
    static unsigned short __max(unsigned short __a, unsigned short __b, bool __nan_wins, bool __want_max) {
        const bool __na = __is_nan(__a), __nb = __is_nan(__b);
        if (__na || __nb) return (__nan_wins || (__na && __nb)) ? __nan : __na ? __b : __a;
        const int __c = __cmp(__a, __b);
        if (__c == 0) return __want_max ? (__a & __b) : (__a | __b);  // +0 beats -0 in max, -0 in min
        return (__c > 0) == __want_max ? __a : __b;
    }
};
typedef __sim_fp16<10, 15> __sim_f16;
typedef __sim_fp16<7, 127> __sim_bf16;


// The GPU's hexp, hlog, hsin, ... compute in float and round the result to 16 bits once, with
// their errors corrected where the result would round wrong (cuda_fp16.hpp lists those inputs):
// the simulator rounds the double result once.
template <typename __F> static inline unsigned short __sim_fp16_math(double (*__fn)(double), unsigned short __h) {
    return __F::__from_double(__fn((double)__F::__to_float(__h)));
}
static inline double __sim_rcp(double __x) { return 1.0 / __x; }
static inline double __sim_rsqrt(double __x) { return 1.0 / std::sqrt(__x); }
static inline double __sim_exp10(double __x) { return std::pow(10.0, __x); }
static inline double __sim_rint(double __x) { return std::nearbyint(__x); }
