// cuda_fp16.h -- CUDA's half precision on the simulator: __half and __half2, their operators,
// conversions and intrinsics, with the names and signatures of CUDA 13's header, computed bit for
// bit as a GPU of compute capability 9.0 computes them (sim_half.h says how).
//
// A kernel includes it itself, as with nvcc. nvcc refuses CUDA's header inside the extern "C" { }
// that PyCUDA's SourceModule wraps around a source (C++ overloads with C linkage): the template
// declared first makes the simulator refuse it there too, with the same cure (no_extern_c=True,
// and extern "C" on each kernel: compile/messages.py). Everything else here is declared
// extern "C++". Its own names are reserved (__sim_..., __half...); the names CUDA gives without
// underscores (half, hsqrt, make_half2, ...) are CUDA's too.
#pragma once
// its own sim, whatever the learner's code made of it (compile/source.py: SIM_IN_THE_SCAN)
#pragma push_macro("sim")
#undef sim
template <typename __SimNotInsideExternC> struct __sim_cuda_fp16_is_cxx;
extern "C++" {
#include "sim_half.h"

struct __nv_bfloat16;

#define __SIM_T __half
#define __SIM_T2 __half2
#define __SIM_RAW __half_raw
#define __SIM_RAW2 __half2_raw
#define __SIM_OTHER __nv_bfloat16
#define __SIM_F __sim_f16
#define __SIM_TO(I, s) __##I##2half##s
#define __SIM_FROM(I, s) __half2##I##s
#define __SIM_NAME(s) __half##s
#define __SIM_AS(I) __##I##_as_half
#include "sim_half_ops.h"
#undef __SIM_T
#undef __SIM_T2
#undef __SIM_RAW
#undef __SIM_RAW2
#undef __SIM_OTHER
#undef __SIM_F
#undef __SIM_TO
#undef __SIM_FROM
#undef __SIM_NAME
#undef __SIM_AS

__SIM_HALF_FN __half2 __half2half2(const __half __a) { return __half2(__a, __a); }
__SIM_HALF_FN __half2 make_half2(const __half __x, const __half __y) { return __half2(__x, __y); }

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;
}  // extern "C++"

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)
#pragma pop_macro("sim")
