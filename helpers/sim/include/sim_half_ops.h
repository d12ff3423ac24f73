// sim_half_ops.h -- the functions that cuda_fp16.h and cuda_bf16.h declare for both 16-bit
// types, with the same names, overloaded on the type. Included twice, once by each header, with
// __SIM_T (__half or __nv_bfloat16), __SIM_T2 (its pair), __SIM_RAW (its __half_raw), __SIM_F (its
// format in sim_half.h), and the macros that name its conversions: __SIM_TO(int, _rn) is
// __int2half_rn or __int2bfloat16_rn, __SIM_FROM(int, _rn) __half2int_rn or __bfloat162int_rn,
// __SIM_NAME(_as_short) __half_as_short or __bfloat16_as_short, __SIM_AS(short) __short_as_half
// or __short_as_bfloat16.
// Hence no #pragma once.

// ---- the types: the bits, with CUDA's constructors and conversions -------------------------------
// Trivially copyable, as kernel arguments and shuffled values must be; 2 and 4 bytes, aligned so.
typedef struct __attribute__((aligned(2))) { unsigned short x; } __SIM_RAW;
typedef struct __attribute__((aligned(4))) { unsigned short x, y; } __SIM_RAW2;
#define __SIM_TO_INTEGER(I) operator I() const { return __sim_cvt<I>(__SIM_F::__to_float(__x), cudaRoundZero); }
#define __SIM_FROM_INTEGER(I)                                                             \
    __SIM_T(const I __v) : __x(__SIM_F::__from_int(__v, __sim_rn)) {}                   \
    __SIM_T &operator=(const I __v) { __x = __SIM_F::__from_int(__v, __sim_rn); return *this; }
struct __attribute__((aligned(2))) __SIM_T {
  protected:
    unsigned short __x;

  public:
    __SIM_T() = default;
    constexpr __SIM_T(const __SIM_RAW &__r) : __x(__r.x) {}
    __SIM_T &operator=(const __SIM_RAW &__r) { __x = __r.x; return *this; }
    volatile __SIM_T &operator=(const __SIM_RAW &__r) volatile { __x = __r.x; return *this; }
    volatile __SIM_T &operator=(const volatile __SIM_RAW &__r) volatile { __x = __r.x; return *this; }
    operator __SIM_RAW() const { __SIM_RAW __r; __r.x = __x; return __r; }
    operator __SIM_RAW() const volatile { __SIM_RAW __r; __r.x = __x; return __r; }
    explicit __SIM_T(const __SIM_OTHER __o);  // cuda_bf16.h: one rounding, as cvt.rn.f16.bf16
    __SIM_T(const float __f) : __x(__SIM_F::__from_double(__f)) {}
    __SIM_T(const double __f) : __x(__SIM_F::__from_double_keeping_nan(__f)) {}
    operator float() const { return __SIM_F::__to_float(__x); }
    __SIM_T &operator=(const float __f) { __x = __SIM_F::__from_double(__f); return *this; }
    __SIM_T &operator=(const double __f) { __x = __SIM_F::__from_double_keeping_nan(__f); return *this; }
    __SIM_FROM_INTEGER(short) __SIM_FROM_INTEGER(unsigned short) __SIM_FROM_INTEGER(int)
    __SIM_FROM_INTEGER(unsigned int) __SIM_FROM_INTEGER(long long) __SIM_FROM_INTEGER(unsigned long long)
    __SIM_T(const long __v) : __x(__SIM_F::__from_int(__v, __sim_rn)) {}
    __SIM_T(const unsigned long __v) : __x(__SIM_F::__from_int(__v, __sim_rn)) {}
    __SIM_TO_INTEGER(signed char) __SIM_TO_INTEGER(unsigned char) __SIM_TO_INTEGER(char)
    __SIM_TO_INTEGER(short) __SIM_TO_INTEGER(unsigned short) __SIM_TO_INTEGER(int)
    __SIM_TO_INTEGER(unsigned int) __SIM_TO_INTEGER(long) __SIM_TO_INTEGER(unsigned long)
    __SIM_TO_INTEGER(long long) __SIM_TO_INTEGER(unsigned long long)
    constexpr operator bool() const { return (__x & 0x7fffu) != 0u; }
};
#undef __SIM_TO_INTEGER
#undef __SIM_FROM_INTEGER
struct __attribute__((aligned(4))) __SIM_T2 {
    __SIM_T x, y;  // x is the low half
    __SIM_T2() = default;
    constexpr __SIM_T2(const __SIM_T &__a, const __SIM_T &__b) : x(__a), y(__b) {}
    __SIM_T2(const __SIM_RAW2 &__r) : x(__SIM_RAW{__r.x}), y(__SIM_RAW{__r.y}) {}
    __SIM_T2 &operator=(const __SIM_RAW2 &__r) { x = __SIM_RAW{__r.x}; y = __SIM_RAW{__r.y}; return *this; }
    operator __SIM_RAW2() const { __SIM_RAW2 __r; __r.x = ((__SIM_RAW)x).x; __r.y = ((__SIM_RAW)y).x; return __r; }
};

#define __SIM_B(h) (((__SIM_RAW)(h)).x)
#define __SIM_MK(b) (__SIM_T(__SIM_RAW{(unsigned short)(b)}))
#define __SIM_PAIR(lo, hi) (__SIM_T2(__SIM_MK(lo), __SIM_MK(hi)))

// ---- conversions to and from float, and the pairs ---------------------------------------------
__SIM_HALF_FN __SIM_T __SIM_TO(float, )(const float __f) { return __SIM_MK(__SIM_F::__from_double(__f)); }
__SIM_HALF_FN __SIM_T __SIM_TO(float, _rn)(const float __f) { return __SIM_MK(__SIM_F::__from_double(__f, __sim_rn)); }
__SIM_HALF_FN __SIM_T __SIM_TO(float, _rz)(const float __f) { return __SIM_MK(__SIM_F::__from_double(__f, __sim_rz)); }
__SIM_HALF_FN __SIM_T __SIM_TO(float, _rd)(const float __f) { return __SIM_MK(__SIM_F::__from_double(__f, __sim_rd)); }
__SIM_HALF_FN __SIM_T __SIM_TO(float, _ru)(const float __f) { return __SIM_MK(__SIM_F::__from_double(__f, __sim_ru)); }
__SIM_HALF_FN __SIM_T __SIM_TO(double, )(const double __f) { return __SIM_MK(__SIM_F::__from_double_keeping_nan(__f)); }
__SIM_HALF_FN float __SIM_FROM(float, )(const __SIM_T __h) { return __SIM_F::__to_float(__SIM_B(__h)); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(float, 2_rn)(const float __f) { const __SIM_T __h = __SIM_TO(float, _rn)(__f); return __SIM_T2(__h, __h); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(floats, 2_rn)(const float __a, const float __b) { return __SIM_T2(__SIM_TO(float, _rn)(__a), __SIM_TO(float, _rn)(__b)); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(float2, 2_rn)(const float2 __f) { return __SIM_T2(__SIM_TO(float, _rn)(__f.x), __SIM_TO(float, _rn)(__f.y)); }
__SIM_HALF_FN float __low2float(const __SIM_T2 __a) { return __SIM_F::__to_float(__SIM_B(__a.x)); }
__SIM_HALF_FN float __high2float(const __SIM_T2 __a) { return __SIM_F::__to_float(__SIM_B(__a.y)); }
__SIM_HALF_FN __SIM_T2 __lowhigh2highlow(const __SIM_T2 __a) { return __SIM_T2(__a.y, __a.x); }
__SIM_HALF_FN float2 __SIM_FROM(2float2, )(const __SIM_T2 __a) { return make_float2(__low2float(__a), __high2float(__a)); }
__SIM_HALF_FN __SIM_T __SIM_TO(low, )(const __SIM_T2 __a) { return __a.x; }
__SIM_HALF_FN __SIM_T __SIM_TO(high, )(const __SIM_T2 __a) { return __a.y; }
__SIM_HALF_FN __SIM_T2 __SIM_TO(low, 2)(const __SIM_T2 __a) { return __SIM_T2(__a.x, __a.x); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(high, 2)(const __SIM_T2 __a) { return __SIM_T2(__a.y, __a.y); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(lows, 2)(const __SIM_T2 __a, const __SIM_T2 __b) { return __SIM_T2(__a.x, __b.x); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(highs, 2)(const __SIM_T2 __a, const __SIM_T2 __b) { return __SIM_T2(__a.y, __b.y); }
__SIM_HALF_FN __SIM_T2 __SIM_TO(halves, 2)(const __SIM_T __a, const __SIM_T __b) { return __SIM_T2(__a, __b); }

// ---- conversions to and from integers -----------------------------------------------------------------------------
#define __SIM_FROM_INT(I)                                                                           \
    __SIM_HALF_FN __SIM_T __SIM_TO(I, _rn)(const __SIM_INT_##I __v) { return __SIM_MK(__SIM_F::__from_int(__v, __sim_rn)); } \
    __SIM_HALF_FN __SIM_T __SIM_TO(I, _rz)(const __SIM_INT_##I __v) { return __SIM_MK(__SIM_F::__from_int(__v, __sim_rz)); } \
    __SIM_HALF_FN __SIM_T __SIM_TO(I, _rd)(const __SIM_INT_##I __v) { return __SIM_MK(__SIM_F::__from_int(__v, __sim_rd)); } \
    __SIM_HALF_FN __SIM_T __SIM_TO(I, _ru)(const __SIM_INT_##I __v) { return __SIM_MK(__SIM_F::__from_int(__v, __sim_ru)); }
#define __SIM_TO_INT(I)                                                                             \
    __SIM_HALF_FN __SIM_INT_##I __SIM_FROM(I, _rn)(const __SIM_T __h) { return __sim_cvt<__SIM_INT_##I>(__SIM_F::__to_float(__SIM_B(__h)), cudaRoundNearest); } \
    __SIM_HALF_FN __SIM_INT_##I __SIM_FROM(I, _rz)(const __SIM_T __h) { return __sim_cvt<__SIM_INT_##I>(__SIM_F::__to_float(__SIM_B(__h)), cudaRoundZero); } \
    __SIM_HALF_FN __SIM_INT_##I __SIM_FROM(I, _rd)(const __SIM_T __h) { return __sim_cvt<__SIM_INT_##I>(__SIM_F::__to_float(__SIM_B(__h)), cudaRoundMinInf); } \
    __SIM_HALF_FN __SIM_INT_##I __SIM_FROM(I, _ru)(const __SIM_T __h) { return __sim_cvt<__SIM_INT_##I>(__SIM_F::__to_float(__SIM_B(__h)), cudaRoundPosInf); }
#define __SIM_INT_int int
#define __SIM_INT_uint unsigned int
#define __SIM_INT_short short
#define __SIM_INT_ushort unsigned short
#define __SIM_INT_ll long long
#define __SIM_INT_ull unsigned long long
__SIM_FROM_INT(int) __SIM_FROM_INT(uint) __SIM_FROM_INT(short) __SIM_FROM_INT(ushort)
__SIM_FROM_INT(ll) __SIM_FROM_INT(ull)
__SIM_TO_INT(int) __SIM_TO_INT(uint) __SIM_TO_INT(short) __SIM_TO_INT(ushort)
__SIM_TO_INT(ll) __SIM_TO_INT(ull)
#undef __SIM_FROM_INT
#undef __SIM_TO_INT
__SIM_HALF_FN signed char __SIM_FROM(char, _rz)(const __SIM_T __h) {
    return __sim_cvt<signed char>(__SIM_F::__to_float(__SIM_B(__h)), cudaRoundZero);
}
__SIM_HALF_FN unsigned char __SIM_FROM(uchar, _rz)(const __SIM_T __h) {
    return __sim_cvt<unsigned char>(__SIM_F::__to_float(__SIM_B(__h)), cudaRoundZero);
}
__SIM_HALF_FN short __SIM_NAME(_as_short)(const __SIM_T __h) { return (short)__SIM_B(__h); }
__SIM_HALF_FN unsigned short __SIM_NAME(_as_ushort)(const __SIM_T __h) { return __SIM_B(__h); }
__SIM_HALF_FN __SIM_T __SIM_AS(short)(const short __i) { return __SIM_MK(__i); }
__SIM_HALF_FN __SIM_T __SIM_AS(ushort)(const unsigned short __i) { return __SIM_MK(__i); }

// ---- arithmetic: each rounds once, to nearest even ----------------------------------------------
#define __SIM_BINARY(name, expr)                                                           \
    __SIM_HALF_FN __SIM_T name(const __SIM_T __a, const __SIM_T __b) {                     \
        const unsigned short __x = __SIM_B(__a), __y = __SIM_B(__b);                       \
        return __SIM_MK(expr);                                                             \
    }                                                                                      \
    __SIM_HALF_FN __SIM_T2 name##2(const __SIM_T2 __a, const __SIM_T2 __b) {               \
        return __SIM_T2(name(__a.x, __b.x), name(__a.y, __b.y));                           \
    }
#define __SIM_TERNARY(name, name2, expr)                                                   \
    __SIM_HALF_FN __SIM_T name(const __SIM_T __a, const __SIM_T __b, const __SIM_T __c) {  \
        const unsigned short __x = __SIM_B(__a), __y = __SIM_B(__b), __z = __SIM_B(__c);   \
        return __SIM_MK(expr);                                                             \
    }                                                                                      \
    __SIM_HALF_FN __SIM_T2 name2(const __SIM_T2 __a, const __SIM_T2 __b, const __SIM_T2 __c) { \
        return __SIM_T2(name(__a.x, __b.x, __c.x), name(__a.y, __b.y, __c.y));             \
    }
__SIM_BINARY(__hadd, __SIM_F::__add(__x, __y))
__SIM_BINARY(__hsub, __SIM_F::__sub(__x, __y))
__SIM_BINARY(__hmul, __SIM_F::__mul(__x, __y))
// the _rn forms are the same operations that nvcc may not fuse into a multiply-add; the
// simulator never fuses them
__SIM_BINARY(__hadd_rn, __SIM_F::__add(__x, __y))
__SIM_BINARY(__hsub_rn, __SIM_F::__sub(__x, __y))
__SIM_BINARY(__hmul_rn, __SIM_F::__mul(__x, __y))
__SIM_BINARY(__hadd_sat, __SIM_F::__sat(__SIM_F::__add(__x, __y)))
__SIM_BINARY(__hsub_sat, __SIM_F::__sat(__SIM_F::__sub(__x, __y)))
__SIM_BINARY(__hmul_sat, __SIM_F::__sat(__SIM_F::__mul(__x, __y)))
__SIM_BINARY(__hmax, __SIM_F::__max(__x, __y, false, true))
__SIM_BINARY(__hmin, __SIM_F::__max(__x, __y, false, false))
__SIM_BINARY(__hmax_nan, __SIM_F::__max(__x, __y, true, true))
__SIM_BINARY(__hmin_nan, __SIM_F::__max(__x, __y, true, false))
__SIM_TERNARY(__hfma, __hfma2, __SIM_F::__fma(__x, __y, __z))
__SIM_TERNARY(__hfma_sat, __hfma2_sat, __SIM_F::__sat(__SIM_F::__fma(__x, __y, __z)))
__SIM_TERNARY(__hfma_relu, __hfma2_relu, __SIM_F::__relu(__SIM_F::__fma(__x, __y, __z)))
#undef __SIM_BINARY
#undef __SIM_TERNARY
__SIM_HALF_FN __SIM_T __hdiv(const __SIM_T __a, const __SIM_T __b) { return __SIM_MK(__SIM_F::__div(__SIM_B(__a), __SIM_B(__b))); }
__SIM_HALF_FN __SIM_T2 __h2div(const __SIM_T2 __a, const __SIM_T2 __b) {
    return __SIM_T2(__hdiv(__a.x, __b.x), __hdiv(__a.y, __b.y));
}
__SIM_HALF_FN __SIM_T __hneg(const __SIM_T __a) { return __SIM_MK(__SIM_F::__neg(__SIM_B(__a))); }
__SIM_HALF_FN __SIM_T __habs(const __SIM_T __a) { return __SIM_MK(__SIM_F::__abs(__SIM_B(__a))); }
__SIM_HALF_FN __SIM_T2 __hneg2(const __SIM_T2 __a) { return __SIM_T2(__hneg(__a.x), __hneg(__a.y)); }
__SIM_HALF_FN __SIM_T2 __habs2(const __SIM_T2 __a) { return __SIM_T2(__habs(__a.x), __habs(__a.y)); }
// complex multiply-add, (a.x + i a.y)(b.x + i b.y) + c, as four fused multiply-adds
__SIM_HALF_FN __SIM_T2 __hcmadd(const __SIM_T2 __a, const __SIM_T2 __b, const __SIM_T2 __c) {
    const __SIM_T __re = __hfma(__hneg(__a.y), __b.y, __hfma(__a.x, __b.x, __c.x));
    const __SIM_T __im = __hfma(__a.y, __b.x, __hfma(__a.x, __b.y, __c.y));
    return __SIM_T2(__re, __im);
}

// ---- comparisons -----------------------------------------------------------------------------------
// __heq and friends are false when either value is NaN; the u forms (__hequ, ...) are true then.
// The pair forms give 1.0 or 0.0 in each half, the _mask forms 0xffff or 0 in each half, the
// __hb forms true when both halves compare true.
#define __SIM_COMPARE(op, test)                                                                   \
    __SIM_HALF_FN bool __h##op(const __SIM_T __a, const __SIM_T __b) {                            \
        const int __c = __SIM_F::__cmp(__SIM_B(__a), __SIM_B(__b));                               \
        return __c != 2 && (test);                                                                \
    }                                                                                             \
    __SIM_HALF_FN bool __h##op##u(const __SIM_T __a, const __SIM_T __b) {                         \
        const int __c = __SIM_F::__cmp(__SIM_B(__a), __SIM_B(__b));                               \
        return __c == 2 || (test);                                                                \
    }                                                                                             \
    __SIM_HALF_FN __SIM_T2 __h##op##2(const __SIM_T2 __a, const __SIM_T2 __b) {                   \
        return __SIM_PAIR(__h##op(__a.x, __b.x) ? __SIM_F::__one : 0,                             \
                          __h##op(__a.y, __b.y) ? __SIM_F::__one : 0);                            \
    }                                                                                             \
    __SIM_HALF_FN __SIM_T2 __h##op##u2(const __SIM_T2 __a, const __SIM_T2 __b) {                  \
        return __SIM_PAIR(__h##op##u(__a.x, __b.x) ? __SIM_F::__one : 0,                          \
                          __h##op##u(__a.y, __b.y) ? __SIM_F::__one : 0);                         \
    }                                                                                             \
    __SIM_HALF_FN unsigned __h##op##2_mask(const __SIM_T2 __a, const __SIM_T2 __b) {              \
        return (__h##op(__a.x, __b.x) ? 0xffffu : 0) | (__h##op(__a.y, __b.y) ? 0xffff0000u : 0); \
    }                                                                                             \
    __SIM_HALF_FN unsigned __h##op##u2_mask(const __SIM_T2 __a, const __SIM_T2 __b) {             \
        return (__h##op##u(__a.x, __b.x) ? 0xffffu : 0) | (__h##op##u(__a.y, __b.y) ? 0xffff0000u : 0); \
    }                                                                                             \
    __SIM_HALF_FN bool __hb##op##2(const __SIM_T2 __a, const __SIM_T2 __b) {                      \
        return __h##op(__a.x, __b.x) && __h##op(__a.y, __b.y);                                    \
    }                                                                                             \
    __SIM_HALF_FN bool __hb##op##u2(const __SIM_T2 __a, const __SIM_T2 __b) {                     \
        return __h##op##u(__a.x, __b.x) && __h##op##u(__a.y, __b.y);                              \
    }
__SIM_COMPARE(eq, __c == 0)
__SIM_COMPARE(ne, __c != 0)
__SIM_COMPARE(lt, __c < 0)
__SIM_COMPARE(le, __c <= 0)
__SIM_COMPARE(gt, __c > 0)
__SIM_COMPARE(ge, __c >= 0)
#undef __SIM_COMPARE
__SIM_HALF_FN bool __hisnan(const __SIM_T __a) { return __SIM_F::__is_nan(__SIM_B(__a)); }
__SIM_HALF_FN __SIM_T2 __hisnan2(const __SIM_T2 __a) {
    return __SIM_PAIR(__hisnan(__a.x) ? __SIM_F::__one : 0, __hisnan(__a.y) ? __SIM_F::__one : 0);
}
__SIM_HALF_FN int __hisinf(const __SIM_T __a) {
    const unsigned short __x = __SIM_B(__a);
    return __x == __SIM_F::__inf ? 1 : __x == (__SIM_F::__inf | 0x8000) ? -1 : 0;
}

// ---- operators (cuda_fp16.hpp's): the intrinsics above ---------------------------------------
__SIM_HALF_FN __SIM_T operator+(const __SIM_T &__a, const __SIM_T &__b) { return __hadd(__a, __b); }
__SIM_HALF_FN __SIM_T operator-(const __SIM_T &__a, const __SIM_T &__b) { return __hsub(__a, __b); }
__SIM_HALF_FN __SIM_T operator*(const __SIM_T &__a, const __SIM_T &__b) { return __hmul(__a, __b); }
__SIM_HALF_FN __SIM_T operator/(const __SIM_T &__a, const __SIM_T &__b) { return __hdiv(__a, __b); }
__SIM_HALF_FN __SIM_T &operator+=(__SIM_T &__a, const __SIM_T &__b) { return __a = __hadd(__a, __b); }
__SIM_HALF_FN __SIM_T &operator-=(__SIM_T &__a, const __SIM_T &__b) { return __a = __hsub(__a, __b); }
__SIM_HALF_FN __SIM_T &operator*=(__SIM_T &__a, const __SIM_T &__b) { return __a = __hmul(__a, __b); }
__SIM_HALF_FN __SIM_T &operator/=(__SIM_T &__a, const __SIM_T &__b) { return __a = __hdiv(__a, __b); }
__SIM_HALF_FN __SIM_T &operator++(__SIM_T &__a) { return __a = __hadd(__a, __SIM_MK(__SIM_F::__one)); }
__SIM_HALF_FN __SIM_T &operator--(__SIM_T &__a) { return __a = __hsub(__a, __SIM_MK(__SIM_F::__one)); }
__SIM_HALF_FN __SIM_T operator++(__SIM_T &__a, const int) { const __SIM_T __old = __a; ++__a; return __old; }
__SIM_HALF_FN __SIM_T operator--(__SIM_T &__a, const int) { const __SIM_T __old = __a; --__a; return __old; }
__SIM_HALF_FN __SIM_T operator+(const __SIM_T &__a) { return __a; }
__SIM_HALF_FN __SIM_T operator-(const __SIM_T &__a) { return __hneg(__a); }
__SIM_HALF_FN bool operator==(const __SIM_T &__a, const __SIM_T &__b) { return __heq(__a, __b); }
__SIM_HALF_FN bool operator!=(const __SIM_T &__a, const __SIM_T &__b) { return __hneu(__a, __b); }
__SIM_HALF_FN bool operator<(const __SIM_T &__a, const __SIM_T &__b) { return __hlt(__a, __b); }
__SIM_HALF_FN bool operator<=(const __SIM_T &__a, const __SIM_T &__b) { return __hle(__a, __b); }
__SIM_HALF_FN bool operator>(const __SIM_T &__a, const __SIM_T &__b) { return __hgt(__a, __b); }
__SIM_HALF_FN bool operator>=(const __SIM_T &__a, const __SIM_T &__b) { return __hge(__a, __b); }
__SIM_HALF_FN __SIM_T2 operator+(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hadd2(__a, __b); }
__SIM_HALF_FN __SIM_T2 operator-(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hsub2(__a, __b); }
__SIM_HALF_FN __SIM_T2 operator*(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hmul2(__a, __b); }
__SIM_HALF_FN __SIM_T2 operator/(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __h2div(__a, __b); }
__SIM_HALF_FN __SIM_T2 &operator+=(__SIM_T2 &__a, const __SIM_T2 &__b) { return __a = __hadd2(__a, __b); }
__SIM_HALF_FN __SIM_T2 &operator-=(__SIM_T2 &__a, const __SIM_T2 &__b) { return __a = __hsub2(__a, __b); }
__SIM_HALF_FN __SIM_T2 &operator*=(__SIM_T2 &__a, const __SIM_T2 &__b) { return __a = __hmul2(__a, __b); }
__SIM_HALF_FN __SIM_T2 &operator/=(__SIM_T2 &__a, const __SIM_T2 &__b) { return __a = __h2div(__a, __b); }
__SIM_HALF_FN __SIM_T2 &operator++(__SIM_T2 &__a) { return __a = __hadd2(__a, __SIM_PAIR(__SIM_F::__one, __SIM_F::__one)); }
__SIM_HALF_FN __SIM_T2 &operator--(__SIM_T2 &__a) { return __a = __hsub2(__a, __SIM_PAIR(__SIM_F::__one, __SIM_F::__one)); }
__SIM_HALF_FN __SIM_T2 operator++(__SIM_T2 &__a, const int) { const __SIM_T2 __old = __a; ++__a; return __old; }
__SIM_HALF_FN __SIM_T2 operator--(__SIM_T2 &__a, const int) { const __SIM_T2 __old = __a; --__a; return __old; }
__SIM_HALF_FN __SIM_T2 operator+(const __SIM_T2 &__a) { return __a; }
__SIM_HALF_FN __SIM_T2 operator-(const __SIM_T2 &__a) { return __hneg2(__a); }
__SIM_HALF_FN bool operator==(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hbeq2(__a, __b); }
__SIM_HALF_FN bool operator!=(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hbneu2(__a, __b); }
__SIM_HALF_FN bool operator<(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hblt2(__a, __b); }
__SIM_HALF_FN bool operator<=(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hble2(__a, __b); }
__SIM_HALF_FN bool operator>(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hbgt2(__a, __b); }
__SIM_HALF_FN bool operator>=(const __SIM_T2 &__a, const __SIM_T2 &__b) { return __hbge2(__a, __b); }

// ---- math functions: the result rounded once ------------------------------------------------
#define __SIM_MATH(name, expr)                                                                  \
    __SIM_HALF_FN __SIM_T h##name(const __SIM_T __a) { const unsigned short __x = __SIM_B(__a); return __SIM_MK(expr); } \
    __SIM_HALF_FN __SIM_T2 h2##name(const __SIM_T2 __a) { return __SIM_T2(h##name(__a.x), h##name(__a.y)); }
__SIM_MATH(sqrt, __SIM_F::__sqrt(__x))
__SIM_MATH(rsqrt, __sim_fp16_math<__SIM_F>(__sim_rsqrt, __x))
__SIM_MATH(rcp, __sim_fp16_math<__SIM_F>(__sim_rcp, __x))
__SIM_MATH(exp, __sim_fp16_math<__SIM_F>(std::exp, __x))
__SIM_MATH(exp2, __sim_fp16_math<__SIM_F>(std::exp2, __x))
__SIM_MATH(exp10, __sim_fp16_math<__SIM_F>(__sim_exp10, __x))
__SIM_MATH(log, __sim_fp16_math<__SIM_F>(std::log, __x))
__SIM_MATH(log2, __sim_fp16_math<__SIM_F>(std::log2, __x))
__SIM_MATH(log10, __sim_fp16_math<__SIM_F>(std::log10, __x))
__SIM_MATH(sin, __sim_fp16_math<__SIM_F>(std::sin, __x))
__SIM_MATH(cos, __sim_fp16_math<__SIM_F>(std::cos, __x))
__SIM_MATH(tanh, __sim_fp16_math<__SIM_F>(std::tanh, __x))
__SIM_MATH(tanh_approx, __sim_fp16_math<__SIM_F>(std::tanh, __x))  // the GPU's tanh.approx may differ in the last bit
__SIM_MATH(ceil, __sim_fp16_math<__SIM_F>(std::ceil, __x))
__SIM_MATH(floor, __sim_fp16_math<__SIM_F>(std::floor, __x))
__SIM_MATH(trunc, __sim_fp16_math<__SIM_F>(std::trunc, __x))
__SIM_MATH(rint, __sim_fp16_math<__SIM_F>(__sim_rint, __x))
#undef __SIM_MATH

// ---- atomics (compute capability 9.0 adds 16-bit floats, and pairs one half at a time) -------------
__SIM_HALF_FN __SIM_T atomicAdd(__SIM_T *const __p, const __SIM_T __v) {
    return sim::atomic_update(__p, [__v](__SIM_T __o) { return __hadd(__o, __v); });
}
__SIM_HALF_FN __SIM_T2 atomicAdd(__SIM_T2 *const __p, const __SIM_T2 __v) {
    return __SIM_T2(atomicAdd(&__p->x, __v.x), atomicAdd(&__p->y, __v.y));
}

#undef __SIM_B
#undef __SIM_MK
#undef __SIM_PAIR
