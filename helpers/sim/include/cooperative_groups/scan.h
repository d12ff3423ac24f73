// cooperative_groups/scan.h -- cg::inclusive_scan and cg::exclusive_scan over a tile or a
// coalesced group, in CUDA 13's header's order (details/coalesced_scan.h). An exclusive scan is
// the inclusive one shifted up a rank (the first rank gets a value-initialised T), or, for an
// integer sum, the inclusive one less the thread's own value, as the header computes it.
#pragma once

#include "../cooperative_groups.h"
#include "details/coalesced_scan.h"

namespace cooperative_groups {
namespace details {

template <typename _TyGroup, typename _TyVal, typename _TyFn>
inline void check_scan_params() {
    static_assert(is_op_type_same<_TyVal, _TyFn>::value, "Operator input and output types differ");
    static_assert(tile_group<_TyGroup>::value, "This group does not exclusively represent a tile");
}

template <typename _TyGroup, typename _TyRes, typename _TyVal, typename _TyFn>
inline remove_qual<_TyVal> convert_inclusive_to_exclusive(const _TyGroup &__group, _TyRes &__result,
                                                          _TyVal &&__val, _TyFn &&,
                                                          const caller &__c) {
    using _Ty = remove_qual<_TyVal>;
    if constexpr (std::is_same<remove_qual<_TyFn>, plus<_Ty>>::value && std::is_integral<_Ty>::value) {
        return __result - __val;
    } else {
        _Ty __ret = __group.shfl_up(__result, 1, __c);
        if (__group.thread_rank() == 0) return {};
        return __ret;
    }
}

}  // namespace details

template <typename _TyGroup, typename _TyVal, typename _TyFn>
inline auto inclusive_scan(const _TyGroup &__group, _TyVal &&__val, _TyFn &&__op,
                           details::caller __c = details::caller()) -> decltype(__op(__val, __val)) {
    details::check_scan_params<_TyGroup, _TyVal, decltype(__op(__val, __val))>();
    return details::coalesced_inclusive_scan(__group, __val, __op, __c);
}

template <typename _TyGroup, typename _TyVal>
inline details::remove_qual<_TyVal> inclusive_scan(const _TyGroup &__group, _TyVal &&__val,
                                                   details::caller __c = details::caller()) {
    return inclusive_scan(__group, __val, plus<details::remove_qual<_TyVal>>(), __c);
}

template <typename _TyGroup, typename _TyVal, typename _TyFn>
inline auto exclusive_scan(const _TyGroup &__group, _TyVal &&__val, _TyFn &&__op,
                           details::caller __c = details::caller()) -> decltype(__op(__val, __val)) {
    details::check_scan_params<_TyGroup, _TyVal, decltype(__op(__val, __val))>();
    auto __result = details::coalesced_inclusive_scan(__group, __val, __op, __c);
    return details::convert_inclusive_to_exclusive(__group, __result, __val, __op, __c);
}

template <typename _TyGroup, typename _TyVal>
inline details::remove_qual<_TyVal> exclusive_scan(const _TyGroup &__group, _TyVal &&__val,
                                                   details::caller __c = details::caller()) {
    return exclusive_scan(__group, __val, plus<details::remove_qual<_TyVal>>(), __c);
}

}  // namespace cooperative_groups
