// sim_bounds.h -- the exact bounds check of the instrumented build (included by sim_trace.h).
//
// The plain build catches an overrun with pages no access may touch (helpers/sim/machine/
// memory.py): each device array ends against a guard page, so one element past its end faults.
// But arrays start aligned, so past the end of one whose size is not a multiple of 16 lie a few
// bytes that do not fault (a read there gives NaN), and the __shared__ arrays are thread-locals
// of the module, side by side with no page between them: `float *p = tile; p[16]` reads whatever
// follows tile. Here every load, store and atomic of the learner's code is checked, before it
// happens, against what it may touch, every byte of it:
//
// - global memory: an access that starts or ends in the pages of an allocation (its slacks, its
//   guard pages) must lie wholly inside that allocation's array;
// - the __shared__ arrays: an access into the module's thread-local block must lie wholly inside
//   one array of the launched kernel's (its own, and those of file scope and of __device__
//   functions: helpers/sim/compile/module.py). The block also holds the runtime's thread-locals,
//   and two runs of bytes of no array that the instrumented build adds around the learner's
//   (sim_traced.h), so an overrun of the first or last array lands on bytes no array owns;
// - dynamic shared memory: an access in the pages of the launch's arena must lie inside its
//   shared= bytes.
//
// Anything else is not the simulator's to judge and is let through: the thread's stack (locals:
// left out before this, sim_trace.h's access()), the module's __device__ and __constant__
// variables, the kernel's parameters, memory a kernel malloc'ed. The first access out of bounds
// ends the launch before it happens, as a fault (the thread's error), with a report of what it
// was, which Python turns into words (helpers/sim/microscope/bounds.py).
//
// Most accesses cost a few comparisons: each worker remembers the last four arrays (or, for
// addresses of no allocation, gaps between two) where it found accesses, and the last four
// __shared__ arrays; only a miss searches the tables.
#pragma once

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

// What a failed check reports (mirrored by helpers/sim/microscope/instrumented.py).
struct BoundsReport {
    uint64_t count;    // accesses out of bounds (the launch ends at the first of each worker)
    uint64_t address;  // global memory: the address; shared memory: the offset in that space
    uint32_t block;    // linear indices of the block and thread
    uint16_t thread, site;
    uint32_t size;     // the bytes the access took
    int32_t space;     // as RaceReport's: 1 __shared__ arrays, 2 dynamic shared memory, 3 global
    int32_t is_write;  // 1 a store or an atomic, 0 a load
    uint32_t misaligned;  // 0 out of bounds; else a misaligned access (sim_trace.h's
                          // misaligned_access): the bytes it lies past a multiple of its size
};

struct BoundsTables {
    const uint64_t *pages_lo = nullptr, *pages_n = nullptr;  // per allocation (cfg's order): its pages
    const uint64_t *shared_at = nullptr, *shared_n = nullptr;  // the kernel's __shared__ arrays: their
    uint32_t nshared = 0;                                      // offsets in the block, sorted; bytes
    BoundsReport report{};
    std::mutex mu;
};
inline BoundsTables bounds_global;

// The number of entries of sorted[0, n) that are at most x.
SIM_UNTRACED inline uint32_t count_at_most(const uint64_t *sorted, uint32_t n, uint64_t x) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (sorted[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

[[noreturn]] SIM_UNTRACED __attribute__((noinline)) inline void out_of_bounds(
    State *s, uint32_t tid, uintptr_t a, uint64_t where, unsigned size, unsigned flags, unsigned site, int space,
    unsigned misaligned = 0) {
    Worker *w = frame()->worker;
    hold_cancel(w);
    {
        std::lock_guard<std::mutex> g(bounds_global.mu);
        BoundsReport &r = bounds_global.report;
        if (r.count++ == 0)
            r.address = where, r.block = (uint32_t)s->block_linear, r.thread = (uint16_t)tid,
            r.site = (uint16_t)site, r.size = size, r.space = space, r.is_write = (flags & WRITE) ? 1 : 0,
            r.misaligned = misaligned;
    }
    release_cancel(w);
    w->err.address = a;
    w->err.is_write = (flags & WRITE) ? 1 : 0;
    escape_with(w, FAULT);
}

// Memory outside every allocation's pages and the shared memory around a: the gap it lies in.
SIM_UNTRACED inline Span gap_around(const State *s, uintptr_t a, uintptr_t lo, uintptr_t hi) {
    const Span shared[2] = {Span{s->tls_lo, s->tls_n}, s->dyn_pages};
    for (const Span &x : shared) {
        if (x.lo + x.n <= a && x.lo + x.n > lo) lo = x.lo + x.n;
        if (x.lo > a && x.lo < hi) hi = x.lo;
    }
    return Span{lo, hi - lo};
}

SIM_UNTRACED __attribute__((noinline)) inline void bounds_search(State *s, uint32_t tid, uintptr_t a,
                                                                 unsigned size, unsigned flags, unsigned site) {
    const BoundsTables &t = bounds_global;
    if (flags & DYNAMIC) out_of_bounds(s, tid, a, a - s->dyn_lo, size, flags, site, 2);
    if (flags & SHARED) {
        uintptr_t off = a - s->tls_lo;
        uint32_t i = count_at_most(t.shared_at, t.nshared, off);
        Span array = i ? Span{s->tls_lo + t.shared_at[i - 1], t.shared_n[i - 1]} : Span{};
        if (!array.holds(a, size)) out_of_bounds(s, tid, a, off, size, flags, site, 1);
        s->shared_fits.add(array);
        return;
    }
    if (a + size > s->dyn_pages.lo && a < s->dyn_pages.lo + s->dyn_pages.n)  // its slacks, guard pages
        out_of_bounds(s, tid, a, a - s->dyn_lo, size, flags, site, 2);
    uint32_t n = cfg.nranges, j = count_at_most(t.pages_lo, n, a);
    if (j && a - t.pages_lo[j - 1] < t.pages_n[j - 1]) {  // in the pages of allocation j - 1
        Span array{cfg.range_lo[j - 1], cfg.range_n[j - 1]};
        if (!array.holds(a, size)) out_of_bounds(s, tid, a, a, size, flags, site, 3);
        s->fits.add(array);
        return;
    }
    uintptr_t lo = j ? t.pages_lo[j - 1] + t.pages_n[j - 1] : 0, hi = j < n ? t.pages_lo[j] : UINTPTR_MAX;
    if (size > hi - a) out_of_bounds(s, tid, a, a, size, flags, site, 3);  // it ends in allocation j's
    s->fits.add(gap_around(s, a, lo, hi));
}

// Every access of the learner's code, shared memory already told apart (flags).
SIM_UNTRACED __attribute__((always_inline)) inline void bounds_check(State *s, uint32_t tid, uintptr_t a,
                                                                     unsigned size, unsigned flags, unsigned site) {
    if (flags & DYNAMIC) {
        if (size <= s->dyn_bytes && a - s->dyn_lo <= s->dyn_bytes - size) return;
    } else if (flags & SHARED) {
        if (s->shared_fits.hold(a, size)) return;
    } else if (s->fits.hold(a, size)) {
        return;
    }
    bounds_search(s, tid, a, size, flags, site);
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop
