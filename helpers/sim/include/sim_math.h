// sim_math.h -- CUDA's math functions that the C library lacks, the intrinsics, and the integer
// functions (bit counts, funnel shifts, byte dot products, and compute capability 9.0's DPX
// functions). Included by cuda_sim.h, before the learner's code.
//
// Floats: the simulator compiles with fused multiply-add where the CPU has it, as nvcc does by
// default, so + - * / sqrt and their fused forms give the GPU's bits, and so do sinf, cosf,
// sincosf, logf, log2f and log10f (sim_trig.h, sim_log.h: CUDA's own code). The other library
// functions (expf, powf, ...) are the C library's: within CUDA's documented error bounds, not
// the same bits.
#pragma once

// Before an intrinsic that hands a lambda of its own to a template (the rounding modes'
// __sim_rounded, the SIMD lanes' __sim_lanes, the DPX halves' __sim_halves): a template itself,
// called as before, so that its template is instantiated only in a module that calls it. As plain
// functions, each of their 160 or so instantiations was made in every module (GCC instantiates
// what an inline function refers to, called or not). With cuda_sim.h's leaving out C++17's
// special functions, g++ 12 compiles vector_add.cu in 0.160 CPU-seconds, not 0.195, and a module
// with no code in 0.070, not 0.110 (medians of 12; the prelude precompiled in both).
#define __SIM_ON_USE template <int = 0>

#if defined(__x86_64__) || defined(__i386__)
#define __SIM_UNFUSED(r) __asm__("" : "+x"(r))
#elif defined(__aarch64__)
#define __SIM_UNFUSED(r) __asm__("" : "+w"(r))
#else
#define __SIM_UNFUSED(r) __asm__("" : "+m"(r))
#endif

// The fast intrinsics (glibc already declares __sinf and friends, so they are macros onto the
// accurate functions: a GPU's fast versions are less accurate, so results differ in the last bits).
#define __sinf(x) __builtin_sinf(x)
#define __cosf(x) __builtin_cosf(x)
#define __tanf(x) __builtin_tanf(x)
#define __tanhf(x) __builtin_tanhf(x)
#define __expf(x) __builtin_expf(x)
#define __exp10f(x) __builtin_exp10f(x)
#define __logf(x) __builtin_logf(x)
#define __log2f(x) __builtin_log2f(x)
#define __log10f(x) __builtin_log10f(x)
#define __powf(x, y) __builtin_powf((x), (y))
#define __sincosf(x, s, c) __builtin_sincosf((x), (s), (c))
#define __fdividef(x, y) ((x) / (y))
#define fdividef(x, y) ((x) / (y))
static inline float fdivide(float x, float y) { return x / y; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float saturate(float x) { return __saturatef(x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline void sincospif(float x, float *s, float *c) { sincosf((float)M_PI * x, s, c); }
// __fadd_rn and friends are never fused into a multiply-add on a GPU: the result passes through
// __SIM_UNFUSED, which the compiler cannot see into, so it cannot contract it either.
static inline float __fadd_rn(float a, float b) { float r = a + b; __SIM_UNFUSED(r); return r; }
static inline float __fsub_rn(float a, float b) { float r = a - b; __SIM_UNFUSED(r); return r; }
static inline float __fmul_rn(float a, float b) { float r = a * b; __SIM_UNFUSED(r); return r; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline double __dadd_rn(double a, double b) { double r = a + b; __SIM_UNFUSED(r); return r; }
static inline double __dsub_rn(double a, double b) { double r = a - b; __SIM_UNFUSED(r); return r; }
static inline double __dmul_rn(double a, double b) { double r = a * b; __SIM_UNFUSED(r); return r; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __double2float_rn(double x) { return (float)x; }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
static inline float __uint_as_float(unsigned i) { float x; memcpy(&x, &i, 4); return x; }
// The NaN a GPU's float arithmetic gives, whatever NaN or operands made it (PTX's canonical NaN;
// the CPU's is 0xFFC00000, or the NaN that went in)
static inline float __sim_canonical_nanf() { return __uint_as_float(0x7fffffffu); }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, 8); return x; }

// fminf and fmaxf as a GPU's min.f32 and max.f32 (an H200's, bench/float_identity.py's
// special_values): a NaN, a signalling one too, gives way to the other operand, two NaNs give the
// GPU's NaN, and -0 is below +0. The C library's return NaN for a signalling NaN, and either zero.
static inline float __sim_fminf(float a, float b) {
    if (a != a) return b != b ? __sim_canonical_nanf() : b;
    if (b != b) return a;
    if (a == b) return __uint_as_float(__float_as_uint(a) | __float_as_uint(b));  // -0 if either is
    return b < a ? b : a;
}
static inline float __sim_fmaxf(float a, float b) {
    if (a != a) return b != b ? __sim_canonical_nanf() : b;
    if (b != b) return a;
    if (a == b) return __uint_as_float(__float_as_uint(a) & __float_as_uint(b));  // +0 if either is
    return a < b ? b : a;
}
// fmin and fmax on doubles as a GPU's min.f64 and max.f64 (the H200's special_doubles): the same,
// but two NaNs give the first one, quieted (0x7FF0000000000001 becomes 0x7FF8000000000001): a GPU's
// double arithmetic passes a NaN on as the CPU's does. On two floats fmin is fminf; other pairs
// of types are refused, as nvcc refuses them (sim_math_args.h).
static inline double __sim_quiet(double a) {
    return __longlong_as_double(__double_as_longlong(a) | 0x0008000000000000LL);
}
static inline double __sim_fmin(double a, double b) {
    if (a != a) return b != b ? __sim_quiet(a) : b;
    if (b != b) return a;
    if (a == b) return __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b));
    return b < a ? b : a;
}
static inline double __sim_fmax(double a, double b) {
    if (a != a) return b != b ? __sim_quiet(a) : b;
    if (b != b) return a;
    if (a == b) return __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b));
    return a < b ? b : a;
}
static inline float __sim_fmin(float a, float b) { return __sim_fminf(a, b); }
static inline float __sim_fmax(float a, float b) { return __sim_fmaxf(a, b); }
namespace std {  // std::fminf(a, b) becomes std::__sim_fminf(a, b)
using ::__sim_fmax;
using ::__sim_fmaxf;
using ::__sim_fmin;
using ::__sim_fminf;
}  // namespace std
#define fminf(a, b) __sim_fminf(a, b)
#define fmaxf(a, b) __sim_fmaxf(a, b)
#define fmin(a, b) __sim_fmin(a, b)
#define fmax(a, b) __sim_fmax(a, b)

// CUDA's min and max: the overloads its math_functions.hpp declares, no more, so that a call picks
// the one nvcc picks and a pair nvcc finds ambiguous (an int and a float) is ambiguous here too
// (tests/sim/compile/test_math_arguments.py); each returns C++'s common type of the two.
#define __SIM_MIN_MAX(A, B)                                                                   \
    static inline std::common_type<A, B>::type min(A a, B b) { return b < a ? b : a; }       \
    static inline std::common_type<A, B>::type max(A a, B b) { return a < b ? b : a; }
__SIM_MIN_MAX(int, int) __SIM_MIN_MAX(unsigned, unsigned) __SIM_MIN_MAX(int, unsigned)
__SIM_MIN_MAX(unsigned, int) __SIM_MIN_MAX(long, long) __SIM_MIN_MAX(unsigned long, unsigned long)
__SIM_MIN_MAX(long, unsigned long) __SIM_MIN_MAX(unsigned long, long)
__SIM_MIN_MAX(long long, long long) __SIM_MIN_MAX(unsigned long long, unsigned long long)
__SIM_MIN_MAX(long long, unsigned long long) __SIM_MIN_MAX(unsigned long long, long long)
#undef __SIM_MIN_MAX
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline double min(float a, double b) { return fmin((double)a, b); }
static inline double max(float a, double b) { return fmax((double)a, b); }
static inline double min(double a, float b) { return fmin(a, (double)b); }
static inline double max(double a, float b) { return fmax(a, (double)b); }

// integer intrinsics
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}
static inline int __mul24(int a, int b) { return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) {
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static inline unsigned __sad(int a, int b, unsigned c) { return (unsigned)(a > b ? a - b : b - a) + c; }
static inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
// __byte_perm: byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int n = 0; n < 4; n++) r |= (unsigned)((bytes >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
    return r;
}
// __fns: the bit position of the offset-th set bit of mask counted from base (upwards for a
// positive offset, downwards for a negative one, base itself for 0), or 0xFFFFFFFF (PTX's fns)
static inline unsigned __fns(unsigned mask, unsigned base, int offset) {
    if (offset == 0) return (mask >> (base & 31)) & 1 ? base : 0xFFFFFFFFu;
    int step = offset > 0 ? 1 : -1, count = (offset > 0 ? offset : -offset) - 1;
    for (int pos = (int)base; pos >= 0 && pos < 32; pos += step)
        if ((mask >> pos) & 1 && count-- == 0) return (unsigned)pos;
    return 0xFFFFFFFFu;
}

// funnel shifts: the 64-bit hi:lo shifted, the upper (l) or lower (r) 32 bits kept; the shift is
// taken modulo 32, or clamped to 32 (the "c" forms)
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift & 31)) >> 32);
}
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
    return shift >= 32 ? lo : __funnelshift_l(lo, hi, shift);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift & 31));
}
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
    return shift >= 32 ? hi : __funnelshift_r(lo, hi, shift);
}
static inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
static inline unsigned __urhadd(unsigned a, unsigned b) {
    return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}

// __dp4a: the four byte products of a and b, summed, plus c; __dp2a_lo/hi: the two 16-bit halves
// of a times bytes 0-1 (lo) or 2-3 (hi) of b, plus c. Signed for int, unsigned for unsigned.
template <typename __L, typename __T> static inline __T __sim_dot(__T a, __T b, __T c, int n, int from) {
    long long s = (long long)c;
    for (int k = 0; k < n; k++) {
        long long x = n == 4 ? (long long)(__L)(a >> (8 * k)) : (long long)(__L)(a >> (16 * k));
        long long y = std::is_signed<__T>::value ? (long long)(int8_t)(b >> (8 * (from + k)))
                                                 : (long long)(uint8_t)(b >> (8 * (from + k)));
        s += x * y;
    }
    return (__T)s;
}
static inline int __dp4a(int a, int b, int c) { return __sim_dot<int8_t>(a, b, c, 4, 0); }
static inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) { return __sim_dot<uint8_t>(a, b, c, 4, 0); }
static inline int __dp4a(char4 a, char4 b, int c) {
    int x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    return __dp4a(x, y, c);
}
static inline unsigned __dp4a(uchar4 a, uchar4 b, unsigned c) {
    unsigned x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    return __dp4a(x, y, c);
}
static inline int __dp2a_lo(int a, int b, int c) { return __sim_dot<int16_t>(a, b, c, 2, 0); }
static inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return __sim_dot<uint16_t>(a, b, c, 2, 0); }
static inline int __dp2a_hi(int a, int b, int c) { return __sim_dot<int16_t>(a, b, c, 2, 2); }
static inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return __sim_dot<uint16_t>(a, b, c, 2, 2); }
template <typename __V> static inline unsigned __sim_word(__V v) {
    unsigned w;
    memcpy(&w, &v, 4);
    return w;
}
static inline int __dp2a_lo(short2 a, char4 b, int c) { return __dp2a_lo((int)__sim_word(a), (int)__sim_word(b), c); }
static inline unsigned __dp2a_lo(ushort2 a, uchar4 b, unsigned c) { return __dp2a_lo(__sim_word(a), __sim_word(b), c); }
static inline int __dp2a_hi(short2 a, char4 b, int c) { return __dp2a_hi((int)__sim_word(a), (int)__sim_word(b), c); }
static inline unsigned __dp2a_hi(ushort2 a, uchar4 b, unsigned c) { return __dp2a_hi(__sim_word(a), __sim_word(b), c); }

// Loads and stores with cache hints (__ldcg, __stcs, ...) are plain loads and stores on a CPU.
template <typename __T> static inline __T __ldg(const __T *p) { return *p; }
template <typename __T> static inline __T __ldcg(const __T *p) { return *p; }
template <typename __T> static inline __T __ldca(const __T *p) { return *p; }
template <typename __T> static inline __T __ldcs(const __T *p) { return *p; }
template <typename __T> static inline __T __ldlu(const __T *p) { return *p; }
template <typename __T> static inline __T __ldcv(const __T *p) { return *p; }
template <typename __T> static inline void __stwb(__T *p, __T v) { *p = v; }
template <typename __T> static inline void __stcg(__T *p, __T v) { *p = v; }
template <typename __T> static inline void __stcs(__T *p, __T v) { *p = v; }
template <typename __T> static inline void __stwt(__T *p, __T v) { *p = v; }

#include "sim_convert.h"  // type casts with PTX's saturation, rounding modes
#include "sim_trig.h"     // sinf, cosf and sincosf with a GPU's bits
#include "sim_log.h"      // logf, log2f and log10f with a GPU's bits
#include "sim_simd.h"     // __vadd2, __vcmpgtu4, __vsads2, ...
#include "sim_special.h"  // norms, erfinv, normcdf, erfcx, cyl_bessel_i0, ...
#include "sim_dpx.h"
