// sim_runtime.h -- executes a grid on the CPU.
//
// Blocks are shared out to worker threads. Within a block, a module that never uses a barrier or
// a warp function runs each block as a plain loop over its threads. A module that uses them runs
// each thread of a block as a fiber (its own stack, switched by a few instructions) so that a
// thread can stop at __syncthreads() and let the others catch up, as on a GPU.
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
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "sim_types.h"

// Fibers switch stacks with a few instructions of assembly on Linux x86-64 and Arm64, and with
// the C library's (slower) swapcontext elsewhere, or when built with -DSIM_UCONTEXT.
#if !defined(SIM_UCONTEXT) && !(defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)))
#define SIM_UCONTEXT 1
#endif
#ifdef SIM_UCONTEXT
#include <ucontext.h>
#endif

#ifndef SIM_FIBERS
#define SIM_FIBERS 0  // the compiler driver sets 1 when the module uses barriers or warp functions
#endif

#define SIM_EXPORT extern "C" __attribute__((visibility("default")))

#pragma GCC visibility push(hidden)

namespace sim {

// ---- what a launch reports to Python (helpers/sim/module.py mirrors these; sim_launch.h exports
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
};
// The names Python knows the statuses by, in the enum's order.
inline const char *const kStatusNames[] = {"OK", "FAULT", "ASSERT", "BARRIER", "WARP",
                                           "INTERRUPTED", "ARITHMETIC", "STACK", "ABORT", "BOUNDS"};
static_assert(sizeof kStatusNames / sizeof kStatusNames[0] == BOUNDS + 1, "a status without a name");

struct Error {
    int32_t status;
    uint32_t block[3], thread[3];
    int32_t is_write;  // 1 write, 0 read, -1 unknown
    uint64_t address;  // the faulting address, for FAULT
    const char *file;
    int64_t line;
    const char *file2;  // the other barrier's site, for BARRIER
    int64_t line2;
    char text[256];
};

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
    void (*run_block_plain_reversed)(void *tuple);  // the same, last thread first
    const void *address;  // the kernel itself: its symbol is the name get_function takes
};

// ---- fibers ---------------------------------------------------------------------------------------
enum FiberState : uint8_t { F_RUN, F_BLOCK, F_WARP, F_DONE };

struct Site {  // a call site of a barrier or warp function
    const char *file;
    int line, id;
};

struct Fiber {
    void *sp;
    uint8_t state;
    Site site;         // where it waits
    int pred;          // contribution to __syncthreads_count/and/or and to votes
    unsigned mask;     // warp function: the lanes it names
    int op;            // warp function: which one
    int src;           // shuffle: the lane it reads
    uint64_t value;    // shuffle: the value it offers
    uint64_t result;   // what it gets back
#ifdef SIM_UCONTEXT
    ucontext_t ctx;
#endif
};

struct Launch;

struct Worker {
    Launch *launch = nullptr;
    sigjmp_buf escape;  // where a fault or a cancel returns to, on the worker's own stack
    volatile sig_atomic_t in_kernel = 0;
    volatile sig_atomic_t in_stdio = 0;
    volatile sig_atomic_t cancel_pending = 0;
    Error err{};
    uint3 block{};
    bool plain = true;  // one fiber runs the block's threads in a loop
    bool reverse = false;  // run blocks and threads in the opposite order (race check)
    // the fibers of the block being run
    Fiber *fibers = nullptr;
    int nfibers = 0, current = -1, live = 0, at_barrier = 0;
    Site barrier{};
    bool barrier_reduces = false;  // __syncthreads_count/and/or: count the predicates
    void *scheduler_sp = nullptr;
    char *stacks = nullptr;  // stack i spans [stacks + i*kStackSize, +kStackSize), guard page first
    int nstacks = 0;
    char *dynamic_shared = nullptr, *dynamic_shared_end = nullptr;
#ifdef SIM_UCONTEXT
    ucontext_t scheduler_ctx;
#endif
};

inline thread_local Worker *worker = nullptr;  // for the signal handler and printf

inline Frame *frame_of(Worker *w, int i) { return frame_at((uintptr_t)(w->stacks + (size_t)i * kStackSize)); }

inline void copy_text(char *dst, const char *src) {
    strncpy(dst, src, sizeof(Error::text) - 1);
    dst[sizeof(Error::text) - 1] = 0;
}

// Ends the launch from wherever the worker is (a fiber, the scheduler, a signal handler).
[[noreturn]] inline void escape_with(Worker *w, int status) {
    w->err.status = status;
    uint3 t = w->current >= 0 ? frame_of(w, w->current)->thread : uint3{0, 0, 0};
    memcpy(w->err.block, &w->block, sizeof w->err.block);
    memcpy(w->err.thread, &t, sizeof w->err.thread);
    siglongjmp(w->escape, 1);
}

[[noreturn]] inline void fail_at(Worker *w, int status, Site site, const char *text) {
    w->err.file = site.file;
    w->err.line = site.line;
    copy_text(w->err.text, text);
    escape_with(w, status);
}

[[noreturn]] inline void fail_assert(const char *expr, const char *file, int line) {
    fail_at(frame()->worker, ASSERT, Site{file, line, 0}, expr);
}

// Kernel printf: the C library's, kept safe from a cancel arriving while stdio holds its lock.
inline int device_vprintf(const char *fmt, va_list ap) {
    Worker *w = worker;
    if (w) w->in_stdio = 1;
    int n = vprintf(fmt, ap);
    if (w) w->in_stdio = 0;
    if (w && w->cancel_pending) escape_with(w, INTERRUPTED);
    return n;
}

inline void *dynamic_shared() { return frame()->worker->dynamic_shared; }

// ---- switching stacks -----------------------------------------------------------------------------
#ifndef SIM_UCONTEXT
extern "C" void sim_switch_stack(void **save_sp, void *new_sp);
#if defined(__x86_64__)
asm(R"(
    .text
    .p2align 4
    .hidden sim_switch_stack
    .type sim_switch_stack, @function
sim_switch_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size sim_switch_stack, .-sim_switch_stack
)");
// A new stack: six saved registers, then the entry point that the first switch returns into.
inline void *prepare_stack(char *top, void (*entry)()) {
    uint64_t *sp = (uint64_t *)((uintptr_t)top & ~(uintptr_t)15) - 8;
    for (int i = 0; i < 6; i++) sp[i] = 0;
    sp[6] = (uint64_t)entry;
    sp[7] = 0;
    return sp;
}
#else  // __aarch64__
asm(R"(
    .text
    .p2align 4
    .hidden sim_switch_stack
    .type sim_switch_stack, %function
sim_switch_stack:
    sub sp, sp, #176
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x2, sp
    str x2, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #176
    ret
    .size sim_switch_stack, .-sim_switch_stack
)");
inline void *prepare_stack(char *top, void (*entry)()) {
    uint64_t *sp = (uint64_t *)((uintptr_t)top & ~(uintptr_t)15) - 22;
    for (int i = 0; i < 22; i++) sp[i] = 0;
    sp[11] = (uint64_t)entry;  // x30, the link register that ret jumps to
    return sp;
}
#endif
#endif

inline void fiber_main();

// The calling fiber waits (or has finished): run the next fiber that can run, in thread order,
// or go back to the scheduler when none can.
inline void yield(Worker *w) {
    int me = w->current, n = w->nfibers, next = -1, step = w->reverse ? n - 1 : 1;
    int after = me + step < n ? me + step : me + step - n;
    if (w->fibers[after].state == F_RUN) next = after;  // the usual case: the next thread
    else for (int k = 1, i = me; k <= n; k++) {
        i = i + step < n ? i + step : i + step - n;
        if (w->fibers[i].state == F_RUN) {
            next = i;
            break;
        }
    }
    if (next == me) return;  // its own arrival released it
    w->current = next;
#ifdef SIM_UCONTEXT
    swapcontext(&w->fibers[me].ctx, next < 0 ? &w->scheduler_ctx : &w->fibers[next].ctx);
#else
    sim_switch_stack(&w->fibers[me].sp, next < 0 ? w->scheduler_sp : w->fibers[next].sp);
#endif
}

// ---- barriers ---------------------------------------------------------------------------------
// Everyone has arrived: each waiting thread gets the block's count/and/or of the predicates
// (for __syncthreads_count and friends) and goes on.
inline void release_block_barrier(Worker *w) {
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

[[noreturn]] inline void no_fibers(Worker *w, Site site) {
    fail_at(w, BARRIER, site, "internal: barrier or warp function in a module built without fibers");
}

// A thread arrives at __syncthreads(): it waits until every thread of the block that has not
// exited arrives too. Threads waiting at two different __syncthreads() are an error.
inline int block_barrier(Site site, int pred, int reduce) {
    Worker *w = frame()->worker;
    if (!SIM_FIBERS) no_fibers(w, site);
    if (w->at_barrier > 0 && !same_site(w->barrier, site)) {
        w->err.file2 = w->barrier.file;
        w->err.line2 = w->barrier.line;
        fail_at(w, BARRIER, site, "threads of one block wait at different __syncthreads()");
    }
    if (w->at_barrier == 0) w->barrier = site, w->barrier_reduces = reduce >= 0;
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
    Worker *w = frame()->worker;
    if (!w->plain) yield(w);
}
inline int sync_block_reduce(Site site, int pred, int reduce) { return block_barrier(site, pred, reduce); }

// ---- warp functions -----------------------------------------------------------------------------
enum ShflKind { ShflIdx, ShflUp, ShflDown, ShflXor, SyncWarp, VoteBallot, VoteAny, VoteAll, VoteUni,
                Collective };
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

// The lanes named by the mask have all arrived: each gets its result, and all go on.
inline void release_warp(Worker *w, int warp, unsigned group) {
    Fiber *lanes = w->fibers + warp * 32;
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
            case SyncWarp: f.result = 0; break;
            case Collective: f.result = collective_result(lanes, group, l, f.src); break;
            default: {
                int s = f.src;
                f.result = (s >= 0 && s < 32 && (group >> s & 1)) ? lanes[s].value : f.value;
            }
        }
        f.state = F_RUN;
    }
}

inline uint64_t warp_meet(Site site, unsigned mask, int op, int src, uint64_t value, int pred) {
    Worker *w = frame()->worker;
    if (!SIM_FIBERS) no_fibers(w, site);
    int me = w->current, warp = me / 32, lane = me % 32;
    Fiber *lanes = w->fibers + warp * 32;
    unsigned group = mask & lanes_in_warp(w, warp);
    if (!(group >> lane & 1)) fail_at(w, WARP, site, "the mask does not name the calling lane");
    for (int l = 0; l < 32; l++)
        if ((group >> l & 1) && lanes[l].state == F_DONE) {
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
        if (group >> l & 1) all_here = lanes[l].state == F_WARP && same_site(lanes[l].site, site);
    if (all_here) release_warp(w, warp, group);
    yield(w);
    return f.result;
}

inline unsigned active_mask() {
    Worker *w = frame()->worker;
    if (w->plain) return 0xffffffffu;
    int warp = w->current / 32;
    unsigned m = 0;
    for (int l = 0; l < 32 && warp * 32 + l < w->nfibers; l++)
        if (w->fibers[warp * 32 + l].state != F_DONE) m |= 1u << l;
    return m;
}

inline void sync_warp(Site site, unsigned mask = 0xffffffffu) { warp_meet(site, mask, SyncWarp, 0, 0, 0); }

template <typename T>
inline T shfl(Site site, unsigned mask, T var, int kind, int arg, int width = 32) {
    static_assert(sizeof(T) <= 8, "__shfl_*_sync takes values of at most 8 bytes");
    Worker *w = frame()->worker;
    int lane = w->current % 32, base = lane & ~(width - 1), src;
    switch (kind) {
        case ShflIdx: src = base + (arg & (width - 1)); break;
        case ShflUp: src = lane - arg >= base ? lane - arg : lane; break;
        case ShflDown: src = lane + arg < base + width ? lane + arg : lane; break;
        default: src = (lane ^ arg) < base + width ? (lane ^ arg) : lane; break;
    }
    uint64_t bits = 0;
    memcpy(&bits, &var, sizeof(T));
    bits = warp_meet(site, mask, kind, src, bits, 0);
    T out;
    memcpy(&out, &bits, sizeof(T));
    return out;
}

inline unsigned vote(Site site, unsigned mask, int pred, int kind) {
    return (unsigned)warp_meet(site, mask, kind, 0, 0, pred != 0);
}

inline uint64_t warp_collective(Site site, unsigned mask, uint64_t value, int kind) {
    return warp_meet(site, mask, Collective, kind, value, 0);
}

// ---- a launch -------------------------------------------------------------------------------------
struct Launch {
    const KernelEntry *kernel;
    void *args;
    dim3 grid, block;
    size_t shared;
    long nblocks;
    bool reverse;  // blocks and threads in the opposite order, for the race check
    std::atomic<long> next_block{0};
    std::atomic<int> stop{0};
    std::mutex mu;
    std::condition_variable done_cv;
    int running = 0;
    Error err{};  // the first error any worker met
    std::vector<std::thread> threads;
    struct sigaction old_segv, old_bus, old_fpe, old_abrt, old_ill, old_usr2;
};

inline void fiber_main() {
    Worker *w = frame()->worker;
    if (w->plain && w->reverse) w->launch->kernel->run_block_plain_reversed(w->launch->args);
    else if (w->plain) w->launch->kernel->run_block_plain(w->launch->args);
    else w->launch->kernel->run_thread(w->launch->args);
    w->fibers[w->current].state = F_DONE;
    w->live--;
    if (w->at_barrier > 0 && w->at_barrier == w->live) release_block_barrier(w);
    yield(w);
    __builtin_unreachable();
}

#ifdef SIM_UCONTEXT
inline void fiber_trampoline() { fiber_main(); }
#endif

// Stacks outlive a launch: mapping them and setting their guard pages costs more than a small
// launch. Launches run one at a time (helpers/sim/launch.py), so worker i always owns pool i.
struct StackPool {
    char *mapping = nullptr, *stacks = nullptr;
    size_t bytes = 0;
    int n = 0;
};
constexpr int kPools = 64;
inline StackPool stack_pools[kPools];

// n stacks of kStackSize bytes, each aligned to kStackSize and with a guard page at its bottom.
inline void ensure_stacks(Worker *w, int index, int n) {
    StackPool &pool = stack_pools[index % kPools];
    if (pool.n < n) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        if (pool.mapping) munmap(pool.mapping, pool.bytes);
        pool.bytes = (size_t)(n + 1) * kStackSize;
        pool.mapping = (char *)mmap(nullptr, pool.bytes, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        pool.stacks = (char *)(((uintptr_t)pool.mapping + kStackSize - 1) & ~(kStackSize - 1));
        for (int i = 0; i < n; i++) mprotect(pool.stacks + (size_t)i * kStackSize, page, PROT_NONE);
        pool.n = n;
    }
    w->stacks = pool.stacks;
    w->nstacks = pool.n;
}

// Once a launch: each thread's Frame gets what does not change from block to block.
inline void prepare_frames(Worker *w, int index) {
    Launch *L = w->launch;
    const dim3 &bd = L->block;
    int n = w->plain ? 1 : (int)(bd.x * bd.y * bd.z);
    ensure_stacks(w, index, n);
    for (int i = 0; i < n; i++) {
        Frame *fr = frame_of(w, i);
        fr->thread = uint3{(unsigned)(i % bd.x), (unsigned)(i / bd.x % bd.y), (unsigned)(i / (bd.x * bd.y))};
        fr->block_dim = uint3{bd.x, bd.y, bd.z};
        fr->grid_dim = uint3{L->grid.x, L->grid.y, L->grid.z};
        fr->worker = w;
    }
    w->nfibers = n;
}

// Runs the current block: one fiber per thread, or (plain) one fiber looping over the threads.
inline void run_block(Worker *w) {
    int n = w->nfibers;
    for (int i = 0; i < n; i++) {
        Fiber &f = w->fibers[i];
        f.state = F_RUN;
        f.pred = 0;
        Frame *fr = frame_of(w, i);
        fr->block = w->block;
        char *top = (char *)((uintptr_t)fr & ~(uintptr_t)15);
#ifdef SIM_UCONTEXT
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = w->stacks + (size_t)i * kStackSize + sysconf(_SC_PAGESIZE);
        f.ctx.uc_stack.ss_size = top - (char *)f.ctx.uc_stack.ss_sp;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, fiber_trampoline, 0);
#else
        f.sp = prepare_stack(top, fiber_main);
#endif
    }
    int first = w->reverse ? n - 1 : 0;
    w->live = n, w->at_barrier = 0, w->current = first;
#ifdef SIM_UCONTEXT
    swapcontext(&w->scheduler_ctx, &w->fibers[first].ctx);
#else
    sim_switch_stack(&w->scheduler_sp, w->fibers[first].sp);
#endif
    if (w->live == 0) return;
    // Every thread left is waiting, and none can release the others.
    int blocked = -1, warped = -1;
    for (int i = 0; i < n; i++) {
        if (w->fibers[i].state == F_BLOCK && blocked < 0) blocked = i;
        if (w->fibers[i].state == F_WARP && warped < 0) warped = i;
    }
    int culprit = warped >= 0 ? warped : blocked;
    w->current = culprit;
    if (blocked >= 0 && warped >= 0) {
        w->err.file2 = w->fibers[blocked].site.file;
        w->err.line2 = w->fibers[blocked].site.line;
    }
    fail_at(w, warped >= 0 ? WARP : BARRIER, w->fibers[culprit].site,
            warped >= 0 ? "lanes wait in a warp function for lanes that never arrive"
                        : "threads wait at a barrier that the others never reach");
}

inline uintptr_t stack_pointer(void *ctx) {
#if defined(__linux__) && defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RSP];
#elif defined(__linux__) && defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.sp;
#else
    (void)ctx;
    return 0;
#endif
}

inline void on_signal(int sig, siginfo_t *si, void *ctx) {
    Worker *w = worker;
    Launch *L = w ? w->launch : nullptr;
    if (!w || !w->in_kernel) {
        if (sig == SIGUSR2) return;
        // Not ours: put back the handler that was there before and let the fault happen again.
        struct sigaction *old = !L ? nullptr : sig == SIGSEGV ? &L->old_segv : sig == SIGBUS ? &L->old_bus
                              : sig == SIGFPE ? &L->old_fpe : sig == SIGILL ? &L->old_ill : &L->old_abrt;
        if (old) sigaction(sig, old, nullptr);
        else signal(sig, SIG_DFL);
        return;
    }
    if (sig == SIGUSR2) {
        if (w->in_stdio) {
            w->cancel_pending = 1;
            return;
        }
        escape_with(w, INTERRUPTED);
    }
    w->err.address = (uint64_t)(uintptr_t)si->si_addr;
    w->err.is_write = -1;
#if defined(__x86_64__) && defined(__linux__)
    if (sig == SIGSEGV) w->err.is_write = (((ucontext_t *)ctx)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#else
    (void)ctx;
#endif
    int status = sig == SIGFPE ? ARITHMETIC : sig == SIGABRT ? ABORT : FAULT;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (sig == SIGSEGV && w->stacks && w->current >= 0) {
        // The thread's stack pointer (or the address) has left its stack: large local arrays.
        uintptr_t base = (uintptr_t)w->stacks + (size_t)w->current * kStackSize;
        uintptr_t sp = stack_pointer(ctx);
        if ((sp && sp < base + (uintptr_t)sysconf(_SC_PAGESIZE)) ||
            (a >= base && a < base + (uintptr_t)sysconf(_SC_PAGESIZE)))
            status = STACK;
    }
    if (sig == SIGSEGV && a >= (uintptr_t)w->dynamic_shared_end &&
        a < (uintptr_t)w->dynamic_shared_end + (size_t)sysconf(_SC_PAGESIZE))
        copy_text(w->err.text, "dynamic shared memory");
    if (sig == SIGILL) status = ASSERT, copy_text(w->err.text, "illegal instruction (__builtin_trap)");
    escape_with(w, status);
}

inline void worker_main(Launch *L, int index) {
    Worker w;
    w.launch = L;
    w.plain = !SIM_FIBERS;
    w.reverse = L->reverse;
    worker = &w;
    sigset_t block_int;
    sigemptyset(&block_int);
    sigaddset(&block_int, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block_int, nullptr);
    std::vector<char> altstack(1 << 16);
    stack_t ss{};
    ss.ss_sp = altstack.data();
    ss.ss_size = altstack.size();
    sigaltstack(&ss, nullptr);
    std::vector<Fiber> fibers(w.plain ? 1 : L->block.x * L->block.y * L->block.z);
    w.fibers = fibers.data();
    // Dynamic shared memory: the launch's shared= bytes, ending against a guard page.
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (L->shared + 15) & ~(size_t)15;
    size_t arena_bytes = (span + page - 1) / page * page + page;
    char *arena = (char *)mmap(nullptr, arena_bytes, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(arena + arena_bytes - page, page, PROT_NONE);
    w.dynamic_shared = arena + arena_bytes - page - span;
    w.dynamic_shared_end = arena + arena_bytes - page;
    prepare_frames(&w, index);
    if (sigsetjmp(w.escape, 1) == 0) {
        long gx = L->grid.x, gy = L->grid.y;
        for (;;) {
            if (L->stop.load(std::memory_order_relaxed)) break;
            long b = L->next_block.fetch_add(1);
            if (b >= L->nblocks) break;
            if (L->reverse) b = L->nblocks - 1 - b;
            w.block = uint3{(unsigned)(b % gx), (unsigned)(b / gx % gy), (unsigned)(b / (gx * gy))};
            w.in_kernel = 1;
            run_block(&w);
            w.in_kernel = 0;
        }
    } else {
        w.in_kernel = 0;
        std::lock_guard<std::mutex> g(L->mu);
        if (L->err.status == OK || L->err.status == INTERRUPTED) L->err = w.err;
        L->stop = 1;
    }
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    munmap(arena, arena_bytes);
    worker = nullptr;
    fflush(stdout);
    std::lock_guard<std::mutex> g(L->mu);
    if (--L->running == 0) L->done_cv.notify_all();
}

inline void install_handlers(Launch *L) {
    struct sigaction sa{};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &L->old_segv);
    sigaction(SIGBUS, &sa, &L->old_bus);
    sigaction(SIGFPE, &sa, &L->old_fpe);
    sigaction(SIGABRT, &sa, &L->old_abrt);
    sigaction(SIGILL, &sa, &L->old_ill);
    sigaction(SIGUSR2, &sa, &L->old_usr2);
}

inline void restore_handlers(Launch *L) {
    sigaction(SIGSEGV, &L->old_segv, nullptr);
    sigaction(SIGBUS, &L->old_bus, nullptr);
    sigaction(SIGFPE, &L->old_fpe, nullptr);
    sigaction(SIGABRT, &L->old_abrt, nullptr);
    sigaction(SIGILL, &L->old_ill, nullptr);
    sigaction(SIGUSR2, &L->old_usr2, nullptr);
}

}  // namespace sim

// GCC's -fsanitize=bounds calls this when an index runs past a fixed-size array: report the
// file and line instead of linking the sanitizer's runtime.
struct SimSourceLocation {
    const char *file;
    uint32_t line, column;
};
extern "C" __attribute__((noreturn)) void __ubsan_handle_out_of_bounds(void *data, void *index) {
    (void)index;
    auto *loc = (SimSourceLocation *)data;
    sim::fail_at(sim::frame()->worker, sim::BOUNDS, sim::Site{loc->file, (int)loc->line, 0},
                 "an index past the end of a fixed-size array");
}
extern "C" __attribute__((noreturn)) void __ubsan_handle_out_of_bounds_abort(void *data, void *index) {
    __ubsan_handle_out_of_bounds(data, index);
}

#pragma GCC visibility pop
