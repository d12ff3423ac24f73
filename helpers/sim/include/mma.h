// mma.h -- CUDA's warp matrix functions (nvcuda::wmma: the tensor cores) on the simulator, with
// the names and signatures of CUDA 13's header, for the shapes and types that compute capability
// 8.0 to 9.0 offer in floating point and in 8-bit integers:
//   m16n16k16, m32n8k16, m8n32k16: __half or __nv_bfloat16 inputs, float accumulators (and __half
//     ones for __half inputs); signed char or unsigned char inputs, int accumulators;
//   m16n16k8: precision::tf32 inputs (held as floats), float accumulators.
// Anything else is refused when the kernel compiles, by a static_assert that says what is allowed
// (CUDA's sub-byte and double fragments, and mma_sync's satf argument, included: the simulator
// does not run those). So is a fragment that the simulated GPU does not have, as nvcc refuses it:
// before compute capability 8.0, __nv_bfloat16 and tf32 ones (a T4 has __half ones only), before
// 7.2 the 8-bit integer ones.
//
// Where each element lives. CUDA leaves the mapping of a fragment's x[] to the matrix unspecified;
// here it is the H200's (bench/data/h200_wmma_outputs.npz: what each lane of an H200 held), built
// from PTX's mma.sync.m16n8k16 (m16n8k8 for tf32) pieces. Lane = 4 g + t (g = lane / 4, t = lane %
// 4). A matrix is cut into core tiles of 8 rows and 4P columns (matrix_a, accumulator) or 4P rows
// and 8 columns (matrix_b), where P is 2 for 16-bit inputs and for accumulators, 1 for tf32; a lane
// holds row g, columns tP .. tP + P - 1 of each core tile (matrix_b: rows tP .. tP + P - 1 of
// column g). (8-bit inputs: P is 4, PTX's mma.m16n8k16 pieces for 8-bit integers; the H200's stored
// outputs do not record them, so that much is PTX's and not yet the H200's.) x[] goes through bands
// of 16 rows (or fewer, where the matrix has fewer) one after another, and through each band's core
// tiles down the rows first, then across: m32n8k16's 32 x 16 matrix_a holds rows 0 to 15 in x[0..7]
// as m16n16k16's does, rows 16 to 31 in x[8..15]. An m8n32k16 fragment is m32n8k16's transposed
// (D^T = B^T A^T): its matrix_a, matrix_b and accumulator hold, at x[i], the transposed place of
// x[i] of m32n8k16's matrix_b, matrix_a and accumulator (so its accumulator's lane holds rows 2t,
// 2t + 1 of column g of each 8 x 8 tile). A __half matrix_a or matrix_b fragment holds 16 elements
// on every shape, as CUDA's does: the elements past the matrix's share repeat the first (mma_sync
// reads the first copy). A kernel that scales every x[i] by the same number depends on none of
// this.
//
// Arithmetic. Integers: D = A B + C exactly, wrapping around modulo 2^32 as an int does on the GPU
// (satf, which saturates, is not offered). Floating point: mma_sync computes D = A B + C with each
// product exact in FP32 (a product of two 11-bit significands fits in 24 bits), each d[i][j] =
// c[i][j] + sum over k of a[i][k] b[k][j] added in FP32, k in order, one rounding per addition; a
// __half accumulator is rounded once at the end. A GPU's tensor cores add in an order and with
// roundings of their own, so results agree within |D - exact| <= (K + 1) 2^-23 (|c| + sum over k of
// |a b|) in each element (K the shape's depth), not bit for bit. A tf32 input is a float whose low
// 13 bits the tensor core does not read (mma_sync drops them); __float_to_tf32 rounds a float to
// the 19 bits that are read, to nearest, ties away from zero, as cvt.rna.tf32.f32 does.
//
// The _sync functions are warp-collective: the 32 lanes of a warp call each at the same line.
// load_matrix_sync and store_matrix_sync wait for the warp's 32 lanes, then each lane loads or stores
// its own elements (the caller's accesses: the race check, init check and bounds check see them).
// Waiting is all they do: unlike __syncwarp(), which "guarantees memory ordering among threads
// participating in the barrier" (CUDA's programming guide), they order no memory, so the race check
// holds a lane's store of a staged element and another lane's load_matrix_sync of it, with no
// __syncwarp() or __syncthreads() between, to be a race, as it does a store of a fragment and another
// lane's read of it;
// mma_sync hands the 32 lanes' fragments to one computation (sim::WarpTask). A leading dimension
// that is not a multiple of 16 bytes (PTX's rule) stops the launch. A pointer to 16-bit elements
// that is not a multiple of 4 bytes (an odd element) stops it as a GPU's "misaligned address"
// does: an H100 refused A + 1 and ran A + 2, A + 4 and A + 8, although CUDA asks for 256 bits. (Those
// are not refused: the simulator does not lay shared arrays out as a GPU does.)
#pragma once
// its own sim, whatever the learner's code made of it (compile/source.py: SIM_IN_THE_SCAN)
#pragma push_macro("sim")
#undef sim

#if !defined(__CUDA_ARCH_SIM__)
#error "this mma.h is the CUDA course simulator's: compile with its prelude"
#endif

#include "cuda_bf16.h"
#include "cuda_fp16.h"

// load_matrix_sync and store_matrix_sync are inlined into the caller, so that the instrumented
// build finds their accesses at the caller's line (compile/sites.py follows inlined frames).
#define __SIM_MMA_INLINE inline __attribute__((always_inline))

extern "C++" {
namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
enum layout_t { mem_row_major, mem_col_major };

namespace __sim {
using caller = __sim_caller;  // where the learner called: the warp meets there (cuda_sim.h)

template <class _A, class _B> constexpr bool same = std::is_same<_A, _B>::value;
template <class _T> constexpr bool input16 = same<_T, __half> || same<_T, __nv_bfloat16>;
template <class _T> constexpr bool input8 = same<_T, signed char> || same<_T, unsigned char>;
constexpr bool shape16(int __m, int __n, int __k) {
    return __k == 16 && ((__m == 16 && __n == 16) || (__m == 32 && __n == 8) || (__m == 8 && __n == 32));
}
constexpr bool shape_tf32(int __m, int __n, int __k) { return __m == 16 && __n == 16 && __k == 8; }

// The GPUs that have a fragment (__CUDA_ARCH__ from which CUDA's mma.h declares it; nvcc finds an
// incomplete type below): __nv_bfloat16 and tf32 ones, and every fragment of tf32's shape, from
// 800 (Ampere); 8-bit integer ones and int accumulators from 720; __half ones from 700 (Volta). A
// source that names wmma is told the device's __CUDA_ARCH__ (compile/capabilities.py); without it,
// as in CUDA's header on the host, every fragment is declared.
template <class _T, int _M, int _N, int _K> constexpr int since_arch =
    same<_T, __nv_bfloat16> || same<_T, precision::tf32> || shape_tf32(_M, _N, _K) ? 800
    : input8<_T> || same<_T, int> ? 720 : 700;
#if defined(__CUDA_ARCH__)
constexpr int device_arch = __CUDA_ARCH__;
#else
constexpr int device_arch = 1000;
#endif

template <class _T> struct storage { typedef _T type; };
template <> struct storage<precision::tf32> { typedef float type; };

// The matrix a fragment holds, and where its element i of lane `lane` lies in it (the H200's).
template <class _Use, int _M, int _N, int _K, class _T> struct layout_of {
    static constexpr bool a = same<_Use, matrix_a>, b = same<_Use, matrix_b>;
    static constexpr int rows = a ? _M : b ? _K : _M, cols = a ? _K : _N;
    static constexpr int pairs = !(a || b) ? 2 : same<_T, precision::tf32> ? 1 : input8<_T> ? 4 : 2;
    static constexpr int distinct = rows * cols / 32;
    static constexpr int count = (a || b) && same<_T, __half> ? 16 : distinct;
    // m8n32k16 is m32n8k16 transposed: matrix_a is m32n8k16's matrix_b, matrix_b its matrix_a.
    typedef layout_of<typename std::conditional<a, matrix_b, typename std::conditional<b, matrix_a, _Use>::type>::type,
                      32, 8, 16, _T> transposed;
    static void place(int __lane, int __i, int &__r, int &__c) {
        if (_M == 8 && _N == 32) {
            transposed::place(__lane, __i, __c, __r);
            return;
        }
        const int __g = __lane >> 2, __t = __lane & 3, __j = (__i % distinct) % pairs;
        const int __core = (__i % distinct) / pairs, __span = 4 * pairs;
        if (b) {  // core tiles of span rows (k) and 8 columns (n), down k first (k is 16 or 8 rows)
            const int __down = rows / __span;
            __r = (__core % __down) * __span + __t * pairs + __j, __c = (__core / __down) * 8 + __g;
        } else {  // bands of 16 rows; in each, core tiles of 8 rows and span columns, down first
            const int __down = rows < 16 ? rows / 8 : 2, __band = __down * (cols / __span);
            const int __in = __core % __band;
            __r = (__core / __band) * 16 + (__in % __down) * 8 + __g;
            __c = (__in / __down) * __span + __t * pairs + __j;
        }
    }
};

// The value the tensor core reads: a tf32 input drops a float's low 13 bits.
template <class _T> inline typename storage<_T>::type value(typename storage<_T>::type __x) { return __x; }
template <> inline float value<precision::tf32>(float __x) {
    uint32_t __b;
    memcpy(&__b, &__x, 4);
    __b &= 0xffffe000u;
    memcpy(&__x, &__b, 4);
    return __x;
}

[[noreturn]] inline void fail(const caller &__c, const char *__text) {
    sim::fail_at(sim::current_worker(), sim::MATRIX, __c.site, __text);
}

// The _sync functions need the whole warp: the block's last warp may have fewer than 32 threads.
inline void whole_warp(const caller &__c, const char *__what) {
    const unsigned __n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned __rank = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if ((__rank | 31) < __n) return;
    char __text[200];
    (snprintf)(__text, sizeof __text, "wmma::%s is warp-collective: it needs all 32 lanes of a warp, and this "
             "block's last warp has %u threads (make the block's size a multiple of 32)", __what, __n % 32);
    fail(__c, __text);
}

// A pointer to 16-bit elements at an odd element: the MATRIX status with warp_rule kMisaligned,
// address the pointer, operands[1] the element's bytes, is_write 1 for a store (run/report.py
// makes it a MisalignedAddressError).
constexpr int32_t kMisaligned = 5;
inline void check_aligned(const caller &__c, const char *__what, const void *__p, size_t __size,
                          bool __write) {
    if (__size != 2 || (uintptr_t)__p % 4 == 0) return;
    sim::Worker *__w = sim::current_worker();
    __w->err.warp_rule = kMisaligned;
    __w->err.address = (uint64_t)(uintptr_t)__p;
    __w->err.operands[1] = __size;
    __w->err.is_write = __write;
    char __text[200];
    (snprintf)(__text, sizeof __text, "wmma::%s was given a pointer to an odd element, 2 bytes past a "
             "multiple of 4: a GPU stops the launch with \"misaligned address\"", __what);
    fail(__c, __text);
}

inline void check_ldm(const caller &__c, const char *__what, unsigned __ldm, size_t __size) {
    if (__ldm * __size % 16 == 0) return;
    char __text[200];
    (snprintf)(__text, sizeof __text, "wmma::%s: the leading dimension %u is not a multiple of 16 bytes "
             "(%zu elements of %zu bytes)", __what, __ldm, 16 / __size, __size);
    fail(__c, __text);
}

// A warp-wide load takes one pointer and one leading dimension for the whole warp (on a GPU, lanes
// that pass different ones are undefined behaviour): the lanes publish theirs at the warp's
// meeting, and a lane whose pair differs from lane 0's stops the launch with the MATRIX status and
// these facts (run/report.py reads them): warp_rule kArgsDiffer, warp_lane the lane, address its
// pointer, operands lane 0's pointer and the element's bytes, gpu and cpu lane 0's leading
// dimension and the lane's.
constexpr int32_t kArgsDiffer = 4;
inline void same_for_the_warp(const caller &__c, const char *__what, const void *__p, unsigned __ldm,
                              size_t __size) {
    const uint64_t __mine = (uint64_t)(uintptr_t)__p;
    const uint64_t __first = sim::shfl(__c.site, 0xffffffffu, __mine, sim::ShflIdx, 0);
    const unsigned __ldm0 = sim::shfl(__c.site, 0xffffffffu, __ldm, sim::ShflIdx, 0);
    if (__first == __mine && __ldm0 == __ldm) return;
    sim::Worker *__w = sim::current_worker();
    __w->err.warp_rule = kArgsDiffer;
    __w->err.warp_lane = __w->current % 32;
    __w->err.address = __mine;
    __w->err.operands[0] = __first;
    __w->err.operands[1] = __size;
    __w->err.gpu = __ldm0;
    __w->err.cpu = __ldm;
    char __text[200];
    (snprintf)(__text, sizeof __text, "wmma::%s is warp-wide: every lane passes the same pointer and leading "
             "dimension, and lane %d's differ from lane 0's", __what, __w->current % 32);
    fail(__c, __text);
}
}  // namespace __sim

template <class _Use, int _M, int _N, int _K, class _T, class _Layout = void> class fragment {
    static constexpr bool __acc = __sim::same<_Use, accumulator>;
    static_assert(__acc || __sim::same<_Use, matrix_a> || __sim::same<_Use, matrix_b>,
                  "wmma::fragment's first argument is wmma::matrix_a, wmma::matrix_b or wmma::accumulator");
    static_assert(__sim::shape16(_M, _N, _K) || __sim::shape_tf32(_M, _N, _K),
                  "wmma::fragment: no such shape (M, N, K); CUDA's for floating point are 16, 16, 16 and "
                  "32, 8, 16 and 8, 32, 16 (__half and __nv_bfloat16 inputs) and 16, 16, 8 (precision::tf32)");
    static_assert(__acc || __sim::input16<_T> || __sim::same<_T, precision::tf32> || __sim::input8<_T>,
                  "wmma::fragment: matrix_a and matrix_b hold __half, __nv_bfloat16 or precision::tf32 (float "
                  "inputs: precision::tf32, shape 16, 16, 8), or signed char or unsigned char; CUDA's "
                  "sub-byte and double fragments are not simulated");
    static_assert(!__acc || __sim::same<_T, float> || __sim::same<_T, __half> || __sim::same<_T, int>,
                  "wmma::fragment: an accumulator holds float, __half or int (CUDA's double accumulators "
                  "are not simulated)");
    static_assert(!(__sim::input16<_T> || __sim::input8<_T> || __sim::same<_T, int>) || __sim::shape16(_M, _N, _K),
                  "wmma::fragment: __half and __nv_bfloat16 inputs take the shapes 16, 16, 16 and 32, 8, 16 "
                  "and 8, 32, 16 (16, 16, 8 is precision::tf32's), as signed char and unsigned char inputs "
                  "and int accumulators do");
    static_assert(!__sim::same<_T, precision::tf32> || __sim::shape_tf32(_M, _N, _K),
                  "wmma::fragment: precision::tf32 inputs take the shape 16, 16, 8 only");
    static_assert(__acc ? __sim::same<_Layout, void>
                        : __sim::same<_Layout, row_major> || __sim::same<_Layout, col_major> || __sim::same<_Layout, void>,
                  "wmma::fragment: matrix_a and matrix_b take the layout wmma::row_major or wmma::col_major; an "
                  "accumulator takes none (load_matrix_sync and store_matrix_sync take mem_row_major or "
                  "mem_col_major)");

    // What the GPU has: messages.py reads "need compute capability X.Y" (NeedsNewerGPUError's needs).
    static_assert(__sim::device_arch >= 800 || __sim::since_arch<_T, _M, _N, _K> < 800,
                  "wmma::fragment: __nv_bfloat16 and precision::tf32 fragments, and every fragment of the "
                  "shape 16, 16, 8, need compute capability 8.0 or newer (Ampere): CUDA's mma.h declares "
                  "none for older GPUs");
    static_assert(__sim::device_arch >= 720 || __sim::since_arch<_T, _M, _N, _K> < 720,
                  "wmma::fragment: signed char and unsigned char fragments, and int accumulators, need "
                  "compute capability 7.2 or newer: CUDA's mma.h declares none for older GPUs");

  public:
    typedef __sim::layout_of<_Use, _M, _N, _K, _T> __sim_layout;
    typedef _Use __sim_use;
    typedef _T __sim_type;
    typedef _Layout __sim_memory_layout;
    static constexpr int __sim_m = _M, __sim_n = _N, __sim_k = _K;
    typedef typename __sim::storage<_T>::type element_type;
    typedef typename __sim::storage<_T>::type storage_element_type;
    enum { num_elements = __sim_layout::count };
    element_type x[num_elements];
};

template <class _F, class _V> inline void fill_fragment(_F &__f, const _V &__v) {
    for (int __i = 0; __i < _F::num_elements; __i++) __f.x[__i] = (typename _F::element_type)__v;
}

namespace __sim {
// Element (r, c) of a rows x cols matrix at p with leading dimension ldm, in either layout.
inline size_t offset(int __r, int __c, unsigned __ldm, bool __row_major) {
    return __row_major ? (size_t)__r * __ldm + __c : (size_t)__c * __ldm + __r;
}

template <class _F, class _T> __SIM_MMA_INLINE void load(_F &__f, const _T *__p, unsigned __ldm, bool __row, const caller &__c) {
    whole_warp(__c, "load_matrix_sync");
    check_ldm(__c, "load_matrix_sync", __ldm, sizeof(_T));
    same_for_the_warp(__c, "load_matrix_sync", __p, __ldm, sizeof(_T));
    check_aligned(__c, "load_matrix_sync", __p, sizeof(_T), false);
    sim::sync_warp(__c.site, 0xffffffffu);  // the lanes meet; memory is not ordered
    const int __lane = (int)(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31);
    for (int __i = 0; __i < _F::num_elements; __i++) {
        int __r, __col;
        _F::__sim_layout::place(__lane, __i, __r, __col);
        __f.x[__i] = __p[offset(__r, __col, __ldm, __row)];  // the caller's access
    }
}
}  // namespace __sim

// matrix_a and matrix_b: the layout is the fragment's.
template <class _F, class _T>
__SIM_MMA_INLINE void load_matrix_sync(_F &__f, const _T *__p, unsigned __ldm, __sim::caller __c = __sim::caller()) {
    typedef typename _F::__sim_memory_layout _L;
    static_assert(!__sim::same<typename _F::__sim_use, accumulator>,
                  "wmma::load_matrix_sync: an accumulator's layout in memory is its fourth argument "
                  "(wmma::mem_row_major or wmma::mem_col_major)");
    static_assert(!__sim::same<_L, void>,
                  "wmma::load_matrix_sync: a matrix_a or matrix_b fragment declared without a layout cannot "
                  "be loaded; declare it with wmma::row_major or wmma::col_major");
    static_assert(__sim::same<_T, typename _F::element_type>,
                  "wmma::load_matrix_sync: a fragment loads from memory of its own element type (__half, "
                  "__nv_bfloat16, signed char, unsigned char; float for precision::tf32)");
    __sim::load(__f, __p, __ldm, __sim::same<_L, row_major>, __c);  // the caller's access
}

// accumulators: the layout in memory is an argument.
template <class _F, class _T>
__SIM_MMA_INLINE void load_matrix_sync(_F &__f, const _T *__p, unsigned __ldm, layout_t __layout,
                             __sim::caller __c = __sim::caller()) {
    static_assert(__sim::same<typename _F::__sim_use, accumulator>,
                  "wmma::load_matrix_sync: a matrix_a or matrix_b fragment's layout is its type's (no "
                  "layout_t argument)");
    static_assert(__sim::same<_T, typename _F::element_type>,
                  "wmma::load_matrix_sync: an accumulator loads from memory of its own type (float, __half or int)");
    __sim::load(__f, __p, __ldm, __layout == mem_row_major, __c);  // the caller's access
}

template <class _T, class _F>
__SIM_MMA_INLINE void store_matrix_sync(_T *__p, const _F &__f, unsigned __ldm, layout_t __layout,
                              __sim::caller __c = __sim::caller()) {
    static_assert(__sim::same<typename _F::__sim_use, accumulator>,
                  "wmma::store_matrix_sync stores an accumulator fragment");
    static_assert(__sim::same<_T, typename _F::element_type>,
                  "wmma::store_matrix_sync: an accumulator stores to memory of its own type (float, __half or int)");
    __sim::whole_warp(__c, "store_matrix_sync");
    __sim::check_ldm(__c, "store_matrix_sync", __ldm, sizeof(_T));
    __sim::check_aligned(__c, "store_matrix_sync", __p, sizeof(_T), true);
    sim::sync_warp(__c.site, 0xffffffffu);  // the lanes meet; memory is not ordered
    const int __lane = (int)(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31);
    for (int __i = 0; __i < _F::num_elements; __i++) {
        int __r, __col;
        _F::__sim_layout::place(__lane, __i, __r, __col);
        __p[__sim::offset(__r, __col, __ldm, __layout == mem_row_major)] = __f.x[__i];  // the caller's access
    }
}

namespace __sim {
// An element of D: an int wraps around modulo 2^32, as the GPU's does.
template <class _T> inline _T result(float __x) { return (_T)__x; }
template <class _T> inline _T result(long long __x) { return (_T)(uint32_t)(unsigned long long)__x; }

// One lane's operands of mma_sync; the warp's 32 parts make one product (sim::WarpTask).
template <class _D, class _A, class _B, class _C> struct mma_part : sim::WarpTask {
    static constexpr int M = _D::__sim_m, N = _D::__sim_n, K = _D::__sim_k;
    // Integers add exactly (in 64 bits, wrapped to an int at the end); floating point in FP32.
    typedef typename std::conditional<same<typename _D::element_type, int>, long long, float>::type number;
    _D *d;
    const _A *a;
    const _B *b;
    const _C *c;

    template <class _F> static void gather(sim::WarpTask *const __parts[32], const _F *mma_part::*__which, number *__m) {
        typedef typename _F::__sim_layout _L;
        for (int __lane = 0; __lane < 32; __lane++) {
            const _F &__f = *(((mma_part *)__parts[__lane])->*__which);
            for (int __i = 0; __i < _L::distinct; __i++) {
                int __r, __c;
                _L::place(__lane, __i, __r, __c);
                __m[__r * _L::cols + __c] = (number)value<typename _F::__sim_type>(__f.x[__i]);
            }
        }
    }
    static void compute(sim::WarpTask *const __parts[32], unsigned) {
        number __a[M * K], __b[K * N], __acc[M * N];
        gather(__parts, &mma_part::a, __a);
        gather(__parts, &mma_part::b, __b);
        gather(__parts, &mma_part::c, __acc);
        for (int __i = 0; __i < M; __i++)
            for (int __j = 0; __j < N; __j++)
                for (int __k = 0; __k < K; __k++) __acc[__i * N + __j] += __a[__i * K + __k] * __b[__k * N + __j];
        typedef typename _D::__sim_layout _L;
        for (int __lane = 0; __lane < 32; __lane++) {
            _D &__d = *((mma_part *)__parts[__lane])->d;
            for (int __i = 0; __i < _L::distinct; __i++) {
                int __r, __c;
                _L::place(__lane, __i, __r, __c);
                __d.x[__i] = result<typename _D::element_type>(__acc[__r * N + __c]);
            }
        }
    }
};
}  // namespace __sim

template <class _D, class _A, class _B, class _C>
inline void mma_sync(_D &__d, const _A &__a, const _B &__b, const _C &__c, __sim::caller __at = __sim::caller()) {
    static_assert(__sim::same<typename _A::__sim_use, matrix_a> && __sim::same<typename _B::__sim_use, matrix_b> &&
                  __sim::same<typename _D::__sim_use, accumulator> && __sim::same<typename _C::__sim_use, accumulator>,
                  "wmma::mma_sync(d, a, b, c): d and c are accumulators, a a matrix_a, b a matrix_b fragment");
    static_assert(_A::__sim_m == _D::__sim_m && _B::__sim_m == _D::__sim_m && _C::__sim_m == _D::__sim_m &&
                  _A::__sim_n == _D::__sim_n && _B::__sim_n == _D::__sim_n && _C::__sim_n == _D::__sim_n &&
                  _A::__sim_k == _D::__sim_k && _B::__sim_k == _D::__sim_k && _C::__sim_k == _D::__sim_k,
                  "wmma::mma_sync: the four fragments must have the same shape (M, N, K)");
    static_assert(__sim::same<typename _A::__sim_type, typename _B::__sim_type>,
                  "wmma::mma_sync: matrix_a and matrix_b must hold the same type");
    static_assert(!__sim::same<typename _A::__sim_memory_layout, void> && !__sim::same<typename _B::__sim_memory_layout, void>,
                  "wmma::mma_sync: matrix_a and matrix_b need a layout (wmma::row_major or wmma::col_major)");
    static_assert(!__sim::input8<typename _A::__sim_type> ||
                  (__sim::same<typename _D::__sim_type, int> && __sim::same<typename _C::__sim_type, int>),
                  "wmma::mma_sync: signed char and unsigned char inputs accumulate in int");
    static_assert(__sim::input8<typename _A::__sim_type> ||
                  (__sim::same<typename _A::__sim_type, __half>
                       ? !__sim::same<typename _D::__sim_type, int> && !__sim::same<typename _C::__sim_type, int>
                       : __sim::same<typename _D::__sim_type, float> && __sim::same<typename _C::__sim_type, float>),
                  "wmma::mma_sync: __nv_bfloat16 and precision::tf32 inputs accumulate in float (only __half "
                  "inputs may have __half accumulators; int accumulators take signed char or unsigned char)");
    __sim::whole_warp(__at, "mma_sync");
    __sim::mma_part<_D, _A, _B, _C> __part;
    __part.run = &__sim::mma_part<_D, _A, _B, _C>::compute;
    __part.d = &__d, __part.a = &__a, __part.b = &__b, __part.c = &__c;
    __sim_warp_task(__at.site, &__part);
}

// A float rounded to tf32's 10 bits of fraction, to nearest, ties away from zero (cvt.rna.tf32.f32):
// a float whose low 13 bits are 0. Infinity and NaN stay as they are.
inline float __float_to_tf32(float __x) {
    uint32_t __b;
    memcpy(&__b, &__x, 4);
    if ((__b & 0x7f800000u) != 0x7f800000u) __b = (__b + 0x1000u) & 0xffffe000u;
    memcpy(&__x, &__b, 4);
    return __x;
}

}  // namespace wmma
}  // namespace nvcuda
}  // extern "C++"
#undef __SIM_MMA_INLINE
#pragma pop_macro("sim")
