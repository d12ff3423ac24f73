// cooperative_groups/details/functional.h -- the operators that cg::reduce and the scans take,
// as CUDA 13's header defines them (less and greater pick with `<`, in this order, so that a NaN
// goes where it goes on a GPU).
#pragma once

#include "../../cooperative_groups.h"

namespace cooperative_groups {

template <typename _Ty> struct plus {
    _Ty operator()(_Ty __a, _Ty __b) const { return __a + __b; }
};
template <typename _Ty> struct less {
    _Ty operator()(_Ty __a, _Ty __b) const { return (__b < __a) ? __b : __a; }
};
template <typename _Ty> struct greater {
    _Ty operator()(_Ty __a, _Ty __b) const { return (__a < __b) ? __b : __a; }
};
template <typename _Ty> struct bit_and {
    _Ty operator()(_Ty __a, _Ty __b) const { return __a & __b; }
};
template <typename _Ty> struct bit_xor {
    _Ty operator()(_Ty __a, _Ty __b) const { return __a ^ __b; }
};
template <typename _Ty> struct bit_or {
    _Ty operator()(_Ty __a, _Ty __b) const { return __a | __b; }
};

namespace details {
// The groups a reduction or a scan takes: a tile, or a coalesced group (not a whole block).
template <class _TyGroup> struct _tile_group : std::false_type {};
template <unsigned int _Sz, typename _Par> struct _tile_group<thread_block_tile<_Sz, _Par>> : std::true_type {};
template <> struct _tile_group<coalesced_group> : std::true_type {};
template <typename _TyGroup> using tile_group = _tile_group<remove_qual<_TyGroup>>;
}  // namespace details

}  // namespace cooperative_groups
