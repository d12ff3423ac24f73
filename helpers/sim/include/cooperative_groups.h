// cooperative_groups.h -- CUDA's cooperative groups at block and warp scope, for the simulator.
//
// A kernel written for nvcc includes <cooperative_groups.h> and compiles unchanged: the names and
// signatures are those of CUDA 13's header (the thread block, its tiles of 1 to 32 threads, the
// coalesced group, the dynamic tiled_partition; cooperative_groups/reduce.h, scan.h and
// memcpy_async.h add the collectives). Nothing here is a second implementation of a barrier or a
// shuffle: a group's sync() is the prelude's __syncthreads() or __syncwarp(mask), its shfl and
// ballot are __shfl_*_sync and __ballot_sync, so the race check and the init check see them as
// they see the learner's own. Each of those calls takes the learner's line (a defaulted
// argument, `details::caller`) so that an error names the line that called the group, not this
// header. Where CUDA's header computes a result in a given order (its reductions and scans over
// shuffles), this one follows the same order, so that float results have the same bits.
//
// What is left out: tiles of more than 32 threads (block_tile_memory), clusters, and the grid:
// this_grid() gives a grid_group whose sync() is deleted, since grid-wide synchronisation needs a
// cooperative launch (cuLaunchCooperativeKernel) that PyCUDA cannot make.
#pragma once

#if !defined(__CUDA_ARCH_SIM__)
#error "this cooperative_groups.h is the CUDA course simulator's: compile with its prelude"
#endif

namespace cooperative_groups {

namespace details {
using caller = __sim_caller;  // where the learner called a group's function (cuda_sim.h)

template <typename _Ty>
using remove_qual = typename std::remove_cv<typename std::remove_reference<_Ty>::type>::type;
template <typename _Ty1, typename _Ty2>
using is_op_type_same = std::is_same<remove_qual<_Ty1>, remove_qual<_Ty2>>;

// The kinds of group, as CUDA's header numbers them (a thread_group keeps its kind).
enum : unsigned int { coalesced_group_id = 1, grid_group_id = 2, thread_block_id = 3,
                      multi_grid_group_id = 4, multi_tile_group_id = 5, cluster_group_id = 6 };

namespace cta {
inline unsigned int thread_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
inline unsigned int size() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace cta

// A block's threads are numbered x first; each run of 32 is a warp (as on a GPU).
inline unsigned int laneid() { return cta::thread_rank() & 31; }
inline unsigned int lanemask32_lt() { return (1u << laneid()) - 1; }

[[noreturn]] inline void fail(const char *__what, const caller &__c) {
    __sim_fail_assert(__what, __c.site.file, __c.site.line);
}

// A shuffle of any trivially copyable value: 8 bytes at a time, as many as it needs.
template <typename _Ty>
inline _Ty shuffle(const caller &__c, unsigned int __mask, _Ty __v, int __kind, int __arg, int __width) {
    static_assert(std::is_trivially_copyable<_Ty>::value, "a shuffled value must be trivially copyable");
    if constexpr (sizeof(_Ty) <= 8) return __sim_shfl(__c.site, __mask, __v, __kind, __arg, __width);
    _Ty __out;
    for (size_t __i = 0; __i < sizeof(_Ty); __i += 8) {
        uint64_t __part = 0;
        memcpy(&__part, (const char *)&__v + __i, sizeof(_Ty) - __i < 8 ? sizeof(_Ty) - __i : 8);
        __part = __sim_shfl(__c.site, __mask, __part, __kind, __arg, __width);
        memcpy((char *)&__out + __i, &__part, sizeof(_Ty) - __i < 8 ? sizeof(_Ty) - __i : 8);
    }
    return __out;
}

// The mask's bits of the lanes named in lane_bits, packed in the order of the group's ranks.
inline unsigned int pack_lanes(unsigned int __group, unsigned int __lane_bits) {
    unsigned int __pack = 0, __rank = 0;
    for (int __l = 0; __l < 32; __l++) {
        if (!(__group >> __l & 1)) continue;
        if (__lane_bits >> __l & 1) __pack |= 1u << __rank;
        __rank++;
    }
    return __pack;
}

struct _coalesced_group_data_access;
}  // namespace details

// ---- thread_group: any group, its kind kept ---------------------------------------------------------
class thread_group {
  protected:
    struct tg_data {
        unsigned int is_tiled : 1;
        unsigned int type : 7;
        unsigned int size : 24;
        unsigned int metaGroupSize : 16;
        unsigned int metaGroupRank : 16;
        unsigned int mask;
    } _data;

    explicit thread_group(unsigned int __type) : _data{0, __type, 0, 1, 0, 0} {}
    friend class thread_block;
    friend struct details::_coalesced_group_data_access;

  public:
    unsigned long long size() const;  // (CUDA 13 declares num_threads() too, but defines it nowhere)
    unsigned long long thread_rank() const;
    void sync(details::caller __c = details::caller()) const;
    unsigned int get_type() const { return _data.type; }
};

template <unsigned int _TyId>
struct thread_group_base : public thread_group {
    thread_group_base() : thread_group(_TyId) {}
    static constexpr unsigned int id = _TyId;
};

// ---- thread_block ------------------------------------------------------------------------------------
class thread_block : public thread_group_base<details::thread_block_id> {
    friend thread_block this_thread_block();
    friend thread_group tiled_partition(const thread_block &, unsigned int, details::caller);
    thread_block() {}

    thread_group _get_tiled_threads(unsigned int __n, const details::caller &__c) const {
        if (__n == 0 || __n > 32 || (__n & (__n - 1)))
            details::fail("tiled_partition(block, n): n must be 1, 2, 4, 8, 16 or 32", __c);
        unsigned int __base = thread_rank() & ~(__n - 1);
        unsigned int __length = size() - __base < __n ? size() - __base : __n;
        thread_group __tile(details::coalesced_group_id);
        __tile._data.mask = (0xffffffffu >> (32 - __length)) << (details::laneid() & ~(__n - 1));
        __tile._data.size = __popc(__tile._data.mask);
        __tile._data.metaGroupSize = (size() + __n - 1) / __n;
        __tile._data.metaGroupRank = thread_rank() / __n;
        __tile._data.is_tiled = true;
        return __tile;
    }

  public:
    static constexpr unsigned int _group_id = details::thread_block_id;

    static void sync(details::caller __c = details::caller()) { __sim_sync_block_at(__c.site); }
    struct arrival_token {};
    arrival_token barrier_arrive() const { return arrival_token(); }
    void barrier_wait(arrival_token &&, details::caller __c = details::caller()) const {
        __sim_sync_block_at(__c.site);
    }
    static unsigned int size() { return details::cta::size(); }
    static unsigned int num_threads() { return details::cta::size(); }
    static unsigned int thread_rank() { return details::cta::thread_rank(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static dim3 dim_threads() { return group_dim(); }
};

inline thread_block this_thread_block() { return thread_block(); }

// ---- coalesced_group: the lanes of a warp that run together -------------------------------------------
class coalesced_group : public thread_group_base<details::coalesced_group_id> {
    friend coalesced_group coalesced_threads(details::caller);
    friend coalesced_group tiled_partition(const coalesced_group &, unsigned int, details::caller);
    friend thread_group tiled_partition(const thread_group &, unsigned int, details::caller);
    friend struct details::_coalesced_group_data_access;

    coalesced_group _get_tiled_threads(unsigned int __n, const details::caller &__c) const {
        if (__n == 0 || __n > 32 || (__n & (__n - 1)))
            details::fail("tiled_partition(group, n): n must be 1, 2, 4, 8, 16 or 32", __c);
        if (size() <= __n) return *this;
        if (_data.is_tiled) {
            unsigned int __base = thread_rank() & ~(__n - 1);
            unsigned int __length = size() - __base < __n ? size() - __base : __n;
            coalesced_group __tile((0xffffffffu >> (32 - __length)) << (details::laneid() & ~(__n - 1)));
            __tile._data.metaGroupSize = size() / __n;
            __tile._data.metaGroupRank = thread_rank() / __n;
            __tile._data.is_tiled = true;
            return __tile;
        }
        unsigned int __mask = 0, __members = 0;
        int __seen = (thread_rank() / __n) * __n;
        for (unsigned int __l = 0; __l < 32; __l++) {
            unsigned int __bit = _data.mask & (1u << __l);
            if (!__bit) continue;
            if (__seen <= 0 && __members < __n) __mask |= __bit, __members++;
            __seen--;
        }
        coalesced_group __tile(__mask);
        __tile._data.metaGroupSize = (size() + __n - 1) / __n;
        __tile._data.metaGroupRank = thread_rank() / __n;
        return __tile;
    }

  protected:
    explicit coalesced_group(unsigned int __mask) {
        _data.mask = __mask;
        _data.size = __popc(__mask);
        _data.metaGroupRank = 0;
        _data.metaGroupSize = 1;
        _data.is_tiled = false;
    }
    unsigned int get_mask() const { return _data.mask; }

  public:
    static constexpr unsigned int _group_id = details::coalesced_group_id;

    unsigned int num_threads() const { return _data.size; }
    unsigned int size() const { return num_threads(); }
    unsigned int thread_rank() const { return __popc(_data.mask & details::lanemask32_lt()); }
    unsigned int meta_group_rank() const { return _data.metaGroupRank; }
    unsigned int meta_group_size() const { return _data.metaGroupSize; }
    void sync(details::caller __c = details::caller()) const { __sim_sync_warp_at(__c.site, _data.mask); }

    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl(_TyElem &&__elem, int __src_rank, details::caller __c = details::caller()) const {
        unsigned int __lane = __src_rank == 0 ? __ffs(_data.mask) - 1
                              : size() == 32 ? __src_rank : __fns(_data.mask, 0, __src_rank + 1);
        return details::shuffle<_TyRet>(__c, _data.mask, __elem, __sim_shfl_idx, __lane, 32);
    }
    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl_down(_TyElem &&__elem, unsigned int __delta, details::caller __c = details::caller()) const {
        if (size() == 32)
            return details::shuffle<_TyRet>(__c, 0xffffffffu, __elem, __sim_shfl_down, __delta, 32);
        unsigned int __lane = __fns(_data.mask, details::laneid(), __delta + 1);
        if (__lane >= 32) __lane = details::laneid();
        return details::shuffle<_TyRet>(__c, _data.mask, __elem, __sim_shfl_idx, __lane, 32);
    }
    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl_up(_TyElem &&__elem, int __delta, details::caller __c = details::caller()) const {
        if (size() == 32)
            return details::shuffle<_TyRet>(__c, 0xffffffffu, __elem, __sim_shfl_up, __delta, 32);
        unsigned int __lane = __fns(_data.mask, details::laneid(), -(__delta + 1));
        if (__lane >= 32) __lane = details::laneid();
        return details::shuffle<_TyRet>(__c, _data.mask, __elem, __sim_shfl_idx, __lane, 32);
    }

    int any(int __predicate, details::caller __c = details::caller()) const {
        return __sim_vote(__c.site, _data.mask, __predicate, __sim_ballot) != 0;
    }
    int all(int __predicate, details::caller __c = details::caller()) const {
        return __sim_vote(__c.site, _data.mask, __predicate, __sim_ballot) == _data.mask;
    }
    unsigned int ballot(int __predicate, details::caller __c = details::caller()) const {
        unsigned int __lanes = __sim_vote(__c.site, _data.mask, __predicate, __sim_ballot);
        return size() == 32 ? __lanes : details::pack_lanes(_data.mask, __lanes);
    }
    template <typename _TyIntegral>
    unsigned int match_any(_TyIntegral __val, details::caller __c = details::caller()) const {
        unsigned int __lanes = __sim_match(__c.site, _data.mask, __val, (int *)0);
        return size() == 32 ? __lanes : details::pack_lanes(_data.mask, __lanes);
    }
    template <typename _TyIntegral>
    unsigned int match_all(_TyIntegral __val, int &__pred, details::caller __c = details::caller()) const {
        unsigned int __lanes = __sim_match(__c.site, _data.mask, __val, &__pred);
        return size() == 32 ? __lanes : details::pack_lanes(_data.mask, __lanes);
    }
};

// The lanes of the calling warp that reach this call together: in a branch, those that took it.
inline coalesced_group coalesced_threads(details::caller __c = details::caller()) {
    return coalesced_group(__sim_coalesced_lanes(__c.site));
}

// ---- thread_block_tile<Size>: 1, 2, 4, 8, 16 or 32 consecutive threads of the block ------------------
template <unsigned int Size, typename ParentT = void>
class thread_block_tile;

namespace details {
template <typename _Ty> struct is_tile : std::false_type {};
template <unsigned int _Sz, typename _Par> struct is_tile<thread_block_tile<_Sz, _Par>> : std::true_type {};
}  // namespace details

template <unsigned int Size>
class __static_size_thread_block_tile_base : public thread_group_base<details::coalesced_group_id> {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "the simulator's thread_block_tile has 1, 2, 4, 8, 16 or 32 threads (tiles of "
                  "more than a warp are left out)");

  protected:
    static constexpr unsigned int numThreads = Size;
    static unsigned int build_mask() {
        return Size == 32 ? 0xffffffffu : ((1u << Size) - 1) << (details::laneid() & ~(Size - 1));
    }
    __static_size_thread_block_tile_base(unsigned int __meta_rank, unsigned int __meta_size) {
        _data.mask = build_mask();
        _data.size = Size;
        _data.metaGroupRank = __meta_rank;
        _data.metaGroupSize = __meta_size;
        _data.is_tiled = true;
    }
    unsigned int get_mask() const { return _data.mask; }
    friend struct details::_coalesced_group_data_access;

  public:
    static constexpr unsigned int _group_id = details::coalesced_group_id;

    static unsigned int thread_rank() { return details::cta::thread_rank() & (Size - 1); }
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    unsigned int meta_group_rank() const { return _data.metaGroupRank; }
    unsigned int meta_group_size() const { return _data.metaGroupSize; }
    static void sync(details::caller __c = details::caller()) { __sim_sync_warp_at(__c.site, build_mask()); }

    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl(_TyElem &&__elem, int __src_rank, details::caller __c = details::caller()) const {
        return details::shuffle<_TyRet>(__c, build_mask(), __elem, __sim_shfl_idx, __src_rank, Size);
    }
    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl_down(_TyElem &&__elem, unsigned int __delta, details::caller __c = details::caller()) const {
        return details::shuffle<_TyRet>(__c, build_mask(), __elem, __sim_shfl_down, __delta, Size);
    }
    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl_up(_TyElem &&__elem, unsigned int __delta, details::caller __c = details::caller()) const {
        return details::shuffle<_TyRet>(__c, build_mask(), __elem, __sim_shfl_up, __delta, Size);
    }
    template <typename _TyElem, typename _TyRet = details::remove_qual<_TyElem>>
    _TyRet shfl_xor(_TyElem &&__elem, unsigned int __lane_mask, details::caller __c = details::caller()) const {
        return details::shuffle<_TyRet>(__c, build_mask(), __elem, __sim_shfl_xor, __lane_mask, Size);
    }

    int any(int __predicate, details::caller __c = details::caller()) const {
        return __sim_vote(__c.site, build_mask(), __predicate, __sim_ballot) != 0;
    }
    int all(int __predicate, details::caller __c = details::caller()) const {
        return __sim_vote(__c.site, build_mask(), __predicate, __sim_ballot) == build_mask();
    }
    unsigned int ballot(int __predicate, details::caller __c = details::caller()) const {
        return __sim_vote(__c.site, build_mask(), __predicate, __sim_ballot) >> (details::laneid() & ~(Size - 1));
    }
    template <typename _TyIntegral>
    unsigned int match_any(_TyIntegral __val, details::caller __c = details::caller()) const {
        return __sim_match(__c.site, build_mask(), __val, (int *)0) >> (details::laneid() & ~(Size - 1));
    }
    template <typename _TyIntegral>
    unsigned int match_all(_TyIntegral __val, int &__pred, details::caller __c = details::caller()) const {
        return __sim_match(__c.site, build_mask(), __val, &__pred) >> (details::laneid() & ~(Size - 1));
    }
};

// A tile made from a parent (tiled_partition<Size>(parent)) knows its rank among the parent's
// tiles; thread_block_tile<Size> (ParentT void) is any tile of that size.
template <unsigned int Size, typename ParentT>
class thread_block_tile : public __static_size_thread_block_tile_base<Size> {
    template <unsigned int, typename> friend class thread_block_tile;
    template <unsigned int _Sz, typename _Par> friend thread_block_tile<_Sz, _Par> tiled_partition(const _Par &);
    friend thread_block_tile<1, void> this_thread();

  protected:
    thread_block_tile(unsigned int __meta_rank, unsigned int __meta_size)
        : __static_size_thread_block_tile_base<Size>(__meta_rank, __meta_size) {}

  public:
    template <typename _Par, typename = typename std::enable_if<std::is_same<ParentT, void>::value, _Par>::type>
    thread_block_tile(const thread_block_tile<Size, _Par> &__g)
        : __static_size_thread_block_tile_base<Size>(__g.meta_group_rank(), __g.meta_group_size()) {}
};

template <unsigned int Size, typename ParentT>
inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT &__parent) {
    static_assert(std::is_same<ParentT, thread_block>::value || details::is_tile<ParentT>::value,
                  "tiled_partition<Size> takes a thread_block or a thread_block_tile");
    return thread_block_tile<Size, ParentT>(__parent.thread_rank() / Size,
                                            (__parent.size() + Size - 1) / Size);
}

inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(0, 1); }

// ---- dynamic tiles, and the generic group's calls -----------------------------------------------------
inline thread_group tiled_partition(const thread_block &__parent, unsigned int __tilesz,
                                    details::caller __c = details::caller()) {
    return __parent._get_tiled_threads(__tilesz, __c);
}
inline coalesced_group tiled_partition(const coalesced_group &__parent, unsigned int __tilesz,
                                       details::caller __c = details::caller()) {
    return __parent._get_tiled_threads(__tilesz, __c);
}
inline thread_group tiled_partition(const thread_group &__parent, unsigned int __tilesz,
                                    details::caller __c = details::caller()) {
    if (__parent.get_type() == details::coalesced_group_id)
        return static_cast<const coalesced_group &>(__parent)._get_tiled_threads(__tilesz, __c);
    return tiled_partition(static_cast<const thread_block &>(__parent), __tilesz, __c);
}

inline unsigned long long thread_group::size() const {
    return _data.type == details::thread_block_id ? thread_block::size() : _data.size;
}
inline unsigned long long thread_group::thread_rank() const {
    return _data.type == details::thread_block_id ? thread_block::thread_rank()
                                                  : __popc(_data.mask & details::lanemask32_lt());
}
inline void thread_group::sync(details::caller __c) const {
    if (_data.type == details::thread_block_id) __sim_sync_block_at(__c.site);
    else __sim_sync_warp_at(__c.site, _data.mask);
}

template <class _GroupT>
inline void sync(const _GroupT &__g, details::caller __c = details::caller()) { __g.sync(__c); }
template <class _GroupT>
inline auto thread_rank(const _GroupT &__g) -> decltype(__g.thread_rank()) { return __g.thread_rank(); }
template <class _GroupT>
inline auto group_size(const _GroupT &__g) -> decltype(__g.num_threads()) { return __g.num_threads(); }

namespace details {
// The mask of a tile or coalesced group (cg::reduce and the scans read it).
struct _coalesced_group_data_access {
    template <typename _TyGroup> static unsigned int get_mask(const _TyGroup &__g) { return __g.get_mask(); }
};
}  // namespace details

// ---- the grid: what a normal launch gives ---------------------------------------------------------------
// Grid-wide synchronisation needs a cooperative launch (cuLaunchCooperativeKernel), which PyCUDA
// cannot make: sync() is deleted, and the simulator names it (compile/not_simulated.py).
class grid_group {
    friend grid_group this_grid();
    grid_group() {}

  public:
    static constexpr unsigned int _group_id = details::grid_group_id;
    bool is_valid() const { return false; }  // as on a GPU, without a cooperative launch
    void sync() const = delete;
    struct arrival_token {};
    arrival_token barrier_arrive() const = delete;
    void barrier_wait(arrival_token &&) const = delete;
    static unsigned long long num_blocks() {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    }
    static unsigned long long block_rank() {
        return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    }
    static unsigned long long num_threads() { return num_blocks() * details::cta::size(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank() { return block_rank() * details::cta::size() + details::cta::thread_rank(); }
    static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 group_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    static dim3 dim_threads() {
        return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
    }
    static dim3 thread_index() {
        return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                    blockIdx.z * blockDim.z + threadIdx.z);
    }
};

inline grid_group this_grid() { return grid_group(); }

}  // namespace cooperative_groups
