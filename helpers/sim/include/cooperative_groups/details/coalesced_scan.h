// cooperative_groups/details/coalesced_scan.h -- the inclusive scan of a tile or coalesced group,
// in the order CUDA 13's header computes it (the same shuffles, the same operands), so that a
// float scan, and a reduction of a coalesced group built on it, have a GPU's bits.
#pragma once

#include "functional.h"

namespace cooperative_groups {
namespace details {

// Tiles, and whole warps: each step adds the value `mask` ranks below.
template <typename _TyGroup, typename _TyVal, typename _TyOp>
inline remove_qual<_TyVal> inclusive_scan_contiguous(const _TyGroup &__group, _TyVal &&__val, _TyOp &&__op,
                                                     const caller &__c) {
    remove_qual<_TyVal> __out = __val;
    for (unsigned int __mask = 1; __mask < __group.size(); __mask <<= 1) {
        remove_qual<_TyVal> __tmp = __group.shfl_up(__out, __mask, __c);
        if (__mask <= __group.thread_rank()) __out = __op(__out, __tmp);
    }
    return __out;
}

// A coalesced group with gaps: each step finds the lane of the rank below (a binary search).
template <typename _TyGroup, typename _TyVal, typename _TyOp>
inline remove_qual<_TyVal> inclusive_scan_non_contiguous(const _TyGroup &__group, _TyVal &&__val, _TyOp &&__op,
                                                         const caller &__c) {
    const unsigned int __size = __group.size();
    remove_qual<_TyVal> __out = __val;
    const unsigned int __mask = _coalesced_group_data_access::get_mask(__group);
    unsigned int __lanemask = lanemask32_lt() & __mask;
    unsigned int __src = laneid();
    const unsigned int __base = __ffs(__mask) - 1;
    const unsigned int __rank = __popc(__lanemask);
    for (unsigned int __i = 1, __j = 1; __i < __size; __i <<= 1) {
        if (__i <= __rank) {
            __src -= __j;
            __j = __i;
            unsigned int __beg = __base + __rank - __i;
            while (__beg < __src) {
                const unsigned int __half = (__beg + __src) >> 1;
                const unsigned int __half_mask = __lanemask >> __half;
                const unsigned int __d = __popc(__half_mask);
                if (__d < __i) __src = __half - 1;
                else if (__i < __d || !(__half_mask & 1)) __beg = __half + 1;
                else __beg = __src = __half;
            }
        }
        remove_qual<_TyVal> __tmp = shuffle<remove_qual<_TyVal>>(__c, __mask, __out, __sim_shfl_idx, __src, 32);
        if (__i <= __rank) __out = __op(__out, __tmp);
    }
    return __out;
}

template <unsigned int _Sz, typename _Par, typename _TyVal, typename _TyOp>
inline remove_qual<_TyVal> coalesced_inclusive_scan(const thread_block_tile<_Sz, _Par> &__group, _TyVal &&__val,
                                                    _TyOp &&__op, const caller &__c) {
    return inclusive_scan_contiguous(__group, __val, __op, __c);
}

template <typename _TyVal, typename _TyOp>
inline remove_qual<_TyVal> coalesced_inclusive_scan(const coalesced_group &__group, _TyVal &&__val, _TyOp &&__op,
                                                    const caller &__c) {
    if (__group.size() == 32) return inclusive_scan_contiguous(__group, __val, __op, __c);
    return inclusive_scan_non_contiguous(__group, __val, __op, __c);
}

}  // namespace details
}  // namespace cooperative_groups
