// sim_dpx.h -- compute capability 9.0's DPX functions (dynamic programming): max, min and
// add-then-max/min of three values, with a ReLU (clamp at 0) and with a predicate, on 32-bit
// integers or on pairs of 16-bit halves packed in an unsigned int. Included by sim_math.h.
//
// Names: __vi<op>_<type>[_relu], where <type> is s32, u32, s16x2 or u16x2. Sums wrap around
// (in 16 bits for the halves), as the GPU's add does.
#pragma once

// Applies f to each 16-bit half of a, b and c (read as type __L) and packs the results.
template <typename __L, typename __F> static inline unsigned __sim_halves(unsigned a, unsigned b, unsigned c, __F f) {
    unsigned r = 0;
    for (int k = 0; k < 32; k += 16)
        r |= (unsigned)(uint16_t)f((__L)(a >> k), (__L)(b >> k), (__L)(c >> k)) << k;
    return r;
}
template <typename __T> static inline __T __sim_max3(__T a, __T b, __T c) { return max(max(a, b), c); }
template <typename __T> static inline __T __sim_min3(__T a, __T b, __T c) { return min(min(a, b), c); }
template <typename __T> static inline __T __sim_wrap_add(__T a, __T b) {
    using __U = typename std::make_unsigned<__T>::type;
    return (__T)(__U)((__U)a + (__U)b);
}
template <typename __T> static inline __T __sim_relu(__T a) { return a < 0 ? (__T)0 : a; }

// One 32-bit form and its 16x2 form, from the expression on (x, y, z) for one value.
#define __SIM_DPX(name32, name16, T32, L16, expr)                                              \
    static inline T32 name32(T32 x, T32 y, T32 z) { return expr; }                            \
    __SIM_ON_USE static inline unsigned name16(unsigned a, unsigned b, unsigned c) {           \
        return __sim_halves<L16>(a, b, c, [](L16 x, L16 y, L16 z) -> L16 { return expr; });   \
    }
__SIM_DPX(__vimax3_s32, __vimax3_s16x2, int, int16_t, __sim_max3(x, y, z))
__SIM_DPX(__vimax3_u32, __vimax3_u16x2, unsigned, uint16_t, __sim_max3(x, y, z))
__SIM_DPX(__vimin3_s32, __vimin3_s16x2, int, int16_t, __sim_min3(x, y, z))
__SIM_DPX(__vimin3_u32, __vimin3_u16x2, unsigned, uint16_t, __sim_min3(x, y, z))
__SIM_DPX(__vimax3_s32_relu, __vimax3_s16x2_relu, int, int16_t, __sim_relu(__sim_max3(x, y, z)))
__SIM_DPX(__vimin3_s32_relu, __vimin3_s16x2_relu, int, int16_t, __sim_relu(__sim_min3(x, y, z)))
__SIM_DPX(__viaddmax_s32, __viaddmax_s16x2, int, int16_t, max(__sim_wrap_add(x, y), z))
__SIM_DPX(__viaddmax_u32, __viaddmax_u16x2, unsigned, uint16_t, max(__sim_wrap_add(x, y), z))
__SIM_DPX(__viaddmin_s32, __viaddmin_s16x2, int, int16_t, min(__sim_wrap_add(x, y), z))
__SIM_DPX(__viaddmin_u32, __viaddmin_u16x2, unsigned, uint16_t, min(__sim_wrap_add(x, y), z))
__SIM_DPX(__viaddmax_s32_relu, __viaddmax_s16x2_relu, int, int16_t, __sim_relu(max(__sim_wrap_add(x, y), z)))
__SIM_DPX(__viaddmin_s32_relu, __viaddmin_s16x2_relu, int, int16_t, __sim_relu(min(__sim_wrap_add(x, y), z)))
#undef __SIM_DPX

// The two-value ReLU forms.
static inline int __vimax_s32_relu(int a, int b) { return __sim_relu(max(a, b)); }
static inline int __vimin_s32_relu(int a, int b) { return __sim_relu(min(a, b)); }
__SIM_ON_USE static inline unsigned __vimax_s16x2_relu(unsigned a, unsigned b) { return __vimax3_s16x2_relu(a, b, b); }
__SIM_ON_USE static inline unsigned __vimin_s16x2_relu(unsigned a, unsigned b) { return __vimin3_s16x2_relu(a, b, b); }

// max/min with a predicate: *pred is true where a was chosen (a >= b for max, a <= b for min).
template <typename __T, bool __Max> static inline __T __sim_pick(__T a, __T b, bool *pred) {
    *pred = __Max ? a >= b : a <= b;
    return *pred ? a : b;
}
template <typename __L, bool __Max>
static inline unsigned __sim_pick_halves(unsigned a, unsigned b, bool *pred_hi, bool *pred_lo) {
    unsigned lo = (uint16_t)__sim_pick<__L, __Max>((__L)a, (__L)b, pred_lo);
    unsigned hi = (uint16_t)__sim_pick<__L, __Max>((__L)(a >> 16), (__L)(b >> 16), pred_hi);
    return lo | hi << 16;
}
static inline int __vibmax_s32(int a, int b, bool *pred) { return __sim_pick<int, true>(a, b, pred); }
static inline unsigned __vibmax_u32(unsigned a, unsigned b, bool *pred) {
    return __sim_pick<unsigned, true>(a, b, pred);
}
static inline int __vibmin_s32(int a, int b, bool *pred) { return __sim_pick<int, false>(a, b, pred); }
static inline unsigned __vibmin_u32(unsigned a, unsigned b, bool *pred) {
    return __sim_pick<unsigned, false>(a, b, pred);
}
static inline unsigned __vibmax_s16x2(unsigned a, unsigned b, bool *hi, bool *lo) {
    return __sim_pick_halves<int16_t, true>(a, b, hi, lo);
}
static inline unsigned __vibmax_u16x2(unsigned a, unsigned b, bool *hi, bool *lo) {
    return __sim_pick_halves<uint16_t, true>(a, b, hi, lo);
}
static inline unsigned __vibmin_s16x2(unsigned a, unsigned b, bool *hi, bool *lo) {
    return __sim_pick_halves<int16_t, false>(a, b, hi, lo);
}
static inline unsigned __vibmin_u16x2(unsigned a, unsigned b, bool *hi, bool *lo) {
    return __sim_pick_halves<uint16_t, false>(a, b, hi, lo);
}
