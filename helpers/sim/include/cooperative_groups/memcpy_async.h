// cooperative_groups/memcpy_async.h -- cg::memcpy_async and cg::wait for a block, a tile or a
// coalesced group. On a GPU the group's threads start the copy and wait() waits for it and then
// syncs the group; here each thread copies its share at once (element rank, rank + size, ... of
// the group, as CUDA's header shares it out) and wait() is the group's sync(). The copy's loads
// and stores are the caller's (the lines marked so below: compile/sites.py), so the race check
// sees a read of the destination before wait(), and the init check sees the bytes written.
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {
namespace details {

template <class _TyGroup> struct async_copy_group : std::false_type {};
template <unsigned int _Sz, typename _Par> struct async_copy_group<thread_block_tile<_Sz, _Par>> : std::true_type {};
template <> struct async_copy_group<coalesced_group> : std::true_type {};
template <> struct async_copy_group<thread_block> : std::true_type {};

template <typename _Unit>
inline void copy_units(_Unit *__dst, const _Unit *__src, size_t __n, unsigned int __rank, unsigned int __stride) {
    for (size_t __i = __rank; __i < __n; __i += __stride) __dst[__i] = __src[__i];  // the caller's access
}

// Units as wide as the element's alignment (at most 8 bytes), then the bytes left over.
template <typename _TyElem, class _TyGroup>
inline void copy_bytes(const _TyGroup &__group, void *__dst, const void *__src, size_t __count) {
    constexpr size_t __align = std::is_void<_TyElem>::value ? 1 : alignof(_TyElem) < 8 ? alignof(_TyElem) : 8;
    using _Unit = typename std::conditional<__align == 8, uint64_t, typename std::conditional<__align == 4, uint32_t,
                  typename std::conditional<__align == 2, uint16_t, uint8_t>::type>::type>::type;
    size_t __n = __count / sizeof(_Unit), __done = __n * sizeof(_Unit);
    unsigned int __rank = __group.thread_rank(), __size = __group.size();
    copy_units((_Unit *)__dst, (const _Unit *)__src, __n, __rank, __size);  // the caller's access
    copy_units((uint8_t *)__dst + __done, (const uint8_t *)__src + __done, __count - __done, __rank, __size);  // the caller's access
}

}  // namespace details

template <class _TyGroup, typename _TyElem, typename _TySizeT>
inline void memcpy_async(const _TyGroup &__group, _TyElem *__restrict__ __dst, const _TyElem *__restrict__ __src,
                         const _TySizeT &__count) {
    static_assert(details::async_copy_group<_TyGroup>::value, "memcpy_async takes a block, a tile or a coalesced group");
    static_assert(std::is_integral<_TySizeT>::value, "memcpy_async's count is a number of bytes");
    details::copy_bytes<_TyElem>(__group, __dst, __src, (size_t)__count);  // the caller's access
}

// Object counts, in elements: the smaller of the two is copied.
template <class _TyGroup, class _TyElem>
inline void memcpy_async(const _TyGroup &__group, _TyElem *__restrict__ __dst, size_t __dst_count,
                         const _TyElem *__restrict__ __src, size_t __src_count) {
    static_assert(details::async_copy_group<_TyGroup>::value, "memcpy_async takes a block, a tile or a coalesced group");
    size_t __bytes = (__dst_count < __src_count ? __dst_count : __src_count) * sizeof(_TyElem);
    details::copy_bytes<_TyElem>(__group, __dst, __src, __bytes);  // the caller's access
}

template <unsigned int _Stage, class _TyGroup>
inline void wait_prior(const _TyGroup &__group, details::caller __c = details::caller()) { __group.sync(__c); }

template <class _TyGroup>
inline void wait(const _TyGroup &__group, details::caller __c = details::caller()) { __group.sync(__c); }

}  // namespace cooperative_groups
