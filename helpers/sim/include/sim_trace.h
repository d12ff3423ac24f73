// sim_trace.h -- the simulator as a microscope: every load and store of the learner's code, with
// its thread and source line, for the memory trace (coalescing, bank conflicts, divergence) and
// for the race check (sim_race.h), the init check (sim_init.h) and the bounds check (sim_bounds.h).
//
// The instrumented builds of a module (helpers/sim/compiler.py, instrument=...) are compiled with
// GCC's ThreadSanitizer instrumentation: before each load and store the compiler calls
// __tsan_read4(address) and friends (and, in the "blocks" build, at the start of each basic block
// __sanitizer_cov_trace_pc()). The module is linked without the sanitizer's library:
// sim_trace_callbacks.h defines those functions instead. A callback knows the calling simulated
// thread (its Frame), the address and size, and its return address: a table made from the built
// library (compile/sites.py) maps each call site in the learner's code to a site number; the
// runtime's own calls were patched out of the library, or map to 0 and are ignored.
//
// This runtime is compiled on its own (sim_trace.cpp), once for each kind of module, without the
// instrumentation, and linked into every instrumented module of that kind
// (compile/prebuilt.py); the module's own code sees only sim_traced.h.
//
// The trace groups a warp's accesses as a GPU executes them: the k-th execution of one memory
// instruction (site) by each lane of a warp is one request. Requests are counted when a warp's
// accesses are complete: in a module without barriers the lanes of a warp run one after another,
// so when the next warp starts; with fibers at each __syncthreads() and when the block ends.
#pragma once

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include <atomic>
#include <mutex>
#include <vector>

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

// BLOCKS: basic blocks, for divergence; INIT: reads of memory never written (global and shared)
enum Mode { STATS = 1, RACE = 2, DETAIL = 4, BLOCKS = 8, INIT = 16 };
enum Flags : uint8_t { WRITE = 1, SHARED = 2, DYNAMIC = 4, BASIC_BLOCK = 8, ATOMIC = 16 };
enum Space { GLOBAL_SPACE = 0, SHARED_SPACE = 1 };

struct Entry {  // one access (or basic block) of one lane, in a warp's log
    uint64_t addr;
    uint16_t site;
    uint8_t lane, size, flags, pad[3];
};

struct SiteStats {  // per site and space: what Nsight Compute counts
    uint64_t requests, lanes, bytes, sectors, wavefronts, ideal_wavefronts;
};

struct Detail {  // one access, kept for pictures (mirrored by microscope/instrumented.py)
    uint64_t addr;
    uint32_t block, thread;
    uint16_t site;
    uint8_t size, flags;
    uint32_t pad;
};

struct WarpLog {
    Entry *e = nullptr;
    uint32_t n = 0, cap = 0;
};

// ---- the current traced launch ------------------------------------------------------------------
struct Config {
    int mode = 0;
    const uint64_t *range_lo = nullptr, *range_n = nullptr;  // allocations, sorted by address
    uint32_t nranges = 0;
    Detail *detail = nullptr;
    uint64_t detail_cap = 0;
    std::atomic<uint64_t> ndetail{0};
    std::atomic<int> fenced{0};  // some thread called __threadfence()
};
inline Config cfg;

// The allocation holding address a: its index in cfg's ranges and the offset, or false.
SIM_UNTRACED inline bool find_range(uint32_t &hint, uintptr_t a, uint32_t *index, uintptr_t *offset) {
    uint32_t i = hint;
    if (!(i < cfg.nranges && a - cfg.range_lo[i] < cfg.range_n[i])) {
        uint32_t lo = 0, hi = cfg.nranges;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cfg.range_lo[mid] <= a) lo = mid + 1;
            else hi = mid;
        }
        if (lo == 0 || a - cfg.range_lo[lo - 1] >= cfg.range_n[lo - 1]) return false;
        i = hint = lo - 1;
    }
    *index = i;
    *offset = a - cfg.range_lo[i];
    return true;
}

// The GPU-side address of a global access: allocations sit on 256-byte boundaries on a GPU, but
// the simulator places them against guard pages; sectors are counted from the allocation's start.
struct Placer {
    uint64_t lo = 0, n = 0, tag = 0;  // the allocation last found: [lo, lo + n), and its number
    SIM_UNTRACED __attribute__((always_inline)) uint64_t operator()(uint64_t a) {
        if (a - lo < n) return tag + (a - lo);
        uint32_t i, hint = ~0u;
        uintptr_t offset;
        if (!find_range(hint, a, &i, &offset)) return a;
        lo = cfg.range_lo[i], n = cfg.range_n[i], tag = (uint64_t)(i + 1) << 40;
        return tag + offset;
    }
};

// [lo, lo + n): memory an access may lie in, whole (the bounds check's hints, sim_bounds.h).
struct Span {
    uintptr_t lo = 0, n = 0;
    SIM_UNTRACED __attribute__((always_inline)) bool holds(uintptr_t a, unsigned size) const {
        return a - lo < n && size <= n - (a - lo);
    }
};

// The last few spans found, the oldest replaced first: a kernel's accesses take turns between a
// few arrays (an image in, an image out; two tiles).
struct Spans {
    Span last[4];
    uint32_t next = 0;
    SIM_UNTRACED __attribute__((always_inline)) bool hold(uintptr_t a, unsigned size) const {
        return last[0].holds(a, size) || last[1].holds(a, size) || last[2].holds(a, size) ||
               last[3].holds(a, size);
    }
    SIM_UNTRACED void add(Span x) { last[next++ & 3] = x; }
};

struct RaceShadow;
struct InitShared;

// What one worker thread knows while it runs blocks of a traced launch.
struct State : HostAllocated {
    State *next = nullptr;
    uint3 block{~0u, ~0u, ~0u};
    uint64_t block_linear = 0;
    uint32_t nthreads = 0, nwarps = 0;
    bool plain = true;
    uintptr_t tls_lo = 0, tls_n = 0, dyn_lo = 0, dyn_n = 0;  // this worker's shared memory
    uintptr_t dyn_bytes = 0;           // of which the launch's shared= bytes, from dyn_lo
    Span dyn_pages;                    // the dynamic arena's pages, guard pages included
    Spans fits, shared_fits;           // where the bounds check found the last accesses: arrays
                                       // and gaps between allocations; __shared__ arrays
    uint32_t cur_tid = ~0u;  // without fibers: the thread now running
    uint3 cur_thread{~0u, ~0u, ~0u};
    bool quick = false;  // without fibers or the race check: accesses only go to the log
    bool log_shared = false;  // the log holds a shared-memory access
    uint32_t lane_at[32];     // without fibers: where each lane's entries begin in logs[0]
    Placer place;
    WarpLog logs[32];  // per warp; without fibers the warps run one at a time, all in logs[0]
    uint32_t *bb_lane = nullptr, *bb_max = nullptr, *bb_sum = nullptr;  // without fibers: per site,
    uint32_t *lane_blocks = nullptr, *warp_blocks = nullptr;              // basic blocks run
    uint32_t nlane_blocks = 0, nwarp_blocks = 0;
    SiteStats *stats = nullptr;  // [nsites + 1][2]
    Entry *scratch = nullptr;    // flush workspace
    uint32_t *occ = nullptr, *keys_k = nullptr, *head = nullptr, *next_of = nullptr;
    uint64_t *keys = nullptr;
    uint32_t scratch_cap = 0, table_cap = 0;
    uint32_t epoch[1024], wepoch[1024];  // barriers and __syncwarp()s each thread has passed
    uint16_t step[1024];  // the race check: accesses each thread has made since its last barrier
    uint16_t fences[1024];  // and the fences it has called since then
    uint32_t flushed = 0;
    uint64_t recorded = 0;  // accesses seen (kept in cfg.detail while it has room)
    RaceShadow *race = nullptr;
    uint32_t init_hint = 0;  // the allocation the init check found last
    InitShared *init_shared = nullptr;
};

// ---- the site table: return address of a callback -> site number (0: not the learner's) ----------
inline uint16_t *site_of = nullptr;
inline uintptr_t text_lo = 0, text_n = 0;
inline uint32_t nsites = 0;

inline std::mutex states_mu;
inline State *states = nullptr;

SIM_UNTRACED inline void *zalloc(size_t bytes) { return calloc(1, bytes ? bytes : 1); }
}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop

#include "sim_trace_count.h"
#include "sim_race.h"
#include "sim_init.h"
#include "sim_bounds.h"

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

struct TlsSearch {
    uintptr_t base, lo, n;
};

SIM_UNTRACED inline int find_tls(struct dl_phdr_info *info, size_t, void *data) {
    auto *q = (TlsSearch *)data;
    if (info->dlpi_addr != q->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_tls_data) {
            q->lo = (uintptr_t)info->dlpi_tls_data;
            q->n = info->dlpi_phdr[i].p_memsz;
        }
    return 1;
}

SIM_UNTRACED inline uintptr_t module_base() {
    Dl_info info;
    return dladdr((void *)&site_of, &info) ? (uintptr_t)info.dli_fbase : 0;
}

// The first traced event of a worker: its state, shared-memory ranges and thread counts.
SIM_UNTRACED __attribute__((noinline)) inline State *attach(Worker *w) {
    State *s = new State();
    memset(s->lane_at, 0xff, sizeof s->lane_at);
    const uint3 bd = frame_of(w, 0)->block_dim;  // every thread's Frame has it (sim_grid.h)
    s->nthreads = bd.x * bd.y * bd.z;
    s->nwarps = (s->nthreads + 31) / 32;
    s->plain = w->plain;
    s->quick = s->plain && !(cfg.mode & (RACE | INIT)) && (cfg.mode & (STATS | DETAIL));
    TlsSearch q{module_base(), 0, 0};
    dl_iterate_phdr(find_tls, &q);
    s->tls_lo = q.lo, s->tls_n = q.n;
    s->dyn_lo = (uintptr_t)w->dynamic_shared;
    s->dyn_n = (uintptr_t)w->dynamic_shared_end - s->dyn_lo;
    s->dyn_bytes = w->dynamic_shared_bytes;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    s->dyn_pages = Span{(uintptr_t)w->dynamic_shared_floor - page,
                        (uintptr_t)w->dynamic_shared_end + page - ((uintptr_t)w->dynamic_shared_floor - page)};
    s->stats = (SiteStats *)zalloc(sizeof(SiteStats) * 2 * (nsites + 1));
    s->occ = (uint32_t *)zalloc(sizeof(uint32_t) * (nsites + 1));
    uint32_t **counters[] = {&s->bb_lane, &s->bb_max, &s->bb_sum, &s->lane_blocks, &s->warp_blocks};
    for (uint32_t **c : counters) *c = (uint32_t *)zalloc(sizeof(uint32_t) * (nsites + 1));
    if (cfg.mode & RACE) race_attach(s);
    if (cfg.mode & INIT) init_attach(s);
    w->trace = s;
    std::lock_guard<std::mutex> g(states_mu);
    s->next = states;
    states = s;
    return s;
}

SIM_UNTRACED inline void enter_block(State *s, const Frame *f) {
    flush_all(s);
    s->block = f->block;
    s->block_linear = f->block.x + (uint64_t)f->grid_dim.x * (f->block.y + (uint64_t)f->grid_dim.y * f->block.z);
    s->cur_tid = ~0u;
    s->cur_thread = uint3{~0u, ~0u, ~0u};
    s->flushed = 0;
    memset(s->epoch, 0, sizeof s->epoch);
    memset(s->wepoch, 0, sizeof s->wepoch);  // (race records name their block: none to clear)
    if (s->init_shared) init_enter_block(s);
    memset(s->step, 0, sizeof s->step);
    memset(s->fences, 0, sizeof s->fences);
}

// The calling simulated thread's state, after noticing a new block.
SIM_UNTRACED __attribute__((always_inline)) inline State *current(Frame *f) {
    State *s = (State *)f->worker->trace;
    if (__builtin_expect(!s, 0)) s = attach(f->worker);
    if (__builtin_expect(f->block.x != s->block.x || f->block.y != s->block.y || f->block.z != s->block.z, 0))
        enter_block(s, f);
    return s;
}

SIM_UNTRACED __attribute__((always_inline)) inline uint32_t thread_index(const Frame *f) {
    return f->thread.x + f->block_dim.x * (f->thread.y + f->block_dim.y * f->thread.z);
}

// A warp's log holds its accesses until they are complete (the warp ends, or passes a barrier).
// A lane that never gets there (an endless loop, which the time limit stops) would grow it by
// gigabytes a second: at kLogCap entries the log is counted as it stands and emptied, as if the
// warp had ended there (its requests counted in two parts). Growing it calls the C library, where
// a cancel must wait (hold_cancel).
constexpr uint32_t kLogCap = 1u << 21;  // entries: 32 MiB

SIM_UNTRACED __attribute__((noinline)) inline void make_room(State *s, WarpLog &L, int warp, unsigned flags) {
    Worker *w = frame()->worker;
    hold_cancel(w);
    Entry *e = L.cap < kLogCap ? (Entry *)realloc(L.e, sizeof(Entry) * (L.cap ? 2 * L.cap : 256)) : nullptr;
    if (e) {
        L.e = e, L.cap = L.cap ? 2 * L.cap : 256;
    } else {
        flush_warp(s, warp);
        if (s->plain) s->lane_at[s->cur_tid & 31] = 0;  // the lane goes on from the log's start
        if (flags & SHARED) s->log_shared = true;
        if (L.n == L.cap) {
            copy_text(w->err.text, "out of memory for the memory trace");
            escape_with(w, RESOURCES);
        }
    }
    release_cancel(w);
}

// Field by field: a whole Entry built on the stack and copied would stall on store forwarding.
// warp: the lane's warp (without fibers every warp's accesses go to logs[0], one warp at a time).
SIM_UNTRACED __attribute__((always_inline)) inline void append(State *s, int warp, uint64_t a, unsigned site,
                                                               unsigned lane, unsigned size, unsigned flags) {
    WarpLog &L = s->logs[s->plain ? 0 : warp];
    if (__builtin_expect(L.n == L.cap, 0)) make_room(s, L, warp, flags);
    Entry &x = L.e[L.n++];
    x.addr = a;
    x.site = (uint16_t)site;
    x.lane = (uint8_t)lane;
    x.size = (uint8_t)(size > 255 ? 255 : size);
    x.flags = (uint8_t)flags;
}

// A copy of a struct that is no vector type (a uint3, a float3, 12 bytes aligned to 4) is one
// access here but several loads on a GPU: one for each 4-byte word (each byte, unaligned).
SIM_UNTRACED __attribute__((noinline)) inline void append_pieces(State *s, int warp, uint64_t a, unsigned site,
                                                                 unsigned lane, unsigned size, unsigned flags) {
    unsigned piece = (size % 4 == 0 && a % 4 == 0) ? 4 : 1;
    for (unsigned at = 0; at < size; at += piece) append(s, warp, a + at, site, lane, piece, flags);
}

SIM_UNTRACED __attribute__((always_inline)) inline void append_access(State *s, int warp, uint64_t a,
                                                                      unsigned site, unsigned lane,
                                                                      unsigned size, unsigned flags) {
    if (__builtin_expect((size & (size - 1)) == 0 && size <= 16, 1)) append(s, warp, a, site, lane, size, flags);
    else append_pieces(s, warp, a, site, lane, size, flags);
}

// Without fibers the threads of a block run one after another: a new thread ends the last one's
// lane, and a new warp ends the last one's accesses.
SIM_UNTRACED __attribute__((noinline)) inline void next_thread(State *s, const Frame *f, uint32_t tid) {
    fold_lane(s);
    if ((tid >> 5) != (s->cur_tid >> 5) && s->cur_tid != ~0u) flush_warp(s, (int)(s->cur_tid >> 5));
    s->cur_tid = tid;
    s->cur_thread = f->thread;
    s->lane_at[tid & 31] = s->logs[0].n;
}

SIM_UNTRACED inline void record_held(Frame *f, uintptr_t a, unsigned size, unsigned flags, unsigned site) {
    State *s = current(f);
    uint32_t tid = thread_index(f);
    if (s->plain) {
        if (tid != s->cur_tid) next_thread(s, f, tid);
        if (flags & BASIC_BLOCK) {
            if (!s->bb_lane[site]++) s->lane_blocks[s->nlane_blocks++] = site;
            return;
        }
    }
    if (a - s->tls_lo < s->tls_n) flags |= SHARED, s->log_shared = true;
    else if (a - s->dyn_lo < s->dyn_n) flags |= SHARED | DYNAMIC, s->log_shared = true;
    if (!(flags & BASIC_BLOCK)) bounds_check(s, tid, a, size, flags, site);
    if ((cfg.mode & RACE) && !(flags & BASIC_BLOCK)) race_access(s, tid, a, size, flags, site);
    if ((cfg.mode & INIT) && !(flags & BASIC_BLOCK)) init_access(s, tid, a, size, flags, site);
    if (cfg.mode & (STATS | DETAIL)) append_access(s, (int)(tid >> 5), a, site, tid & 31, size, flags);
}

// An access off the quick path: it may attach the worker, start a block, or meet the race and
// init checks' locks and memory, where a cancel waits (hold_cancel).
SIM_UNTRACED __attribute__((noinline)) inline void record_slow(uintptr_t a, unsigned size, unsigned flags,
                                                               unsigned site) {
    Frame *f = frame();
    hold_cancel(f->worker);
    record_held(f, a, size, flags, site);
    release_cancel(f->worker);
}

// The usual case first: without fibers and without the race check, an access of the block and
// warp of the last one only goes to the log (a new lane of that warp is noted on the way).
SIM_UNTRACED __attribute__((always_inline)) inline void record(uintptr_t a, unsigned size, unsigned flags,
                                                               unsigned site) {
    Frame *f = frame();
    State *s = (State *)f->worker->trace;
    if (__builtin_expect(s && s->quick, 1) && f->block.x == s->block.x && f->block.y == s->block.y &&
        f->block.z == s->block.z) {
        if (f->thread.x != s->cur_thread.x || f->thread.y != s->cur_thread.y ||
            f->thread.z != s->cur_thread.z) {
            uint32_t tid = thread_index(f);
            if ((tid >> 5) != (s->cur_tid >> 5) || s->nlane_blocks) return record_slow(a, size, flags, site);
            s->cur_tid = tid, s->cur_thread = f->thread;
            s->lane_at[tid & 31] = s->logs[0].n;
        }
        if (a - s->tls_lo < s->tls_n) flags |= SHARED, s->log_shared = true;
        else if (a - s->dyn_lo < s->dyn_n) flags |= SHARED | DYNAMIC, s->log_shared = true;
        bounds_check(s, s->cur_tid, a, size, flags, site);
        append_access(s, (int)(s->cur_tid >> 5), a, site, s->cur_tid & 31, size, flags);
        return;
    }
    record_slow(a, size, flags, site);
}

// Every load and store calls this first: locals (the thread's own stack) and the runtime's code
// are left out at once.
SIM_UNTRACED __attribute__((always_inline)) inline void access(uintptr_t a, unsigned size, unsigned write, void *ret) {
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (((a ^ sp) & ~(kStackSize - 1)) == 0) return;
    uintptr_t off = (uintptr_t)ret - text_lo;
    if (off >= text_n) return;
    unsigned site = site_of[off];
    if (site) record(a, size, write, site);
}

// An access of 2, 4, 8 or 16 bytes that the compiler took to be aligned to its size (the
// instrumentation's __tsan_read16, not __tsan_unaligned_read16), at an address that is not a
// multiple of it: a GPU stops the launch with "misaligned address" (a uint4 or float4 from a
// pointer moved by a few bytes), which the plain build's CPU may let through. It ends the launch
// as an access out of bounds does; a local, the runtime's own code, and an address no machine
// has (a pointer of junk bytes: its fault names it) are not looked at.
SIM_UNTRACED __attribute__((noinline)) inline void misaligned_access(uintptr_t a, unsigned size, unsigned write,
                                                                     void *ret) {
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (((a ^ sp) & ~(kStackSize - 1)) == 0 || ((a >> 47) != 0 && (a >> 47) != 0x1FFFF)) return;
    uintptr_t off = (uintptr_t)ret - text_lo;
    if (off >= text_n || !site_of[off]) return;
    Frame *f = frame();
    hold_cancel(f->worker);  // until out_of_bounds ends the launch
    State *s = current(f);
    uint32_t tid = thread_index(f);
    unsigned past = (unsigned)(a & (size - 1));
    if (a - s->tls_lo < s->tls_n) out_of_bounds(s, tid, a, a - s->tls_lo, size, write, site_of[off], 1, past);
    if (a - s->dyn_lo < s->dyn_n) out_of_bounds(s, tid, a, a - s->dyn_lo, size, write, site_of[off], 2, past);
    out_of_bounds(s, tid, a, a, size, write, site_of[off], 3, past);
}

// An atomic operation (sim_trace_callbacks.h does it): counted; a race only with a plain access.
SIM_UNTRACED inline void note_atomic(uintptr_t a, unsigned size, void *ret) {
    uintptr_t off = (uintptr_t)ret - text_lo;
    if (off < text_n && site_of[off] && cfg.mode) record_slow(a, size, ATOMIC | WRITE, site_of[off]);
}

// An atomicCAS (sim_trace_callbacks.h does it), with its compare: for the race check, it may show
// a CAS loop's first guess (sim_race.h); then noted as any atomic.
SIM_UNTRACED inline void note_cas(uintptr_t a, unsigned size, uint64_t compare, void *ret) {
    uintptr_t off = (uintptr_t)ret - text_lo;
    if (!(off < text_n && site_of[off] && cfg.mode)) return;
    if (cfg.mode & RACE) {
        Frame *f = frame();
        hold_cancel(f->worker);
        race_cas(current(f), thread_index(f), a, size, compare);
        release_cancel(f->worker);
    }
    record_slow(a, size, ATOMIC | WRITE, site_of[off]);
}

// __syncthreads() has let this thread go: what its block did before is complete.
SIM_UNTRACED void after_barrier() {
    Frame *f = frame();
    hold_cancel(f->worker);
    State *s = current(f);
    uint32_t e = ++s->epoch[thread_index(f)];
    if (s->init_shared) init_after_barrier(s, e);
    s->step[thread_index(f)] = 0;
    s->fences[thread_index(f)] = 0;
    if ((cfg.mode & (STATS | DETAIL)) && e > s->flushed) {
        flush_all(s);
        s->flushed = e;
    }
    release_cancel(f->worker);
}
SIM_UNTRACED void after_syncwarp() {
    Frame *f = frame();
    hold_cancel(f->worker);
    State *s = current(f);
    s->wepoch[thread_index(f)]++;
    release_cancel(f->worker);
}
// A fence: counted for the race check's report (sim_race.h). across_blocks: __threadfence() or
// __threadfence_system(), which order a thread's accesses for other blocks as well (the race check
// then lets blocks share global memory); __threadfence_block() orders them for its block only.
SIM_UNTRACED void fence(bool across_blocks) {
    if (across_blocks) cfg.fenced.store(1, std::memory_order_relaxed);
    Frame *f = frame();
    hold_cancel(f->worker);
    State *s = current(f);
    uint16_t &n = s->fences[thread_index(f)];
    if (n != UINT16_MAX) n++;
    release_cancel(f->worker);
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop

#include "sim_trace_callbacks.h"
#include "sim_trace_api.h"
