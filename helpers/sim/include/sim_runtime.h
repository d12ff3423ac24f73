// sim_runtime.h -- what a kernel calls while it runs on the CPU: barriers, warp functions, printf,
// assert, and the bookkeeping of the block being run.
//
// Blocks are shared out to worker threads (sim_grid.h). Within a block, a module that never uses
// a barrier or a warp function runs each block as a plain loop over its threads. A module that
// uses them runs each thread of a block as a fiber (its own stack, switched by a few instructions:
// sim_switch.h) so that a thread can stop at __syncthreads() and let the others catch up, as on a
// GPU; except its kernels that compile/split.py rewrote, which loop over their threads between
// barriers (sim_split.h).
//
// Faults (accesses that reach a guard page, failed asserts, stuck barriers) end the launch and are
// reported to Python with the kernel, block and thread; they never end the process.
#pragma once

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "sim_switch.h"
#include "sim_types.h"

#ifndef SIM_FIBERS
#define SIM_FIBERS 0  // the compiler driver sets 1 when the module uses barriers or warp functions
#endif
// 1 (set by the compiler driver) in a module without fibers that defines no __device__ function:
// its kernels read threadIdx and friends from variables of the module (sim_launch.h), which no
// store of theirs can change. 2 in such a module with __device__ functions, on x86-64: the same,
// but threadIdx.x in the register r14, which the module reserves. A __device__ function the
// compiler does not inline might read the variables, so the loop must write threadIdx.x for
// each thread; as a thread-local variable that was, once a call sat in the loop, the C
// library's lookup of its address for each thread, and there the Frame had been cheaper
// (bench/RESULTS.md, "The simulator per core").
#ifndef SIM_INDICES_IN_MODULE
#define SIM_INDICES_IN_MODULE 0
#endif

#define SIM_EXPORT extern "C" __attribute__((visibility("default")))
// The instrumented build (-DSIM_TRACE, sim_trace.h) calls the runtime before every load and store;
// the runtime's own per-thread code (the scheduler, barriers) is left out of that.
#ifdef SIM_TRACE
#define SIM_UNTRACED __attribute__((no_sanitize_thread, no_sanitize_coverage))
#else
#define SIM_UNTRACED
#endif

#pragma GCC visibility push(hidden)

namespace sim {

// ---- what a launch reports to Python (compile/module.py mirrors these; sim_launch.h exports
// their sizes and the status names, and Python checks them when it loads a module) --------------
enum Status : int {
    OK = 0,
    FAULT = 1,        // SIGSEGV/SIGBUS: an access outside memory the kernel may use
    ASSERT = 2,       // assert() or __trap() failed
    BARRIER = 3,      // threads of a block wait at different __syncthreads(), or can never meet
    WARP = 4,         // a warp function's mask names a lane that has exited
    INTERRUPTED = 5,  // the launch was cancelled (Jupyter's interrupt button)
    ARITHMETIC = 6,   // SIGFPE: integer division by zero
    STACK = 7,        // a thread's stack overflowed (very large local arrays)
    ABORT = 8,        // abort() was called
    BOUNDS = 9,       // an index past the end of a fixed-size (shared or local) array
    RESOURCES = 10,   // no memory or no thread could be had for the launch
    OVERRUN = 11,     // a block wrote past the end of its dynamic shared memory (found afterwards)
    CAST = 12,        // a float to integer conversion of NaN or out of range, where a GPU differs
    SHIFT = 13,       // a shift by the operand's width or more, or by a negative count
    MATRIX = 14,      // a warp matrix function (mma.h) called against its rules
};
// The names Python knows the statuses by, in the enum's order.
inline const char *const kStatusNames[] = {"OK", "FAULT", "ASSERT", "BARRIER", "WARP",
                                           "INTERRUPTED", "ARITHMETIC", "STACK", "ABORT", "BOUNDS",
                                           "RESOURCES", "OVERRUN", "CAST", "SHIFT", "MATRIX"};
static_assert(sizeof kStatusNames / sizeof kStatusNames[0] == MATRIX + 1, "a status without a name");

struct Error {
    int32_t status;
    uint32_t block[3], thread[3];
    int32_t is_write;  // 1 write, 0 read, -1 unknown
    uint64_t address;  // the faulting address, for FAULT
    uint64_t pc;       // the instruction a signal stopped (FAULT, ARITHMETIC); 0 for none
    const char *file;
    int64_t line;
    const char *file2;  // the other barrier's site, for BARRIER
    int64_t line2;
    char text[256];
    // CAST, SHIFT and BOUNDS (sim_grid.h): the operands as the compiler's check hands them over,
    // their C types (GCC's UBSan type descriptors: u16 kind, 0 integer and 1 float; u16 info, for
    // an integer log2(bits) << 1 | signed, for a float its bits; then the quoted name), the
    // column of the operator, and for CAST what a GPU and this CPU give.
    uint64_t operands[2];   // CAST: the float's bits; SHIFT: the shifted value and the count;
                            // BOUNDS: the index
    const void *types[2];   // CAST: from and to; SHIFT: the shifted value's and the count's;
                            // BOUNDS: the index's and the array's
    uint64_t gpu, cpu;      // CAST: the integer each gives, in the target type's bits
    int64_t column;
    // FAULT and OVERRUN: 1 where the address lies in the pages around the block's dynamic shared
    // memory (a guard page, or the canary before it or past its shared= bytes), and then its
    // distance in bytes from that memory's start: negative before it, shared= or more past it.
    // Python says which side from these (run/report.py), not from any text.
    int32_t in_dynamic_shared;
    int64_t dynamic_shared_offset;
    // WARP: which rule the warp function broke (WarpRule), its mask, and the lane the rule is
    // about (the calling lane, or the exited one; -1 for none). run/report.py reads them.
    int32_t warp_rule;
    uint32_t warp_mask;
    int32_t warp_lane;
    // WARP, when lanes never arrive: bit l of warp_waiting[k] for each thread 32 k + l of the
    // block (in the block's order) that waits in a warp function
    uint32_t warp_waiting[32];
    // FAULT where the CPU refused an access without giving its address (x86's general-protection
    // fault, si_code SI_KERNEL: an SSE load or store that needs its address aligned, or an address
    // that cannot exist): refused 1; decoded 1 where the faulting instruction's memory operand
    // was read (sim_fault_decode.h) into address (and is_write), and alignment, the bytes that
    // instruction needs its address to be a multiple of (16 for a uint4 or float4 moved by SSE,
    // 32 by AVX; 0 for none). run/report.py tells a misaligned address from these.
    int32_t refused, decoded, alignment;
    // FAULT: where the failing thread's shared memory lay, read by run/report.py only to name an
    // index that wrapped around as an unsigned int (s[threadIdx.x - 1] for thread 0 lands 16 GiB
    // past s): sim::worker's address in that thread (its __shared__ arrays lie at their offsets
    // from it, compile/module.py: shared_variables) and its block's dynamic shared memory.
    uint64_t worker_anchor, dynamic_shared_base;
    // 1 where the failing thread's Frame (its threadIdx, blockIdx, ... at the top of its stack)
    // was written over, as a write past the end of a local array that runs up the stack does:
    // thread is then kThreadUnknown, since the Frame no longer says which thread it was.
    int32_t frame_overwritten;
    // FAULT: 1 where the address lay just past the top of the failing thread's own stack (in the
    // untouchable part of the slot above: machine/stacks.py), as a write past the end of a local
    // array that runs up the stack and past its end faults there (sim_signals.h).
    int32_t past_stack_top;
    // FAULT: 1 where a function's stack guard was found written over at its end (sim_grid.h:
    // __stack_chk_fail), by a write past the end of one of its local arrays; pc lies in it.
    int32_t stack_guard;
};

// Error::warp_rule
enum WarpRule : int32_t { kMaskLeavesOutCaller = 1, kMaskNamesExitedLane = 2, kLanesNeverArrive = 3 };

// Error::thread where the runtime could not tell which thread of the block failed (sim_grid.h:
// name_the_thread); run/report.py reads it.
constexpr uint32_t kThreadUnknown = 0xFFFFFFFFu;

struct ParamInfo {
    int32_t kind;  // 'P' pointer, 'i' signed integer, 'u' unsigned integer, 'f' floating, 'S' other
    int32_t size;
    const char *type_name;
};

struct KernelEntry {
    const char *name;
    int nparams;
    void (*describe)(ParamInfo *out);
    void *(*make_args)(void **args);  // copies the argument values into a typed tuple
    void (*free_args)(void *tuple);
    void (*run_thread)(void *tuple);        // one thread, whose Frame is set
    void (*run_block_plain)(void *tuple);   // every thread of the current block, in order
    void (*run_block_plain_watched)(void *tuple);   // in order, checking the watch after each
    // in order, each thread's indices written into its Frame first, where run_block_plain does not
    // write them (sim_launch.h: run_block_fast): a second run of a block that failed, to name
    // the thread (sim_grid.h: name_the_thread); nullptr where run_block_plain writes them
    void (*run_block_plain_publishing)(void *tuple);
    // the kernel itself (its symbol is the name get_function takes), through a function: a
    // function's address as data is no constant, and the table is constant-initialised
    const void *(*address)();
};

// ---- fibers ---------------------------------------------------------------------------------------
enum FiberState : uint8_t { F_RUN, F_BLOCK, F_WARP, F_DONE };

struct Site {  // a call site of a barrier or warp function
    const char *file;
    int line, id;
};

// What a barrier touches comes first, in one cache line; what warp functions add, in the next.
struct alignas(64) Fiber {
    Context ctx;       // where it resumes
    uint8_t state;
    int pred;          // contribution to __syncthreads_count/and/or and to votes
    Site site;         // where it waits
    uint64_t result;   // what it gets back
    unsigned mask;     // warp function: the lanes it names
    int op;            // warp function: which one
    int src;           // shuffle: the lane it reads
    uint64_t value;    // shuffle: the value it offers
};

struct Launch;

// The runtime's own memory while a worker runs a kernel (its copies' queues, a split kernel's
// storage, the trace's state): the C library's, never the device heap that the kernel's own new
// draws on there (sim_grid.h: operator new).
[[noreturn]] inline void out_of_host_memory() {
#if __cpp_exceptions
    throw std::bad_alloc();  // the grid runner's worker_main catches it: the launch ends, RESOURCES
#else
    __builtin_trap();  // an instrumented build has no exceptions: a crash the runtime reports
#endif
}
template <class T> struct HostAllocator {
    using value_type = T;
    HostAllocator() = default;
    template <class U> HostAllocator(const HostAllocator<U> &) {}
    T *allocate(size_t n) {
        void *p = n <= SIZE_MAX / sizeof(T) ? malloc(n * sizeof(T)) : nullptr;
        if (!p) out_of_host_memory();
        return (T *)p;
    }
    void deallocate(T *p, size_t) { free(p); }
    template <class U> bool operator==(const HostAllocator<U> &) const { return true; }
    template <class U> bool operator!=(const HostAllocator<U> &) const { return false; }
};
template <class T> using host_vector = std::vector<T, HostAllocator<T>>;
struct HostAllocated {  // a base: new and delete of the class take the C library's memory
    static void *operator new(size_t bytes) { return HostAllocator<char>().allocate(bytes); }
    static void operator delete(void *p) { free(p); }
};

// An asynchronous copy (cuda_pipeline_primitives.h): its bytes read from global memory when the
// thread asks for it, stored into shared memory when the thread waits for its batch.
struct CopyInFlight {
    void *dst;
    uint4 bytes;
    uint32_t size, batch;
};
struct ThreadCopies {
    host_vector<CopyInFlight> asked;  // in the order asked; those before `landed` are stored
    size_t landed = 0;
    uint32_t committed = 0;  // batches closed by __pipeline_commit
    void forget() { asked.clear(), landed = 0, committed = 0; }
};

struct Worker {
    Launch *launch = nullptr;
    sigjmp_buf escape;  // where a fault or a cancel returns to, on the worker's own stack
    volatile sig_atomic_t in_kernel = 0;
    volatile sig_atomic_t no_cancel = 0;       // inside stretches a cancel must not cut (hold_cancel)
    volatile sig_atomic_t cancel_pending = 0;  // a cancel came in one, and waits for its end
    Error err{};
    uint3 block{};
    uint3 block_dim{};  // the launch's, as each Frame holds it (frame_intact)
    long claimed = 0, claimed_end = 0;  // blocks claimed and not yet run (sim_grid.h: claim_block)
    bool plain = true;  // one fiber runs the block's threads in a loop
    bool watching = false;  // check the watched bytes whenever a thread stops (sim_grid.h)
    bool in_order = true;   // not watching: threads take turns in order
    bool quiet = false;     // kernel printf prints nothing (a second run that looks for a culprit)
    // the fibers of the block being run
    Fiber *fibers = nullptr;
    int nfibers = 0, current = -1, live = 0, at_barrier = 0;
    Site barrier{};
    bool barrier_reduces = false;  // __syncthreads_count/and/or: count the predicates
    Context scheduler;  // the worker's own stack, which runs the blocks
    char *stacks = nullptr;  // stack i: [stacks + i*kStackSize, +kStackSize), its Frame at the top
    // dynamic shared memory: [floor, dynamic_shared) and [dynamic_shared + shared, end) hold a
    // canary, and guard pages lie below floor and from end on (sim_grid.h)
    char *dynamic_shared = nullptr, *dynamic_shared_end = nullptr, *dynamic_shared_floor = nullptr;
    size_t dynamic_shared_bytes = 0;
    void *trace = nullptr;  // the memory trace's state, in an instrumented module (sim_trace.h)
    uintptr_t stepping = 0;  // watch mode: the watched page unprotected for one instruction
    // each thread's asynchronous copies in the block being run (sized by the launch's first
    // copy; fill_shared empties them for each block)
    host_vector<ThreadCopies> copies;
    // a split kernel's per-thread storage (sim_split.h), kept from block to block
    host_vector<unsigned char> split;
};

inline thread_local Worker *worker = nullptr;  // for the signal handler and printf

#if SIM_FIBERS && defined(SIM_SWITCH_INLINE) && !defined(__clang__)  // clang has no such variables
// The worker that runs the calling thread, kept in a register that this module reserves for it:
// declared, and these two defined, by sim_prelude_end.h, which the unit includes after the prelude
// (a precompiled prelude cannot carry a register's reservation).
#define __SIM_WORKER_IN_REGISTER 1
inline Worker *current_worker();
inline void set_current_worker(Worker *w);
struct KeepRegister {
    Worker *outer = current_worker();
    ~KeepRegister() { set_current_worker(outer); }
};
#else
inline Worker *current_worker() { return frame()->worker; }
inline void set_current_worker(Worker *) {}
struct KeepRegister {};
#endif

inline Frame *frame_of(Worker *w, int i) { return frame_at((uintptr_t)(w->stacks + (size_t)i * kStackSize)); }

inline void copy_text(char *dst, const char *src) {
    strncpy(dst, src, sizeof(Error::text) - 1);
    dst[sizeof(Error::text) - 1] = 0;
}

// An access at `a`, outside the worker's dynamic shared memory, in the pages around it: where it
// fell, for Error's in_dynamic_shared and dynamic_shared_offset.
inline void note_dynamic_shared(Worker *w, uintptr_t a) {
    w->err.in_dynamic_shared = 1;
    w->err.dynamic_shared_offset = (int64_t)(a - (uintptr_t)w->dynamic_shared);
}

// Ends the launch from wherever the worker is (a fiber, the scheduler, a signal handler).
// Whether thread i's Frame is as the runtime wrote it: its seal, worker, block and blockDim
// unchanged, its threadIdx inside the block. (A write of |= may leave the seal's bits as they
// were and change the words above it.)
inline bool frame_intact(Worker *w, int i) {
    const Frame *f = frame_of(w, i);
    const uint3 &t = f->thread, &d = f->block_dim, &b = f->block;
    return f->seal == frame_seal(f) && f->worker == w && d.x == w->block_dim.x &&
           d.y == w->block_dim.y && d.z == w->block_dim.z && b.x == w->block.x && b.y == w->block.y &&
           b.z == w->block.z && t.x < d.x && t.y < d.y && t.z < d.z;
}

[[noreturn]] inline void escape_with(Worker *w, int status) {
    w->no_cancel = 0;  // the jump leaves every stretch hold_cancel began
    w->err.status = status;
    uint3 t = w->current >= 0 ? frame_of(w, w->current)->thread : uint3{0, 0, 0};
    if (w->current >= 0 && w->stacks && !frame_intact(w, w->current))
        w->err.frame_overwritten = 1, t = uint3{kThreadUnknown, kThreadUnknown, kThreadUnknown};
    memcpy(w->err.block, &w->block, sizeof w->err.block);
    memcpy(w->err.thread, &t, sizeof w->err.thread);
    siglongjmp(w->escape, 1);
}

// A cancel (SIGUSR2: the time limit, or Jupyter's interrupt button) jumps out of the kernel
// wherever it is. Inside the C library (malloc, stdio) or while the runtime holds a lock, that
// jump would leave them locked or half changed (a block freed and still pointed to), and the
// launches after it would hang or crash: such a stretch is held between hold_cancel and
// release_cancel, and a cancel that lands in it (sim_signals.h) waits for its end. Stretches
// may nest. (Calls, not a guard object: a destructor would bring C++'s unwinding into kernels.)
inline void hold_cancel(Worker *w) {
    if (w) w->no_cancel = w->no_cancel + 1;
}
inline void release_cancel(Worker *w) {
    if (w && (w->no_cancel = w->no_cancel - 1) == 0 && w->cancel_pending) escape_with(w, INTERRUPTED);
}

[[noreturn]] inline void fail_at(Worker *w, int status, Site site, const char *text) {
    w->err.file = site.file;
    w->err.line = site.line;
    copy_text(w->err.text, text);
    escape_with(w, status);
}

[[noreturn]] inline void fail_assert(const char *expr, const char *file, int line) {
    fail_at(current_worker(), ASSERT, Site{file, line, 0}, expr);
}

// Kernel printf: the C library's, kept safe from a cancel arriving while stdio holds its lock.
// Defined in the grid runner (sim_grid.h), so that the learner's module never names stdout,
// which device code may not touch (compile/device_calls.py).
int device_vprintf(const char *fmt, va_list ap);

inline void *dynamic_shared() { return current_worker()->dynamic_shared; }

// A search for the thread that wrote past the end of an array (sim_grid.h), called whenever a
// thread stops.
void check_watch(Worker *w);

// The asynchronous copies of thread `thread` of the block's `threads` (cuda_pipeline_primitives.h),
// kept by the grid runner (sim_grid.h), where the C++ library's vectors may throw: one asked for,
// a batch closed, and the next copy that a wait leaving `prior` batches in flight lands (false
// when none is left to land).
void ask_copy(unsigned thread, unsigned threads, const CopyInFlight &c);
void commit_copies(unsigned thread, unsigned threads);
bool next_copy_due(unsigned thread, unsigned threads, size_t prior, CopyInFlight &c);

// ---- switching between the threads of a block --------------------------------------------------
// The calling fiber waits (or has finished): run the next fiber that can run, in thread order,
// or go back to the scheduler when none can.
SIM_UNTRACED __attribute__((noinline)) inline void yield_search(Worker *w) {
    int me = w->current, n = w->nfibers, step = 1, next = -1;
    if (w->watching) check_watch(w);
    for (int k = 1, i = me; k <= n; k++) {
        i = i + step < n ? i + step : i + step - n;
        if (w->fibers[i].state == F_RUN) {
            next = i;
            break;
        }
    }
    if (next == me) return;  // its own arrival released it
    w->current = next;
    switch_context(&w->fibers[me].ctx, next < 0 ? &w->scheduler : &w->fibers[next].ctx, w);
}

SIM_UNTRACED inline void yield(Worker *w) {
    int me = w->current, n = w->nfibers, next = me + 1 < n ? me + 1 : 0;
    Fiber *fibers = w->fibers;
    if (__builtin_expect(w->in_order && next != me && fibers[next].state == F_RUN, 1)) {
        // The usual case: the next thread. The one after it will most likely run soon after:
        // fetch the top of its stack now, so that the switch to it does not wait for memory.
        w->current = next;
        __builtin_prefetch(fibers[next + 1 < n ? next + 1 : 0].ctx.sp);
        switch_context(&fibers[me].ctx, &fibers[next].ctx, w);
        return;
    }
    yield_search(w);
}

// ---- barriers ---------------------------------------------------------------------------------
// Everyone has arrived: each waiting thread gets the block's count/and/or of the predicates
// (for __syncthreads_count and friends) and goes on.
SIM_UNTRACED inline void release_block_barrier(Worker *w) {
    uint64_t count = 0, all = 1, any = 0;
    if (w->barrier_reduces)
        for (int i = 0; i < w->nfibers; i++)
            if (w->fibers[i].state == F_BLOCK) {
                int p = w->fibers[i].pred != 0;
                count += p, all &= p, any |= p;
            }
    uint64_t result = count | all << 40 | any << 41;
    for (int i = 0; i < w->nfibers; i++)
        if (w->fibers[i].state == F_BLOCK) w->fibers[i].state = F_RUN, w->fibers[i].result = result;
    w->at_barrier = 0;
}

inline bool same_site(const Site &a, const Site &b) {
    return a.id == b.id && (a.file == b.file || strcmp(a.file, b.file) == 0);
}

// A barrier or warp function met by threads that run as a loop: a module built without fibers, or
// a kernel that compile/split.py rewrote although it waits (a mistake of split.py's, reported).
[[noreturn]] inline void no_fibers(Worker *w, Site site) {
    fail_at(w, BARRIER, site, "internal: barrier or warp function in a kernel run without fibers");
}

// A thread arrives at __syncthreads(): it waits until every thread of the block that has not
// exited arrives too. Threads waiting at two different __syncthreads() are an error.
SIM_UNTRACED inline int block_barrier(Site site, int pred, int reduce) {
    Worker *w = current_worker();
    if (!SIM_FIBERS || w->plain) no_fibers(w, site);
    if (w->at_barrier == 0) {
        w->barrier = site, w->barrier_reduces = reduce >= 0;
    } else if (!same_site(w->barrier, site)) {
        w->err.file2 = w->barrier.file;
        w->err.line2 = w->barrier.line;
        fail_at(w, BARRIER, site, "threads of one block wait at different __syncthreads()");
    }
    Fiber &f = w->fibers[w->current];
    f.state = F_BLOCK;
    f.pred = pred;
    f.site = site;
    if (++w->at_barrier == w->live) release_block_barrier(w);
    yield(w);
    uint64_t r = f.result;
    return reduce == 0 ? (int)(r & 0xffffffffffull) : reduce == 1 ? (int)(r >> 40 & 1) : (int)(r >> 41 & 1);
}

inline void sync_block(Site site) { block_barrier(site, 0, -1); }

// __nanosleep: the calling thread lets the other threads of its block run (with fibers).
inline void let_others_run() {
    Worker *w = current_worker();
    if (!w->plain) yield(w);
}
inline int sync_block_reduce(Site site, int pred, int reduce) { return block_barrier(site, pred, reduce); }

// ---- warp functions -----------------------------------------------------------------------------
enum ShflKind { ShflIdx, ShflUp, ShflDown, ShflXor, SyncWarp, VoteBallot, VoteAny, VoteAll, VoteUni,
                Collective, Coalesce, Task };
// What a Collective computes from the values of every lane of the group (in Fiber::src).
enum CollectiveKind { MatchAny, MatchAll, ReduceAdd, ReduceMinU, ReduceMaxU, ReduceMinS, ReduceMaxS,
                      ReduceAnd, ReduceOr, ReduceXor };

inline unsigned lanes_in_warp(Worker *w, int warp) {
    int n = w->nfibers - warp * 32;
    return n >= 32 ? 0xffffffffu : ((1u << n) - 1);
}

// __match_*_sync and __reduce_*_sync: what lane `me` gets from the values of the group's lanes.
inline uint64_t collective_result(const Fiber *lanes, unsigned group, int me, int kind) {
    uint64_t mine = lanes[me].value, equal = 0;
    uint32_t acc = kind == ReduceAnd ? ~0u : kind == ReduceMinU ? ~0u : kind == ReduceMaxS ? 0x80000000u
                 : kind == ReduceMinS ? 0x7fffffffu : 0;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1)) continue;
        uint64_t v = lanes[l].value;
        uint32_t u = (uint32_t)v;
        equal |= (uint64_t)(v == mine) << l;
        switch (kind) {
            case ReduceAdd: acc += u; break;
            case ReduceMinU: acc = u < acc ? u : acc; break;
            case ReduceMaxU: acc = u > acc ? u : acc; break;
            case ReduceMinS: acc = (int32_t)u < (int32_t)acc ? u : acc; break;
            case ReduceMaxS: acc = (int32_t)u > (int32_t)acc ? u : acc; break;
            case ReduceAnd: acc &= u; break;
            case ReduceOr: acc |= u; break;
            case ReduceXor: acc ^= u; break;
        }
    }
    if (kind == MatchAny) return equal;
    if (kind == MatchAll) return equal == group ? group : 0;
    return acc;
}

// A computation over the parts of every lane of a warp (mma.h's mma_sync: a matrix product whose
// operands are spread over the lanes' fragments). Each lane offers its part (in Fiber::value);
// when the group has all arrived, the first lane's task runs once over all of them, before any
// lane goes on: the parts live on the lanes' stacks, and stay put while their lanes wait.
struct WarpTask {
    void (*run)(WarpTask *const parts[32], unsigned group);
};

// The lanes named by the mask have all arrived: each gets its result, and all go on.
SIM_UNTRACED inline void release_warp(Worker *w, int warp, unsigned group) {
    Fiber *lanes = w->fibers + warp * 32;
    if (lanes[__builtin_ctz(group)].op == Task) {
        WarpTask *parts[32] = {};
        for (int l = 0; l < 32; l++)
            if (group >> l & 1) parts[l] = (WarpTask *)(uintptr_t)lanes[l].value;
        parts[__builtin_ctz(group)]->run(parts, group);
    }
    unsigned ballot = 0;
    for (int l = 0; l < 32; l++)
        if ((group >> l & 1) && lanes[l].pred) ballot |= 1u << l;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1)) continue;
        Fiber &f = lanes[l];
        switch (f.op) {
            case VoteBallot: f.result = ballot; break;
            case VoteAny: f.result = ballot != 0; break;
            case VoteAll: f.result = ballot == group; break;
            case VoteUni: f.result = ballot == 0 || ballot == group; break;
            case SyncWarp:
            case Task: f.result = 0; break;
            case Collective: f.result = collective_result(lanes, group, l, f.src); break;
            default: {
                int s = f.src;
                f.result = (s >= 0 && s < 32 && (group >> s & 1)) ? lanes[s].value : f.value;
            }
        }
        f.state = F_RUN;
    }
}

SIM_UNTRACED inline uint64_t warp_meet(Site site, unsigned mask, int op, int src, uint64_t value, int pred) {
    Worker *w = current_worker();
    if (!SIM_FIBERS || w->plain) no_fibers(w, site);
    int me = w->current, warp = me / 32, lane = me % 32;
    Fiber *lanes = w->fibers + warp * 32;
    unsigned group = mask & lanes_in_warp(w, warp);
    w->err.warp_mask = mask;
    if (!(group >> lane & 1)) {
        w->err.warp_rule = kMaskLeavesOutCaller, w->err.warp_lane = lane;
        fail_at(w, WARP, site, "the mask does not name the calling lane");
    }
    for (int l = 0; l < 32; l++)
        if ((group >> l & 1) && lanes[l].state == F_DONE) {
            w->err.warp_rule = kMaskNamesExitedLane, w->err.warp_lane = l;
            char text[160];
            snprintf(text, sizeof text,
                     "the mask 0x%08x names lane %d, which has already exited the kernel", mask, l);
            fail_at(w, WARP, site, text);
        }
    Fiber &f = lanes[lane];
    f.state = F_WARP, f.mask = mask, f.op = op, f.src = src, f.value = value, f.pred = pred;
    f.site = site;
    bool all_here = true;
    for (int l = 0; l < 32 && all_here; l++)
        if (group >> l & 1)
            all_here = lanes[l].state == F_WARP && lanes[l].op != Coalesce && same_site(lanes[l].site, site);
    if (all_here) release_warp(w, warp, group);
    yield(w);
    return f.result;
}

SIM_UNTRACED inline unsigned active_mask() {
    Worker *w = current_worker();
    if (w->plain) return 0xffffffffu;
    int warp = w->current / 32;
    unsigned m = 0;
    for (int l = 0; l < 32 && warp * 32 + l < w->nfibers; l++)
        if (w->fibers[warp * 32 + l].state != F_DONE) m |= 1u << l;
    return m;
}

inline void sync_warp(Site site, unsigned mask = 0xffffffffu) { warp_meet(site, mask, SyncWarp, 0, 0, 0); }
inline void warp_task(Site site, unsigned mask, WarpTask *part) {
    warp_meet(site, mask, Task, 0, (uint64_t)(uintptr_t)part, 0);
}

template <typename T>
inline T shfl(Site site, unsigned mask, T var, int kind, int arg, int width = 32) {
    static_assert(sizeof(T) <= 8, "__shfl_*_sync takes values of at most 8 bytes");
    // PTX's shfl.sync, as CUDA's headers call it: only the low 5 bits of the lane or offset count
    // (an offset of 33 is one of 1), width w makes segmask 32 - w, and the source lane j is kept
    // only where it lies within the bound, else the lane reads its own value. So an xor may reach
    // across a segment, as on a GPU (tests/kernels/test_shuffle_lanes.py: an H100's lanes).
    Worker *w = current_worker();
    int lane = w->current % 32, b = arg & 31, segmask = (32 - width) & 31;
    int cval = kind == ShflUp ? 0 : 31, bound = (lane & segmask) | (cval & ~segmask), src;
    switch (kind) {
        case ShflIdx: src = (lane & segmask) | (b & ~segmask); break;
        case ShflUp: src = lane - b >= bound ? lane - b : lane; break;
        case ShflDown: src = lane + b <= bound ? lane + b : lane; break;
        default: src = (lane ^ b) <= bound ? (lane ^ b) : lane; break;
    }
    if (kind == ShflIdx && src > bound) src = lane;
    uint64_t bits = 0;
    memcpy(&bits, &var, sizeof(T));
    bits = warp_meet(site, mask, kind, src, bits, 0);
    T out;
    memcpy(&out, &bits, sizeof(T));
    return out;
}

// ---- coalesced_threads(): the lanes of a warp that arrive together --------------------------------
// On a GPU the lanes that take a branch run it together, and cooperative_groups'
// coalesced_threads() there names exactly them. The simulator's lanes are fibers with no branch
// in common, so a lane that asks waits at the call until the rest of its warp cannot come
// (each lane has exited or waits elsewhere): the lanes waiting at the same call then form the
// group. The whole warp, when it all arrives, goes on at once; otherwise the block runner asks
// (release_coalesced) when no thread of the block can run.
SIM_UNTRACED inline void release_coalesced_lanes(Fiber *lanes, unsigned group) {
    for (int l = 0; l < 32; l++)
        if (group >> l & 1) lanes[l].result = group, lanes[l].state = F_RUN;
}

inline bool coalescing_at(const Fiber &f, const Site &site) {
    return f.state == F_WARP && f.op == Coalesce && same_site(f.site, site);
}

SIM_UNTRACED inline unsigned coalesce(Site site) {
    Worker *w = current_worker();
    if (!SIM_FIBERS || w->plain) no_fibers(w, site);
    int warp = w->current / 32;
    Fiber *lanes = w->fibers + warp * 32;
    Fiber &f = lanes[w->current % 32];
    f.state = F_WARP, f.op = Coalesce, f.site = site, f.mask = 0, f.pred = 0;
    unsigned live = lanes_in_warp(w, warp), here = 0;
    bool everyone = true;
    for (int l = 0; l < 32; l++) {
        if (!(live >> l & 1) || lanes[l].state == F_DONE) continue;
        if (coalescing_at(lanes[l], site)) here |= 1u << l;
        else everyone = false;
    }
    if (everyone) release_coalesced_lanes(lanes, here);
    yield(w);
    return (unsigned)f.result;
}

// No thread of the block can run: in each warp, the lanes waiting in coalesced_threads() at the
// call of its first such lane go on as one group. False when no lane waits there.
SIM_UNTRACED inline bool release_coalesced(Worker *w) {
    int first = -1;
    for (int warp = 0; warp * 32 < w->nfibers; warp++) {
        Fiber *lanes = w->fibers + warp * 32;
        unsigned live = lanes_in_warp(w, warp), group = 0;
        const Site *site = nullptr;
        for (int l = 0; l < 32; l++) {
            if (!(live >> l & 1) || lanes[l].state != F_WARP || lanes[l].op != Coalesce) continue;
            if (!site) site = &lanes[l].site;
            if (same_site(lanes[l].site, *site)) group |= 1u << l;
        }
        if (!group) continue;
        release_coalesced_lanes(lanes, group);
        if (first < 0) first = warp * 32 + __builtin_ctz(group);
    }
    if (first >= 0) w->current = first;
    return first >= 0;
}

inline unsigned vote(Site site, unsigned mask, int pred, int kind) {
    return (unsigned)warp_meet(site, mask, kind, 0, 0, pred != 0);
}

inline uint64_t warp_collective(Site site, unsigned mask, uint64_t value, int kind) {
    return warp_meet(site, mask, Collective, kind, value, 0);
}

}  // namespace sim

#pragma GCC visibility pop
