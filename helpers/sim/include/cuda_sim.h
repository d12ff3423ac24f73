// cuda_sim.h -- the prelude that lets an unchanged CUDA C .cu file compile as C++ for the CPU.
//
// The simulator compiles   #include <cuda_sim.h>  +  extern "C" { <the .cu file> }  +  kernel table
// with the host compiler. This header defines CUDA's keywords, built-in variables, vector types,
// math functions, atomics, barriers and warp functions. The runtime that executes a grid lives in
// sim_runtime.h; the per-kernel launcher that reads the kernel's parameter types lives in
// sim_launch.h, included before the user's code; its table of kernels comes after it.
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <assert.h>

#include <atomic>
#include <type_traits>

#include "sim_runtime.h"  // includes sim_types.h: vector types, dim3, the built-in variables

// ---- keywords -------------------------------------------------------------------------------
#ifdef SIM_SCAN
#define __global__ __sim_global__  // marks kernels when the compiler driver looks for their names
#else
#define __global__
#endif
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__
#define __CUDACC__ 1
#define __CUDA_ARCH_SIM__ 1

#define threadIdx (sim::frame()->thread)
#define blockIdx (sim::frame()->block)
#define blockDim (sim::frame()->block_dim)
#define gridDim (sim::frame()->grid_dim)
static constexpr int warpSize = 32;

// ---- device printf, assert, trap -------------------------------------------------------------
// printf is the C library's (each call writes whole lines under stdio's lock); the runtime
// flushes stdout when a launch ends, as a GPU's printf buffer is flushed when the host synchronises.
#define printf sim::device_printf
#undef assert
#define assert(e) ((e) ? (void)0 : sim::fail_assert(#e, __FILE__, __LINE__))
#define __trap() sim::fail_assert("__trap()", __FILE__, __LINE__)
#define __brkpt() ((void)0)

// ---- barriers, fences, clocks -------------------------------------------------------------------
// Each call site gets its own number (__COUNTER__): threads meet at a barrier only at the same one.
#define SIM_SITE (sim::Site{__FILE__, __LINE__, __COUNTER__})
#define __syncthreads() sim::sync_block(SIM_SITE)
#define __syncthreads_count(p) sim::sync_block_reduce(SIM_SITE, (p), 0)
#define __syncthreads_and(p) sim::sync_block_reduce(SIM_SITE, (p), 1)
#define __syncthreads_or(p) sim::sync_block_reduce(SIM_SITE, (p), 2)
static inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline long long clock64() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
static inline void __nanosleep(unsigned) {}

// ---- warp functions: the lanes of a warp meet, exchange a value, and go on ----------------------
#define __syncwarp(...) sim::sync_warp(SIM_SITE, ##__VA_ARGS__)
#define __activemask() sim::active_mask()
#define __shfl_sync(m, v, ...) sim::shfl(SIM_SITE, (m), (v), sim::ShflIdx, __VA_ARGS__)
#define __shfl_up_sync(m, v, ...) sim::shfl(SIM_SITE, (m), (v), sim::ShflUp, __VA_ARGS__)
#define __shfl_down_sync(m, v, ...) \
    sim::shfl(SIM_SITE, (m), (v), sim::ShflDown, __VA_ARGS__)
#define __shfl_xor_sync(m, v, ...) sim::shfl(SIM_SITE, (m), (v), sim::ShflXor, __VA_ARGS__)
#define __ballot_sync(m, p) sim::vote(SIM_SITE, (m), (p), sim::VoteBallot)
#define __any_sync(m, p) ((int)(sim::vote(SIM_SITE, (m), (p), sim::VoteAny)))
#define __all_sync(m, p) ((int)(sim::vote(SIM_SITE, (m), (p), sim::VoteAll)))
#define __uni_sync(m, p) ((int)(sim::vote(SIM_SITE, (m), (p), sim::VoteUni)))

// ---- math: CUDA's names that the C library lacks, and the fast intrinsics ----------------------
// glibc already declares __sinf and friends, so the intrinsics are macros onto the accurate
// functions (a GPU's fast versions are less accurate: results can differ in the last bits).
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __expf(x) expf(x)
#define __exp10f(x) exp10f(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __powf(x, y) powf((x), (y))
#define __sincosf(x, s, c) sincosf((x), (s), (c))
#define __fdividef(x, y) ((x) / (y))
#define fdividef(x, y) ((x) / (y))
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
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
static inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline int __double2int_rn(double x) { return (int)nearbyint(x); }
static inline float __double2float_rn(double x) { return (float)x; }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
static inline float __uint_as_float(unsigned i) { float x; memcpy(&x, &i, 4); return x; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, 8); return x; }

// CUDA's min and max are overloaded for every arithmetic type; mixed types follow C++'s rules.
template <typename A, typename B>
static inline typename std::common_type<A, B>::type min(A a, B b) { return b < a ? b : a; }
template <typename A, typename B>
static inline typename std::common_type<A, B>::type max(A a, B b) { return a < b ? b : a; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }

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

// read-only cache loads are plain loads on a CPU
template <typename T> static inline T __ldg(const T *p) { return *p; }

// ---- atomics: real hardware atomics, since blocks run on several CPU threads -------------------
#define SIM_ATOMIC_RMW(name, builtin)                                              \
    template <typename T>                                                          \
    static inline typename std::enable_if<std::is_integral<T>::value, T>::type     \
    name(T *p, T v) { return builtin(p, v, __ATOMIC_SEQ_CST); }
SIM_ATOMIC_RMW(atomicAdd, __atomic_fetch_add)
SIM_ATOMIC_RMW(atomicSub, __atomic_fetch_sub)
SIM_ATOMIC_RMW(atomicAnd, __atomic_fetch_and)
SIM_ATOMIC_RMW(atomicOr, __atomic_fetch_or)
SIM_ATOMIC_RMW(atomicXor, __atomic_fetch_xor)
SIM_ATOMIC_RMW(atomicExch, __atomic_exchange_n)
#undef SIM_ATOMIC_RMW

namespace sim {
// Floating-point and compound atomics: a compare-and-swap loop over the value's bits.
template <typename T, typename F> static inline T atomic_update(T *p, F f) {
    T old, want;
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);
    do {
        want = f(old);
    } while (!__atomic_compare_exchange(p, &old, &want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return old;
}
}  // namespace sim
static inline float atomicAdd(float *p, float v) {
    return sim::atomic_update(p, [v](float o) { return o + v; });
}
static inline double atomicAdd(double *p, double v) {
    return sim::atomic_update(p, [v](double o) { return o + v; });
}
static inline float atomicExch(float *p, float v) {
    float old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
template <typename T> static inline T atomicMin(T *p, T v) {
    return sim::atomic_update(p, [v](T o) { return v < o ? v : o; });
}
template <typename T> static inline T atomicMax(T *p, T v) {
    return sim::atomic_update(p, [v](T o) { return v > o ? v : o; });
}
static inline unsigned atomicInc(unsigned *p, unsigned limit) {
    return sim::atomic_update(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
static inline unsigned atomicDec(unsigned *p, unsigned limit) {
    return sim::atomic_update(p, [limit](unsigned o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
template <typename T> static inline T atomicCAS(T *p, T compare, T val) {
    __atomic_compare_exchange(p, &compare, &val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicCAS_block atomicCAS
#define atomicExch_block atomicExch
