// sim_warp.h -- CUDA's warp functions (compute capability 9.0): the lanes named by the mask meet
// at the same call site, exchange values, and go on. Included by cuda_sim.h.
//
// Vote (__ballot_sync, __any_sync, __all_sync, __uni_sync), shuffle (__shfl_sync and its up, down
// and xor forms), match (__match_any_sync, __match_all_sync), reduce (__reduce_add_sync and its
// min, max, and, or, xor forms), __syncwarp and __activemask. The meeting itself is the runtime's
// (sim::warp_meet in sim_runtime.h); here each function gets its call site and its operation.
#pragma once

// __syncwarp() or __syncwarp(mask): a macro cannot drop the comma of ", ##__VA_ARGS__" before an
// empty argument under -std=c++17, so the mask is an object that defaults to the whole warp.
struct __sim_warp_mask {
    unsigned __mask;
    __sim_warp_mask() : __mask(0xffffffffu) {}
    __sim_warp_mask(unsigned __m) : __mask(__m) {}
};
inline void __sim_sync_warp(__sim_site __s, __sim_warp_mask __m) { sim::sync_warp(__s, __m.__mask); }
inline unsigned __sim_active_mask() { return sim::active_mask(); }
// mma.h's mma_sync: one computation over the parts of the whole warp (sim::WarpTask)
inline void __sim_warp_task(__sim_site __s, sim::WarpTask *__part) { sim::warp_task(__s, 0xffffffffu, __part); }
// cooperative_groups' coalesced_threads(): the lanes that arrive at the call together
inline unsigned __sim_coalesced_lanes(__sim_site __s) { return sim::coalesce(__s); }

template <typename __T>
inline __T __sim_shfl(__sim_site __s, unsigned __mask, __T __v, int __kind, int __arg, int __width = 32) {
    return sim::shfl(__s, __mask, __v, __kind, __arg, __width);
}
inline unsigned __sim_vote(__sim_site __s, unsigned __mask, int __p, int __kind) {
    return sim::vote(__s, __mask, __p, __kind);
}

// __match_any_sync: the lanes whose value has the same bits as mine. __match_all_sync: the mask
// if every lane has the same value (and *pred = 1), else 0 (and *pred = 0).
template <typename __T> inline unsigned __sim_match(__sim_site __s, unsigned __mask, __T __v, int *__pred) {
    static_assert(std::is_arithmetic<__T>::value && (sizeof(__T) == 4 || sizeof(__T) == 8),
                  "__match_*_sync takes an int, unsigned, long, long long or float/double value");
    uint64_t __bits = 0;
    memcpy(&__bits, &__v, sizeof(__T));
    unsigned __r = (unsigned)sim::warp_collective(__s, __mask, __bits,
                                                  __pred ? sim::MatchAll : sim::MatchAny);
    if (__pred) *__pred = __r != 0;
    return __r;
}

// __reduce_*_sync take 32-bit integers: min and max compare as signed for an int, as unsigned for
// an unsigned; add wraps around; and, or and xor take unsigned values. A bool, char or short is
// promoted to int, as CUDA's int overload takes it (__reduce_add_sync(mask, x > t) counts).
template <typename __T>
using __sim_reduced = typename std::conditional<(sizeof(__T) < 4), int, __T>::type;
template <typename __T>
inline __sim_reduced<__T> __sim_reduce(__sim_site __s, unsigned __mask, __T __v, int __op) {
    static_assert(std::is_integral<__T>::value && sizeof(__T) <= 4,
                  "__reduce_*_sync takes an int or an unsigned value");
    using __R = __sim_reduced<__T>;
    int __kind = __op;
    if (std::is_signed<__R>::value && __op == sim::ReduceMinU) __kind = sim::ReduceMinS;
    if (std::is_signed<__R>::value && __op == sim::ReduceMaxU) __kind = sim::ReduceMaxS;
    return (__R)(uint32_t)sim::warp_collective(__s, __mask, (uint32_t)(__R)__v, __kind);
}
template <typename __T> inline unsigned __sim_reduce_bits(__sim_site __s, unsigned __mask, __T __v, int __op) {
    static_assert(std::is_integral<__T>::value && sizeof(__T) <= 4,
                  "__reduce_and/or/xor_sync take an unsigned value");
    return __sim_reduce(__s, __mask, (unsigned)__v, __op);
}

// The operations, by reserved names (the macros below expand to them).
constexpr int __sim_shfl_idx = sim::ShflIdx, __sim_shfl_up = sim::ShflUp;
constexpr int __sim_shfl_down = sim::ShflDown, __sim_shfl_xor = sim::ShflXor;
constexpr int __sim_ballot = sim::VoteBallot, __sim_any = sim::VoteAny, __sim_all = sim::VoteAll;
constexpr int __sim_uni = sim::VoteUni;
constexpr int __sim_add = sim::ReduceAdd, __sim_min = sim::ReduceMinU, __sim_max = sim::ReduceMaxU;
constexpr int __sim_and = sim::ReduceAnd, __sim_or = sim::ReduceOr, __sim_xor = sim::ReduceXor;

#define __syncwarp(...) __sim_sync_warp(__SIM_SITE, __sim_warp_mask(__VA_ARGS__))
#define __activemask() __sim_active_mask()
#define __shfl_sync(m, v, ...) __sim_shfl(__SIM_SITE, (m), (v), __sim_shfl_idx, __VA_ARGS__)
#define __shfl_up_sync(m, v, ...) __sim_shfl(__SIM_SITE, (m), (v), __sim_shfl_up, __VA_ARGS__)
#define __shfl_down_sync(m, v, ...) __sim_shfl(__SIM_SITE, (m), (v), __sim_shfl_down, __VA_ARGS__)
#define __shfl_xor_sync(m, v, ...) __sim_shfl(__SIM_SITE, (m), (v), __sim_shfl_xor, __VA_ARGS__)
#define __ballot_sync(m, p) __sim_vote(__SIM_SITE, (m), (p), __sim_ballot)
#define __any_sync(m, p) ((int)__sim_vote(__SIM_SITE, (m), (p), __sim_any))
#define __all_sync(m, p) ((int)__sim_vote(__SIM_SITE, (m), (p), __sim_all))
#define __uni_sync(m, p) ((int)__sim_vote(__SIM_SITE, (m), (p), __sim_uni))
#define __match_any_sync(m, v) __sim_match(__SIM_SITE, (m), (v), (int *)0)
#define __match_all_sync(m, v, pred) __sim_match(__SIM_SITE, (m), (v), (pred))
#define __reduce_add_sync(m, v) __sim_reduce(__SIM_SITE, (m), (v), __sim_add)
#define __reduce_min_sync(m, v) __sim_reduce(__SIM_SITE, (m), (v), __sim_min)
#define __reduce_max_sync(m, v) __sim_reduce(__SIM_SITE, (m), (v), __sim_max)
#define __reduce_and_sync(m, v) __sim_reduce_bits(__SIM_SITE, (m), (v), __sim_and)
#define __reduce_or_sync(m, v) __sim_reduce_bits(__SIM_SITE, (m), (v), __sim_or)
#define __reduce_xor_sync(m, v) __sim_reduce_bits(__SIM_SITE, (m), (v), __sim_xor)
