// cuda_bf16.h -- CUDA's bfloat16 on the simulator: __nv_bfloat16 and __nv_bfloat162, as
// cuda_fp16.h gives __half and __half2 (and, as CUDA's, it includes cuda_fp16.h). A bfloat16 is
// a float's top 16 bits: 8 bits of exponent, 7 of fraction; a float rounds to it to nearest even.
#pragma once
// its own sim, whatever the learner's code made of it (compile/source.py: SIM_IN_THE_SCAN)
#pragma push_macro("sim")
#undef sim
template <typename __SimNotInsideExternC> struct __sim_cuda_bf16_is_cxx;   // as cuda_fp16.h's
#include "cuda_fp16.h"

extern "C++" {
#define __SIM_T __nv_bfloat16
#define __SIM_T2 __nv_bfloat162
#define __SIM_RAW __nv_bfloat16_raw
#define __SIM_RAW2 __nv_bfloat162_raw
#define __SIM_OTHER __half
#define __SIM_F __sim_bf16
#define __SIM_TO(I, s) __##I##2bfloat16##s
#define __SIM_FROM(I, s) __bfloat162##I##s
#define __SIM_NAME(s) __bfloat16##s
#define __SIM_AS(I) __##I##_as_bfloat16
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

// one rounding from the other 16-bit format (cvt.rn.f16.bf16, cvt.rn.bf16.f16)
inline __half::__half(const __nv_bfloat16 __o) : __x(__sim_f16::__from_double((float)__o)) {}
inline __nv_bfloat16::__nv_bfloat16(const __half __o) : __x(__sim_bf16::__from_double((float)__o)) {}

__SIM_HALF_FN __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 __a) { return __nv_bfloat162(__a, __a); }
__SIM_HALF_FN __nv_bfloat162 make_bfloat162(const __nv_bfloat16 __x, const __nv_bfloat16 __y) {
    return __nv_bfloat162(__x, __y);
}

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
}  // extern "C++"

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
#pragma pop_macro("sim")
