// sim_math_args.h -- the math functions take the argument types they take on a GPU.
//
// In device code, CUDA declares each math function for a float (sqrt(float) is sqrtf) and a double
// (tests/sim/compile/test_math_arguments.py compares nvcc's answers with the simulator's). The C++
// library's overloads for the other types (sqrt of an int, fmin of a float and an int) are
// host functions, which nvcc refuses in a kernel: "calling a constexpr __host__ function("sqrt")
// from a __global__ function is not allowed". On the CPU they would compile, and a kernel that
// runs here would not build on a GPU. So each function is a macro onto __sim_math_<name>:
// overloads for CUDA's types, which call the float function for a float as CUDA does (sin of a
// float is sinf, with a GPU's bits), and a deleted template for every other arithmetic type,
// which the compiler driver (compile/messages.py) turns into an error that names the types.
// Included last by cuda_sim.h, after every header that declares these functions.
#pragma once

#include <chrono>  // before the macros: std::chrono has floor, ceil and round of its own

#define __SIM_ARITHMETIC(T) typename = typename std::enable_if<std::is_arithmetic<T>::value>::type

// f(x): f(float) calls ff, f(double) calls f; a long double is computed as a double, as nvcc
// computes one in device code (a header included after the prelude, <random>, calls them so).
#define __SIM_MATH_1(name)                                                                  \
    static inline auto __sim_math_##name(float x) -> decltype(name##f(x)) { return name##f(x); } \
    static inline auto __sim_math_##name(double x) -> decltype(name(x)) { return name(x); }  \
    static inline auto __sim_math_##name(long double x) -> decltype(name((double)x)) {      \
        return name((double)x);                                                             \
    }                                                                                       \
    template <typename __A1, __SIM_ARITHMETIC(__A1)> void __sim_math_##name(__A1) = delete;   \
    namespace std { using ::__sim_math_##name; }
// The classifications: one function for both types.
#define __SIM_MATH_IS(name)                                                                 \
    static inline bool __sim_math_##name(float x) { return std::name(x); }                  \
    static inline bool __sim_math_##name(double x) { return std::name(x); }                 \
    template <typename __A1, __SIM_ARITHMETIC(__A1)> void __sim_math_##name(__A1) = delete;   \
    namespace std { using ::__sim_math_##name; }
// f(x, y): two floats or two doubles.
#define __SIM_MATH_2(name)                                                                  \
    static inline float __sim_math_##name(float x, float y) { return name##f(x, y); }        \
    static inline double __sim_math_##name(double x, double y) { return name(x, y); }       \
    template <typename __A1, typename __A2, __SIM_ARITHMETIC(__A1), __SIM_ARITHMETIC(__A2)>  \
    void __sim_math_##name(__A1, __A2) = delete;                                             \
    namespace std { using ::__sim_math_##name; }
// f(x, e): a float or a double, then an integer (any number converts to it).
#define __SIM_MATH_SCALE(name, E)                                                           \
    static inline float __sim_math_##name(float x, E e) { return name##f(x, e); }            \
    static inline double __sim_math_##name(double x, E e) { return name(x, e); }            \
    template <typename __A1, typename __A2, typename = typename std::enable_if<               \
                  std::is_integral<__A1>::value>::type>                                      \
    void __sim_math_##name(__A1, __A2) = delete;                                             \
    namespace std { using ::__sim_math_##name; }

__SIM_MATH_1(acos) __SIM_MATH_1(acosh) __SIM_MATH_1(asin) __SIM_MATH_1(asinh) __SIM_MATH_1(atan)
__SIM_MATH_1(atanh) __SIM_MATH_1(cbrt) __SIM_MATH_1(ceil) __SIM_MATH_1(cos) __SIM_MATH_1(cosh)
__SIM_MATH_1(erf) __SIM_MATH_1(erfc) __SIM_MATH_1(exp) __SIM_MATH_1(exp2) __SIM_MATH_1(expm1)
__SIM_MATH_1(fabs) __SIM_MATH_1(floor) __SIM_MATH_1(ilogb) __SIM_MATH_1(lgamma) __SIM_MATH_1(llrint)
__SIM_MATH_1(llround) __SIM_MATH_1(log) __SIM_MATH_1(log10) __SIM_MATH_1(log1p) __SIM_MATH_1(log2)
__SIM_MATH_1(logb) __SIM_MATH_1(lrint) __SIM_MATH_1(lround) __SIM_MATH_1(nearbyint) __SIM_MATH_1(rint)
__SIM_MATH_1(round) __SIM_MATH_1(sin) __SIM_MATH_1(sinh) __SIM_MATH_1(sqrt) __SIM_MATH_1(tan)
__SIM_MATH_1(tanh) __SIM_MATH_1(tgamma) __SIM_MATH_1(trunc)
// CUDA's own (j0, j1, y0 and y1 are left alone: float y0(0.0f); is a variable)
__SIM_MATH_1(rsqrt) __SIM_MATH_1(exp10) __SIM_MATH_1(rcbrt) __SIM_MATH_1(normcdf)
__SIM_MATH_1(normcdfinv) __SIM_MATH_1(erfinv) __SIM_MATH_1(erfcinv) __SIM_MATH_1(erfcx)
__SIM_MATH_1(sinpi) __SIM_MATH_1(cospi) __SIM_MATH_1(cyl_bessel_i0) __SIM_MATH_1(cyl_bessel_i1)
__SIM_MATH_IS(isfinite) __SIM_MATH_IS(isinf) __SIM_MATH_IS(isnan) __SIM_MATH_IS(signbit)
__SIM_MATH_2(atan2) __SIM_MATH_2(fdim) __SIM_MATH_2(fmod) __SIM_MATH_2(hypot)
__SIM_MATH_2(nextafter) __SIM_MATH_2(remainder) __SIM_MATH_2(copysign)
__SIM_MATH_SCALE(ldexp, int) __SIM_MATH_SCALE(scalbn, int) __SIM_MATH_SCALE(scalbln, long)

// fmin and fmax: a GPU's min.f32 and max.f32, min.f64 and max.f64 (sim_math.h)
static inline float __sim_math_fmin(float a, float b) { return __sim_fminf(a, b); }
static inline double __sim_math_fmin(double a, double b) { return __sim_fmin(a, b); }
static inline float __sim_math_fmax(float a, float b) { return __sim_fmaxf(a, b); }
static inline double __sim_math_fmax(double a, double b) { return __sim_fmax(a, b); }
template <typename __A1, typename __A2, __SIM_ARITHMETIC(__A1), __SIM_ARITHMETIC(__A2)>
void __sim_math_fmin(__A1, __A2) = delete;
template <typename __A1, typename __A2, __SIM_ARITHMETIC(__A1), __SIM_ARITHMETIC(__A2)>
void __sim_math_fmax(__A1, __A2) = delete;
// copysign takes a float with a double too
static inline double __sim_math_copysign(float x, double y) { return copysign((double)x, y); }
static inline double __sim_math_copysign(double x, float y) { return copysign(x, (double)y); }
// fma: three floats or three doubles
static inline float __sim_math_fma(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __sim_math_fma(double a, double b, double c) { return fma(a, b, c); }
static inline double __sim_math_fma(double a, double b, double c, enum cudaRoundMode m) {
    return fma(a, b, c, m);  // the rounding mode's form (sim_convert.h)
}
template <typename __A1, typename __A2, typename __A3, __SIM_ARITHMETIC(__A1),
          __SIM_ARITHMETIC(__A2), __SIM_ARITHMETIC(__A3)>
void __sim_math_fma(__A1, __A2, __A3) = delete;
// remquo and frexp: the number, then where the integer part goes
static inline float __sim_math_remquo(float x, float y, int *q) { return remquof(x, y, q); }
static inline double __sim_math_remquo(double x, double y, int *q) { return remquo(x, y, q); }
template <typename __A1, typename __A2, __SIM_ARITHMETIC(__A1), __SIM_ARITHMETIC(__A2)>
void __sim_math_remquo(__A1, __A2, int *) = delete;
static inline float __sim_math_frexp(float x, int *e) { return frexpf(x, e); }
static inline double __sim_math_frexp(double x, int *e) { return frexp(x, e); }
template <typename __A1, typename = typename std::enable_if<std::is_integral<__A1>::value>::type>
void __sim_math_frexp(__A1, int *) = delete;
namespace std {
using ::__sim_math_copysign;
using ::__sim_math_fma;
using ::__sim_math_fmax;
using ::__sim_math_fmin;
using ::__sim_math_frexp;
using ::__sim_math_remquo;
}  // namespace std
// std::min and std::max are the C++ library's constexpr host functions, which nvcc refuses in a
// kernel (CUDA's own min and max are sim_math.h's). Declared here for each type, without a body,
// a call that the learner's code makes is an error (messages.py names it); a header's own calls,
// in code that is never compiled for a kernel (<random>'s), are left alone, as = delete would not.
namespace std {
#define __SIM_STD_MIN_MAX(T)                                         \
    T min(T, T) __attribute__((__error__("__sim_host_std_min_max"))); \
    T max(T, T) __attribute__((__error__("__sim_host_std_min_max")));
__SIM_STD_MIN_MAX(int) __SIM_STD_MIN_MAX(unsigned) __SIM_STD_MIN_MAX(long)
__SIM_STD_MIN_MAX(unsigned long) __SIM_STD_MIN_MAX(long long) __SIM_STD_MIN_MAX(unsigned long long)
__SIM_STD_MIN_MAX(float) __SIM_STD_MIN_MAX(double)
#undef __SIM_STD_MIN_MAX
}  // namespace std

#undef __SIM_MATH_1
#undef __SIM_MATH_IS
#undef __SIM_MATH_2
#undef __SIM_MATH_SCALE
#undef __SIM_ARITHMETIC

#undef fmin
#undef fmax
#define acos(...) __sim_math_acos(__VA_ARGS__)
#define acosh(...) __sim_math_acosh(__VA_ARGS__)
#define asin(...) __sim_math_asin(__VA_ARGS__)
#define asinh(...) __sim_math_asinh(__VA_ARGS__)
#define atan(...) __sim_math_atan(__VA_ARGS__)
#define atanh(...) __sim_math_atanh(__VA_ARGS__)
#define cbrt(...) __sim_math_cbrt(__VA_ARGS__)
#define ceil(...) __sim_math_ceil(__VA_ARGS__)
#define cos(...) __sim_math_cos(__VA_ARGS__)
#define cosh(...) __sim_math_cosh(__VA_ARGS__)
#define erf(...) __sim_math_erf(__VA_ARGS__)
#define erfc(...) __sim_math_erfc(__VA_ARGS__)
#define exp(...) __sim_math_exp(__VA_ARGS__)
#define exp2(...) __sim_math_exp2(__VA_ARGS__)
#define expm1(...) __sim_math_expm1(__VA_ARGS__)
#define fabs(...) __sim_math_fabs(__VA_ARGS__)
#define floor(...) __sim_math_floor(__VA_ARGS__)
#define ilogb(...) __sim_math_ilogb(__VA_ARGS__)
#define lgamma(...) __sim_math_lgamma(__VA_ARGS__)
#define llrint(...) __sim_math_llrint(__VA_ARGS__)
#define llround(...) __sim_math_llround(__VA_ARGS__)
#define log(...) __sim_math_log(__VA_ARGS__)
#define log10(...) __sim_math_log10(__VA_ARGS__)
#define log1p(...) __sim_math_log1p(__VA_ARGS__)
#define log2(...) __sim_math_log2(__VA_ARGS__)
#define logb(...) __sim_math_logb(__VA_ARGS__)
#define lrint(...) __sim_math_lrint(__VA_ARGS__)
#define lround(...) __sim_math_lround(__VA_ARGS__)
#define nearbyint(...) __sim_math_nearbyint(__VA_ARGS__)
#define rint(...) __sim_math_rint(__VA_ARGS__)
#define round(...) __sim_math_round(__VA_ARGS__)
#define sin(...) __sim_math_sin(__VA_ARGS__)
#define sinh(...) __sim_math_sinh(__VA_ARGS__)
#define sqrt(...) __sim_math_sqrt(__VA_ARGS__)
#define tan(...) __sim_math_tan(__VA_ARGS__)
#define tanh(...) __sim_math_tanh(__VA_ARGS__)
#define tgamma(...) __sim_math_tgamma(__VA_ARGS__)
#define trunc(...) __sim_math_trunc(__VA_ARGS__)
#define rsqrt(...) __sim_math_rsqrt(__VA_ARGS__)
#define exp10(...) __sim_math_exp10(__VA_ARGS__)
#define rcbrt(...) __sim_math_rcbrt(__VA_ARGS__)
#define normcdf(...) __sim_math_normcdf(__VA_ARGS__)
#define normcdfinv(...) __sim_math_normcdfinv(__VA_ARGS__)
#define erfinv(...) __sim_math_erfinv(__VA_ARGS__)
#define erfcinv(...) __sim_math_erfcinv(__VA_ARGS__)
#define erfcx(...) __sim_math_erfcx(__VA_ARGS__)
#define sinpi(...) __sim_math_sinpi(__VA_ARGS__)
#define cospi(...) __sim_math_cospi(__VA_ARGS__)
#define cyl_bessel_i0(...) __sim_math_cyl_bessel_i0(__VA_ARGS__)
#define cyl_bessel_i1(...) __sim_math_cyl_bessel_i1(__VA_ARGS__)
#define isfinite(...) __sim_math_isfinite(__VA_ARGS__)
#define isinf(...) __sim_math_isinf(__VA_ARGS__)
#define isnan(...) __sim_math_isnan(__VA_ARGS__)
#define signbit(...) __sim_math_signbit(__VA_ARGS__)
#define atan2(...) __sim_math_atan2(__VA_ARGS__)
#define fdim(...) __sim_math_fdim(__VA_ARGS__)
#define fmod(...) __sim_math_fmod(__VA_ARGS__)
#define hypot(...) __sim_math_hypot(__VA_ARGS__)
#define nextafter(...) __sim_math_nextafter(__VA_ARGS__)
#define remainder(...) __sim_math_remainder(__VA_ARGS__)
#define copysign(...) __sim_math_copysign(__VA_ARGS__)
#define ldexp(...) __sim_math_ldexp(__VA_ARGS__)
#define scalbn(...) __sim_math_scalbn(__VA_ARGS__)
#define scalbln(...) __sim_math_scalbln(__VA_ARGS__)
#define fmin(...) __sim_math_fmin(__VA_ARGS__)
#define fmax(...) __sim_math_fmax(__VA_ARGS__)
#define fma(...) __sim_math_fma(__VA_ARGS__)
#define remquo(...) __sim_math_remquo(__VA_ARGS__)
#define frexp(...) __sim_math_frexp(__VA_ARGS__)
