// cuda_sim.h -- the prelude that lets an unchanged CUDA C .cu file compile as C++ for the CPU.
//
// The simulator compiles   #include <cuda_sim.h>  +  extern "C" { <the .cu file> }  +  kernel table
// with the host compiler. This header defines CUDA's keywords, built-in variables, printf, assert,
// barriers and warp functions; sim_math.h, sim_atomics.h and sim_host_only.h add the math and
// integer intrinsics, the atomics, and the errors for host library calls. What a kernel calls
// while it runs (barriers, warp functions) lives in sim_runtime.h; the per-kernel launcher that
// reads the kernel's parameter types, in sim_launch.h. The grid runner (sim_grid.h) is compiled
// on its own and linked into every module.
//
// The learner's code comes after this header and may #define any name it likes (T, N, K, block,
// value, ...). So every macro here expands only to keywords and reserved names (__sim_..., which
// a program may not define), and the kernel table after the learner's code uses reserved names
// only: a learner's macro can never change what the simulator's code means.
#pragma once

// Without C++17's special functions (std::riemann_zeta, std::assoc_laguerre, ...), which device
// code has none of: with them, libstdc++'s <cmath> made every module instantiate their templates
// (GCC's -ftime-report: 2.7 of the 6.7 MB that a module's instantiations made for the prelude).
#if __has_include(<bits/c++config.h>)
#include <bits/c++config.h>
#undef _GLIBCXX_USE_STD_SPEC_FUNCS
#endif

// The C library and its C++ wrappers, all included now: sim_host_only.h turns host functions
// into errors with function-like macros, and a header included after them would trip on those.
#include <assert.h>
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>  // its random_shuffle calls std::rand()
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <type_traits>

#include "sim_runtime.h"  // includes sim_types.h: vector types, dim3, the built-in variables
#include "sim_launch.h"   // the launcher of each kernel, instantiated by the table after the code

// ---- keywords -------------------------------------------------------------------------------
#ifdef SIM_SCAN
#define __global__ __sim_global__  // marks kernels when the compiler driver looks for their names
#elif defined(SIM_TRACE)
// The instrumented build: a kernel stays a function of its own. Inlined into the runtime's
// launcher, which is not instrumented, its loads and stores would go untraced.
#define __global__ __attribute__((__noinline__))
#elif SIM_FIBERS
#define __global__
#else
// A module without fibers runs a block as a loop over its threads (sim_launch.h), the kernel
// inlined into it: each thread was a call, the kernel's arguments and built-in variables read
// again by each. Its symbol stays in the library's dynamic table (Python names a kernel by it),
// protected: no other library may stand in for it, which the inlining needs.
#define __global__ __attribute__((__visibility__("protected"), __always_inline__))
#endif
#ifdef SIM_SCAN
#define __device__ __sim_device__  // marks __device__ functions and variables for the driver
#define __constant__ __sim_constant__
#define __managed__ __sim_managed__
#define __host__ __sim_host__      // for device_rules: a kernel declared __host__ too is refused
#else
#define __device__
#define __constant__
#define __managed__
#define __host__
#endif
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((__always_inline__))
// __noinline__: written out in the learner's code by compile/source.py (a macro would break
// libstdc++'s own __attribute__((__noinline__))).
#define __align__(n) __attribute__((__aligned__(n)))
#ifdef SIM_SCAN  // a mark the compiler driver reads the bound from (compile/launch_bounds.py)
#define __launch_bounds__(...) __sim_launch_bounds__(__VA_ARGS__)
#else             // the bound is kept in the table after the learner's code (sim_launch.h)
#define __launch_bounds__(...)
#endif
#define __grid_constant__
#define __CUDACC__ 1
#define __CUDA_ARCH_SIM__ 1

// ---- built-in variables ---------------------------------------------------------------------
#if SIM_INDICES_IN_MODULE && !SIM_FIBERS && !defined(SIM_TRACE)
// A plain module's: values (as on a GPU, a built-in variable has no address), read from the
// module's copy of the running thread's indices (sim_launch.h), which no store can reach.
__attribute__((__always_inline__)) inline uint3 __sim_thread_idx() {
    return uint3{sim::thread_x_now(), sim::thread_y, sim::thread_z};
}
__attribute__((__always_inline__)) inline uint3 __sim_block_idx() {
    return uint3{sim::block_x, sim::block_y, sim::block_z};
}
__attribute__((__always_inline__)) inline uint3 __sim_block_dim() {
    return uint3{sim::block_dim_x, sim::block_dim_y, sim::block_dim_z};
}
__attribute__((__always_inline__)) inline uint3 __sim_grid_dim() {
    return uint3{sim::grid_dim_x, sim::grid_dim_y, sim::grid_dim_z};
}
#else
__attribute__((__always_inline__)) inline const uint3 &__sim_thread_idx() { return sim::frame()->thread; }
__attribute__((__always_inline__)) inline const uint3 &__sim_block_idx() { return sim::frame()->block; }
__attribute__((__always_inline__)) inline const uint3 &__sim_block_dim() { return sim::frame()->block_dim; }
__attribute__((__always_inline__)) inline const uint3 &__sim_grid_dim() { return sim::frame()->grid_dim; }
#endif
#define threadIdx (__sim_thread_idx())
#define blockIdx (__sim_block_idx())
#define blockDim (__sim_block_dim())
#define gridDim (__sim_grid_dim())
static constexpr int warpSize = 32;
// extern __shared__ arrays (rewritten by compile/source.py): this block's dynamic shared memory
inline void *__sim_dynamic_shared() { return sim::dynamic_shared(); }

// ---- device printf, assert, trap -------------------------------------------------------------
// printf is the C library's (each call writes whole lines under stdio's lock); the runtime
// flushes stdout when a launch ends, as a GPU's printf buffer is flushed when the host synchronises.
// Its format attribute lets the compiler warn about a format that does not fit its arguments.
__attribute__((__format__(__printf__, 1, 2))) inline int __sim_printf(const char *__fmt, ...) {
    va_list __ap;
    va_start(__ap, __fmt);
    int __n = sim::device_vprintf(__fmt, __ap);
    va_end(__ap);
    return __n;
}
[[noreturn]] inline void __sim_fail_assert(const char *__what, const char *__file, int __line) {
    sim::fail_assert(__what, __file, __line);
}
namespace std { using ::__sim_printf; }  // std::printf, which <cstdio> gives device code too
#define printf __sim_printf
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __sim_fail_assert(#e, __FILE__, __LINE__))
#endif
#define __trap() __sim_fail_assert("__trap()", __FILE__, __LINE__)
#define __brkpt() ((void)0)

// ---- barriers, fences, clocks -------------------------------------------------------------------
// Each call site gets its own number (__COUNTER__): threads meet at a barrier only at the same one.
typedef sim::Site __sim_site;
#define __SIM_SITE (__sim_site{__FILE__, __LINE__, __COUNTER__})
// Where the learner called a function of CUDA's headers (cooperative_groups.h, mma.h,
// cuda_pipeline_primitives.h) taking it as a defaulted last argument: a barrier or warp function
// meets, and an error names, that line. (Nested default arguments take the outermost caller's.)
struct __sim_caller {
    __sim_site site;
    __sim_caller(const char *__file = __builtin_FILE(), int __line = __builtin_LINE())
        : site{__file, __line, -__line} {}
};
inline void __sim_sync_block(__sim_site __s) { sim::sync_block(__s); }
inline int __sim_sync_block_reduce(__sim_site __s, int __p, int __op) {
    return sim::sync_block_reduce(__s, __p, __op);
}
#define __syncthreads() __sim_sync_block(__SIM_SITE)
#define __syncthreads_count(p) __sim_sync_block_reduce(__SIM_SITE, (p), 0)
#define __syncthreads_and(p) __sim_sync_block_reduce(__SIM_SITE, (p), 1)
#define __syncthreads_or(p) __sim_sync_block_reduce(__SIM_SITE, (p), 2)
// The barriers as functions too, never called (a call is the macro's): __syncthreads; without its
// parentheses names a function, as with nvcc, and does nothing; g++ warns of it (-Waddress), and
// the warning is kept as a record (compile/warned.py), where it would otherwise not compile.
static inline void (__syncthreads)(void) {}
static inline void (__syncwarp)(unsigned = 0xffffffffu) {}
// The same barriers at a site the caller names: cooperative_groups.h passes its own caller's line.
// (The instrumented build's, which also tell the race check, are sim_traced.h's.)
#ifndef SIM_TRACE
inline void __sim_sync_block_at(__sim_site __s) { sim::sync_block(__s); }
inline void __sim_sync_warp_at(__sim_site __s, unsigned __mask) { sim::sync_warp(__s, __mask); }
#endif
#define syncthreads_count(p) __syncthreads_count(p)
#define syncthreads_and(p) __syncthreads_and(p)
#define syncthreads_or(p) __syncthreads_or(p)
static inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline long long clock64() {
    timespec __t;
    clock_gettime(CLOCK_MONOTONIC, &__t);
    return (long long)__t.tv_sec * 1000000000LL + __t.tv_nsec;
}
// A thread that naps lets the other threads of its block run: a thread that waits in a loop for
// another thread of its block (with __nanosleep, as CUDA recommends) sees it make progress.
inline void __sim_nanosleep(unsigned) { sim::let_others_run(); }
#define __nanosleep(ns) __sim_nanosleep(ns)

#include "sim_split.h"    // a kernel with barriers run as loops (compile/split.py)
#include "sim_warp.h"     // __shfl_sync, __ballot_sync, __match_any_sync, __reduce_add_sync, ...
#include "sim_math.h"     // math functions, intrinsics, integer and DPX functions
#include "sim_atomics.h"  // atomicAdd and friends
#ifdef SIM_TRACE
#include "sim_traced.h"  // the instrumented build: memory trace and race check (compiler.py)
#endif
#include "sim_host_only.h"  // exit(), rand(), fopen(), ...: errors that say why
#include "sim_math_args.h"  // sqrt of an int, fmin of a float and an int: refused as by nvcc
// The unit includes sim_prelude_end.h next: the worker's register, and the end of these macros.
