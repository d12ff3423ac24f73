// cooperative_groups/reduce.h -- cg::reduce over a tile or a coalesced group, as CUDA 13's header
// computes it: integers of at most 4 bytes with a built-in operator through __reduce_*_sync (the
// hardware's redux, on tiles of 16 or 32 threads and coalesced groups), everything else by
// shuffles in the header's order (a butterfly of shfl_xor on a tile; on a coalesced group with
// gaps, its inclusive scan's last value), so that a float sum has the GPU's bits.
#pragma once

#include "../cooperative_groups.h"
#include "details/coalesced_scan.h"

namespace cooperative_groups {
namespace details {

// The redux operation of an operator on a value type, or -1 where there is none.
template <typename _TyOp, typename _Ty> struct redux_op { static constexpr int kind = -1; };
template <typename _Ty> struct redux_op<plus<_Ty>, _Ty> { static constexpr int kind = __sim_add; };
template <typename _Ty> struct redux_op<less<_Ty>, _Ty> { static constexpr int kind = __sim_min; };
template <typename _Ty> struct redux_op<greater<_Ty>, _Ty> { static constexpr int kind = __sim_max; };
template <typename _Ty> struct redux_op<bit_and<_Ty>, _Ty> { static constexpr int kind = __sim_and; };
template <typename _Ty> struct redux_op<bit_or<_Ty>, _Ty> { static constexpr int kind = __sim_or; };
template <typename _Ty> struct redux_op<bit_xor<_Ty>, _Ty> { static constexpr int kind = __sim_xor; };

template <typename _TyGroup> struct redux_group : std::true_type {};  // a coalesced group
template <unsigned int _Sz, typename _Par>
struct redux_group<thread_block_tile<_Sz, _Par>> : std::integral_constant<bool, (_Sz >= 16)> {};

template <unsigned int _Sz, typename _Par, typename _TyVal, typename _TyOp>
inline remove_qual<_TyVal> coalesced_reduce(const thread_block_tile<_Sz, _Par> &__group, _TyVal &&__val,
                                            _TyOp &&__op, const caller &__c) {
    remove_qual<_TyVal> __out = __val;
    for (int __mask = _Sz >> 1; __mask > 0; __mask >>= 1) __out = __op(__out, __group.shfl_xor(__out, __mask, __c));
    return __out;
}

template <typename _TyVal, typename _TyOp>
inline remove_qual<_TyVal> coalesced_reduce(const coalesced_group &__group, _TyVal &&__val, _TyOp &&__op,
                                            const caller &__c) {
    if (__group.size() == 32) {  // the whole warp: as a tile of 32
        remove_qual<_TyVal> __out = __val;
        for (int __lanes = 16; __lanes > 0; __lanes >>= 1)
            __out = __op(__out, shuffle<remove_qual<_TyVal>>(__c, 0xffffffffu, __out, __sim_shfl_xor, __lanes, 32));
        return __out;
    }
    remove_qual<_TyVal> __scan = inclusive_scan_non_contiguous(__group, __val, __op, __c);
    unsigned int __mask = _coalesced_group_data_access::get_mask(__group);
    return shuffle<remove_qual<_TyVal>>(__c, __mask, __scan, __sim_shfl_idx, 31 - __clz(__mask), 32);
}

}  // namespace details

template <typename _TyGroup, typename _TyVal, typename _TyFn>
inline auto reduce(const _TyGroup &__group, _TyVal &&__val, _TyFn &&__op, details::caller __c = details::caller())
    -> decltype(__op(__val, __val)) {
    using _Ty = details::remove_qual<_TyVal>;
    static_assert(details::is_op_type_same<_Ty, decltype(__op(__val, __val))>::value,
                  "Operator input and output types differ");
    static_assert(details::tile_group<_TyGroup>::value, "This group does not exclusively represent a tile");
    constexpr int __kind = details::redux_op<details::remove_qual<_TyFn>, _Ty>::kind;
    if constexpr (__kind >= 0 && std::is_integral<_Ty>::value && sizeof(_Ty) <= 4 &&
                  details::redux_group<_TyGroup>::value) {
        using _Word = typename std::conditional<std::is_unsigned<_Ty>::value, unsigned int, int>::type;
        unsigned int __mask = details::_coalesced_group_data_access::get_mask(__group);
        return (_Ty)__sim_reduce(__c.site, __mask, (_Word)__val, __kind);
    } else {
        return details::coalesced_reduce(__group, __val, __op, __c);
    }
}

}  // namespace cooperative_groups
