// sim_grid.h -- runs a grid: blocks shared out to worker threads, each block's threads as a loop or
// as fibers. Kernels never call into it: it is compiled on its own (sim_grid.cpp), once for each
// kind of module (compile/prebuilt.py), and linked into every module of that kind, so that no
// macro of the learner's can reach it and no module compiles it again.
//
// Python (run/launch.py) hands a launch the stacks its workers use (machine/stacks.py:
// made once, shared by every module) and, when it is looking for the thread that wrote past the end
// of an array, the bytes to watch. Anything the runtime must get from the system (threads, the
// dynamic shared memory of each worker) is checked: when it cannot be had, the launch ends with
// RESOURCES, never an exception through the C boundary or an abort.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>  // malloc and free, for the kernels' heap (GCC 13's <thread> no longer brings it)
#include <chrono>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "sim_runtime.h"

#pragma GCC visibility push(hidden)
namespace sim {

struct Launch {
    const KernelEntry *kernel;
    void *args;
    dim3 grid, block;
    size_t shared;
    long nblocks;
    long chunk;    // blocks a worker claims at once (sim_launch_start)
    bool watch;    // one worker, checking after every thread (a search for an overrun's culprit)
    char *const *stacks;  // stacks[i]: worker i's first stack slot
    // watch mode (one worker): these bytes, and what they held at the start, checked whenever a
    // thread stops; the first thread that changed them is the one that wrote past an array's end
    std::vector<std::pair<unsigned char *, std::vector<unsigned char>>> watched;
    // and, on x86-64 Linux, the pages that hold them made read-only, so that the write itself
    // faults and names its instruction (sim_signals.h: watch_fault)
    std::vector<uintptr_t> watch_pages;
    std::atomic<long> next_block{0};
    std::atomic<int> stop{0};      // no block is started any more (a cancel, or no resources)
    std::atomic<long> stop_before{LONG_MAX};  // no block from this one on is started: it failed
    std::mutex mu;
    std::condition_variable done_cv;
    int running = 0;
    Error err{};  // the error of the lowest block that failed (record_error)
    long err_block = LONG_MAX;  // that block's linear index; -1 for an error of the whole launch
    std::vector<std::thread> threads;
    struct sigaction old_segv, old_bus, old_fpe, old_abrt, old_ill, old_usr2, old_trap;
};

}  // namespace sim
#pragma GCC visibility pop

#include "sim_signals.h"

#pragma GCC visibility push(hidden)
namespace sim {

// ---- canaries: what the bytes around a launch's dynamic shared memory hold --------------------
// The same four bytes as machine/memory.py's (NaN as a float or a double), repeated with the
// address's period.
constexpr unsigned char kCanary[4] = {0xA5, 0xFE, 0xFF, 0xFF};

inline void arm_canary(unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = kCanary[(uintptr_t)(p + i) & 3];
}

// ---- shared memory as a GPU leaves it: not zeroed -------------------------------------------------
// Before each block the learner's __shared__ arrays (thread-locals of the module, at the offsets
// from sim::worker's that sim_set_shared gives, compile/module.py) and the launch's
// dynamic shared memory are filled with bytes FF 7F repeated by address: NaN as a float, a double
// or a half, 0x7FFF7FFF as an int. A read of an element no thread of the block wrote gives that,
// not the zero a fresh thread's memory holds.
constexpr uint64_t kUninitialised = 0x7FFF7FFF7FFF7FFFull;
inline std::vector<std::pair<int64_t, uint64_t>> shared_variables;

inline void fill_uninitialised(unsigned char *p, size_t n) {
    size_t i = 0;
    for (; i < n && ((uintptr_t)(p + i) & 7); i++) p[i] = ((uintptr_t)(p + i) & 1) ? 0x7F : 0xFF;
    for (; i + 8 <= n; i += 8) memcpy(p + i, &kUninitialised, 8);
    for (; i < n; i++) p[i] = ((uintptr_t)(p + i) & 1) ? 0x7F : 0xFF;
}

inline void fill_shared(Worker *w) {
    auto *base = (unsigned char *)&worker;
    for (auto &v : shared_variables) fill_uninitialised(base + v.first, v.second);
    if (w->dynamic_shared_bytes) fill_uninitialised((unsigned char *)w->dynamic_shared, w->dynamic_shared_bytes);
    for (ThreadCopies &t : w->copies) t.forget();  // a copy of the last block never waited for
}

inline ThreadCopies &copies_of(unsigned thread, unsigned threads) {
    host_vector<ThreadCopies> &all = current_worker()->copies;
    if (all.empty()) all.resize(threads);
    return all[thread];
}
void ask_copy(unsigned thread, unsigned threads, const CopyInFlight &c) {
    ThreadCopies &t = copies_of(thread, threads);
    t.asked.push_back(c);
    t.asked.back().batch = t.committed;
}
void commit_copies(unsigned thread, unsigned threads) { copies_of(thread, threads).committed++; }

int device_vprintf(const char *fmt, va_list ap) {  // sim_runtime.h's kernel printf
    Worker *w = worker;
    if (w && w->quiet) return 0;
    hold_cancel(w);
    int n = vprintf(fmt, ap);
    release_cancel(w);
    return n;
}
bool next_copy_due(unsigned thread, unsigned threads, size_t prior, CopyInFlight &c) {
    ThreadCopies &t = copies_of(thread, threads);
    if (t.landed == t.asked.size() || t.asked[t.landed].batch + prior >= t.committed) return false;
    c = t.asked[t.landed++];
    if (t.landed == t.asked.size()) t.asked.clear(), t.landed = 0;
    return true;
}

inline unsigned char *broken_canary(unsigned char *p, size_t n) {
    const uint64_t word = 0xFFFFFEA5FFFFFEA5ull;  // kCanary twice, as an aligned word reads it
    size_t i = 0;
    for (; i < n && ((uintptr_t)(p + i) & 7); i++)
        if (p[i] != kCanary[(uintptr_t)(p + i) & 3]) return p + i;
    for (; i + 8 <= n && *(const uint64_t *)(p + i) == word; i += 8) {
    }
    for (; i < n; i++)
        if (p[i] != kCanary[(uintptr_t)(p + i) & 3]) return p + i;
    return nullptr;
}

[[noreturn]] inline void report_write_at(Worker *w, int status, unsigned char *where) {
    w->err.address = (uint64_t)(uintptr_t)where;
    w->err.is_write = 1;
    escape_with(w, status);
}

// The block has written outside its dynamic shared memory (below it or past the shared= bytes).
inline void check_dynamic_shared(Worker *w, int status) {
    auto *floor = (unsigned char *)w->dynamic_shared_floor, *start = (unsigned char *)w->dynamic_shared;
    auto *end = (unsigned char *)w->dynamic_shared_end, *past = start + w->dynamic_shared_bytes;
    unsigned char *bad = broken_canary(floor, start - floor);
    if (!bad) bad = broken_canary(past, end - past);
    if (bad) {
        note_dynamic_shared(w, (uintptr_t)bad);
        report_write_at(w, status, bad);
    }
}

// A split kernel's per-thread storage (sim_split.h): the worker's, grown as a block needs.
void *split_storage(Worker *w, size_t bytes) {
    if (w->split.size() < bytes) w->split.resize(bytes);
    return w->split.data();
}

// Called (in watch mode) whenever a thread stops: the thread that has just run changed a watched
// byte, or the canary around the dynamic shared memory, if anything changed.
void check_watch(Worker *w) {
    for (auto &range : w->launch->watched)
        for (size_t i = 0; i < range.second.size(); i++)
            if (range.first[i] != range.second[i]) report_write_at(w, FAULT, range.first + i);
    check_dynamic_shared(w, FAULT);
}

// ---- running a block --------------------------------------------------------------------------------
// The worker's next block (w->block), or false when none is left or the launch is stopping.
// Blocks are claimed L->chunk at a time: each claim is an atomic that the workers share. The
// blocks of a claim follow each other, x first: the first one's index is worked out by division,
// the others' by counting on (three 64-bit divisions a block cost as much as the rest of a claim).
inline bool claim_block(Worker *w, Launch *L) {
    // Marked first: a cancel (SIGUSR2) that came between the test of stop and the mark would be
    // let pass, and the worker would run its next block, endless or not.
    w->in_kernel = 1;
    if (L->stop.load(std::memory_order_relaxed)) return false;
    if (w->claimed == w->claimed_end) {
        long b = L->next_block.fetch_add(L->chunk, std::memory_order_relaxed);
        if (b >= L->nblocks) return false;
        w->claimed = b, w->claimed_end = std::min(b + L->chunk, L->nblocks);
        long gx = L->grid.x, gy = L->grid.y;
        w->block = uint3{(unsigned)(b % gx), (unsigned)(b / gx % gy), (unsigned)(b / (gx * gy))};
    } else if (++w->block.x == L->grid.x) {
        w->block.x = 0;
        if (++w->block.y == L->grid.y) w->block.y = 0, w->block.z++;
    }
    if (w->claimed >= L->stop_before.load(std::memory_order_relaxed)) return false;
    w->claimed++;
    return true;
}

// A thread's write past the end of a local array may run up its stack over its Frame without
// faulting: the launch stops when the thread (or, on a loop, the block) ends, before the runtime
// reads anything more from the Frame (the worker found in the thread-local, not in the Frame).
inline void check_frame(int i) {
    Worker *w = worker;
    if (__builtin_expect(!frame_intact(w, i), 0)) {
        w->current = i;
        escape_with(w, FAULT);
    }
}

// A module without fibers: one fiber runs block after block, each as a loop over its threads,
// and goes back to the worker's own stack when no block is left (a switch a worker, not one a
// block). After each block the canary around its dynamic shared memory is checked.
inline void plain_main() {
    Worker *w = current_worker();
    Launch *L = w->launch;
    Frame *f = frame();
    const KernelEntry *k = L->kernel;
    void *args = L->args;
    do {
        f->block = w->block;
        fill_shared(w);
        if (w->watching) k->run_block_plain_watched(args);
        else k->run_block_plain(args);
        check_frame(0);
        if (w->dynamic_shared_bytes) {
            w->current = -1;  // which thread did it is found by running the launch again, watched
            check_dynamic_shared(w, OVERRUN);
            w->current = 0;
        }
    } while (claim_block(w, L));
    w->fibers[0].state = F_DONE;
    w->live = 0;
    switch_context(&w->fibers[0].ctx, &w->scheduler, w);
    __builtin_unreachable();
}

inline void fiber_main() {
    Worker *w = current_worker();
    frame()->block = w->block;  // here, not in run_block: the thread's stack is touched once
    w->launch->kernel->run_thread(w->launch->args);
    check_frame(w->current);
    w->fibers[w->current].state = F_DONE;
    w->live--;
    if (w->at_barrier > 0 && w->at_barrier == w->live) release_block_barrier(w);
    yield(w);
    __builtin_unreachable();
}

// Thread i's Frame as the runtime writes it: what does not change from block to block, and its
// seal (sim_types.h).
inline void restore_frame(Worker *w, int i) {
    Launch *L = w->launch;
    const dim3 &bd = L->block;
    Frame *fr = frame_of(w, i);
    fr->seal = frame_seal(fr);
    fr->thread = uint3{(unsigned)(i % bd.x), (unsigned)(i / bd.x % bd.y), (unsigned)(i / (bd.x * bd.y))};
    fr->block = w->block;
    fr->block_dim = uint3{bd.x, bd.y, bd.z};
    fr->grid_dim = uint3{L->grid.x, L->grid.y, L->grid.z};
    fr->worker = w;
}

// Once a launch: each thread's Frame.
inline void prepare_frames(Worker *w, int index) {
    w->stacks = w->launch->stacks[index];
    w->block_dim = uint3{w->launch->block.x, w->launch->block.y, w->launch->block.z};
    for (int i = 0; i < w->nfibers; i++) restore_frame(w, i);
}

// Every thread left is waiting, and none can release the others.
[[noreturn]] inline void report_deadlock(Worker *w) {
    int blocked = -1, warped = -1;
    for (int i = 0; i < w->nfibers; i++) {
        if (w->fibers[i].state == F_BLOCK && blocked < 0) blocked = i;
        if (w->fibers[i].state == F_WARP && warped < 0) warped = i;
    }
    int culprit = warped >= 0 ? warped : blocked;
    w->current = culprit;
    if (blocked >= 0 && warped >= 0) {
        w->err.file2 = w->fibers[blocked].site.file;
        w->err.line2 = w->fibers[blocked].site.line;
    }
    if (warped >= 0)
        w->err.warp_rule = kLanesNeverArrive, w->err.warp_mask = w->fibers[warped].mask,
        w->err.warp_lane = -1;
    for (int i = 0; i < w->nfibers; i++)
        if (w->fibers[i].state == F_WARP) w->err.warp_waiting[i / 32] |= 1u << (i % 32);
    fail_at(w, warped >= 0 ? WARP : BARRIER, w->fibers[culprit].site,
            warped >= 0 ? "lanes wait in a warp function for lanes that never arrive"
                        : "threads wait at a barrier that the others never reach");
}

// Runs the current block, one fiber per thread.
inline void run_block(Worker *w) {
    fill_shared(w);
    int n = w->nfibers;
    for (int i = 0; i < n; i++) {
        Fiber &f = w->fibers[i];
        f.state = F_RUN;
        f.pred = 0;
        char *slot_top = w->stacks + (size_t)(i + 1) * kStackSize;
        prepare_context(&f.ctx, slot_top - kStackUsable, (char *)frame_of(w, i), fiber_main);
    }
    w->live = n, w->at_barrier = 0, w->current = 0;
    switch_context(&w->scheduler, &w->fibers[0].ctx, w);
    while (w->live > 0 && release_coalesced(w))  // lanes waiting in coalesced_threads() go on
        switch_context(&w->scheduler, &w->fibers[w->current].ctx, w);
    if (w->live > 0) report_deadlock(w);
    if (w->dynamic_shared_bytes) {
        int current = w->current;
        w->current = -1;  // which thread did it is found by running the launch again, watched
        check_dynamic_shared(w, OVERRUN);
        w->current = current;
    }
}

// ---- a worker thread ----------------------------------------------------------------------------------
// The launch's shared= bytes of dynamic shared memory, between two guard pages: their end against
// the upper one, their start 16-byte aligned as on a GPU. The bytes between them and the guard
// pages hold a canary, checked after every block (when shared= is not 0).
struct SharedArena {
    char *mapping = nullptr;
    size_t bytes = 0;

    bool map(Worker *w, size_t shared) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (shared + 15) & ~(size_t)15;
        size_t data = (span + page - 1) / page * page;
        bytes = data + 2 * page;
        void *m = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return false;
        mapping = (char *)m;
        if (data && mprotect(mapping + page, data, PROT_READ | PROT_WRITE) != 0) return false;
        w->dynamic_shared_floor = mapping + page;
        w->dynamic_shared_end = mapping + page + data;
        w->dynamic_shared = w->dynamic_shared_end - span;
        w->dynamic_shared_bytes = shared;
        arm_canary((unsigned char *)w->dynamic_shared_floor, w->dynamic_shared - w->dynamic_shared_floor);
        arm_canary((unsigned char *)w->dynamic_shared + shared, span - shared);
        return true;
    }
    ~SharedArena() {
        if (mapping) munmap(mapping, bytes);
    }
};

// The error reported is the one of the lowest block that failed, as a run of the blocks in order
// would meet it, whatever the workers' timing: the blocks after a failed one are not started, the
// ones before it (claimed already, L->chunk at a time) run on and may fail in their turn.
// block: the failed block's linear index, or -1 for an error of the whole launch (no block runs on).
inline void record_error(Launch *L, const Error &err, long block = -1) {
    std::lock_guard<std::mutex> g(L->mu);
    if (L->err.status == OK || L->err.status == INTERRUPTED || block < L->err_block)
        L->err = err, L->err_block = block;
    if (block < 0) L->stop = 1;
    else if (block < L->stop_before.load(std::memory_order_relaxed)) L->stop_before = block;
}

inline void out_of_resources(Launch *L, const char *what) {
    Error err{};
    err.status = RESOURCES;
    copy_text(err.text, what);
    record_error(L, err);
}

// Runs `main` on the worker's one plain fiber, until it switches back to the scheduler.
inline void run_plain_fiber(Worker &w, void (*main)()) {
    Fiber &f = w.fibers[0];
    f.state = F_RUN;
    prepare_context(&f.ctx, w.stacks + kStackSize - kStackUsable, (char *)frame_of(&w, 0), main);
    w.live = 1, w.at_barrier = 0, w.current = 0;
    switch_context(&w.scheduler, &f.ctx, &w);
}

// The block that failed, run again from its start on the loop that writes each thread's indices
// into its Frame, quietly (kernel printf prints nothing): its first thread that fails is named.
inline void rerun_main() {
    Worker *w = current_worker();
    frame()->block = w->block;
    fill_shared(w);
    w->launch->kernel->run_block_plain_publishing(w->launch->args);
    check_frame(0);
    w->fibers[0].state = F_DONE;
    w->live = 0;
    switch_context(&w->fibers[0].ctx, &w->scheduler, w);
    __builtin_unreachable();
}

// A thread of a block that ran on a loop that writes no indices into the Frame (sim_launch.h:
// run_block_fast) failed: a fault, an assert, a division by zero, a conversion... The error knows
// its block, and its line where a signal stopped an instruction, but not its thread. The block is
// run again, and what that run meets is the error reported, with its thread. As the search for an
// overrun's culprit does, it runs on memory that the first run has changed: a block whose threads
// read what its own earlier threads wrote may fail elsewhere, or not at all; then the first error
// is reported, its thread unknown (kThreadUnknown). A launch that fails is an error anyway.
inline void name_the_thread(Worker &w, Launch *L) {
    const int status = w.err.status;
    if (!w.plain || w.watching || !L->kernel->run_block_plain_publishing || w.current < 0 ||
        status == INTERRUPTED || status == RESOURCES || status == OVERRUN)
        return;
    const Error first = w.err;
    const bool quiet = w.quiet;
    bool named = false;
    w.err = Error{};
    w.quiet = true;
    restore_frame(&w, 0);  // a local array's overrun may have written over it (frame_intact)
    if (sigsetjmp(w.escape, 1) == 0) {
        w.in_kernel = 1;
        run_plain_fiber(w, rerun_main);  // back here: the block ran to its end this time
    } else {
        named = w.err.status != INTERRUPTED;
    }
    w.in_kernel = 0;
    w.quiet = quiet;
    if (!named) {
        w.err = first;
        w.err.thread[0] = w.err.thread[1] = w.err.thread[2] = kThreadUnknown;
    }
}

inline void run_blocks(Worker &w, Launch *L) {
    if (sigsetjmp(w.escape, 1) == 0) {
        if (!w.plain) {
            while (claim_block(&w, L)) run_block(&w);
        } else if (claim_block(&w, L)) {
            run_plain_fiber(w, plain_main);
        }
        w.in_kernel = 0;
    } else {
        w.in_kernel = 0;
        name_the_thread(w, L);
        const uint32_t *b = w.err.block;
        record_error(L, w.err, ((long)b[2] * L->grid.y + b[1]) * L->grid.x + b[0]);
    }
}

inline void worker_body(Launch *L, int index) {
    Worker w;
    set_current_worker(&w);
    w.launch = L;
    w.plain = !L->kernel->run_thread;  // a split kernel (sim_split.h) runs as a plain one
    w.watching = w.quiet = L->watch;
    w.in_order = !w.watching;
    worker = &w;
    sigset_t block_int;
    sigemptyset(&block_int);
    sigaddset(&block_int, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block_int, nullptr);
    std::vector<char> altstack(1 << 16);
    std::vector<Fiber> fibers(w.plain ? 1 : L->block.x * L->block.y * L->block.z);
    w.fibers = fibers.data();
    w.nfibers = (int)fibers.size();
    SharedArena arena;
    if (!arena.map(&w, L->shared)) {
        out_of_resources(L, "could not map a worker's dynamic shared memory");
        worker = nullptr;
        return;
    }
    stack_t ss{};
    ss.ss_sp = altstack.data();
    ss.ss_size = altstack.size();
    sigaltstack(&ss, nullptr);
    prepare_frames(&w, index);
    run_blocks(w, L);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    worker = nullptr;
}

inline void worker_main(Launch *L, int index) {
    KeepRegister keep;
    try {
        worker_body(L, index);
    } catch (...) {  // std::bad_alloc: nothing may leave a thread
        worker = nullptr;
        out_of_resources(L, "out of memory while starting a worker");
    }
    fflush(stdout);
    std::lock_guard<std::mutex> g(L->mu);
    if (--L->running == 0) L->done_cv.notify_all();
}

}  // namespace sim
#pragma GCC visibility pop

#pragma GCC visibility push(hidden)
// GCC's -fsanitize=bounds calls this when an index runs past a fixed-size array: report the
// file and line, the index and the array's declared type (GCC's data: the location, then the
// array's and the index's type descriptors; the index itself in a pointer-sized word) instead of
// linking the sanitizer's runtime. run/report.py reads them (Error::operands[0] and types).
struct SimSourceLocation {
    const char *file;
    uint32_t line, column;
};
struct SimOutOfBoundsData {
    SimSourceLocation loc;
    const void *array_type, *index_type;
};
extern "C" __attribute__((noreturn)) void __ubsan_handle_out_of_bounds(void *data, void *index) {
    auto *d = (SimOutOfBoundsData *)data;
    sim::Worker *w = sim::current_worker();
    w->err.operands[0] = (uint64_t)(uintptr_t)index;
    w->err.types[0] = d->index_type;
    w->err.types[1] = d->array_type;
    sim::fail_at(w, sim::BOUNDS, sim::Site{d->loc.file, (int)d->loc.line, 0},
                 "an index past the end of a fixed-size array");
}
extern "C" __attribute__((noreturn)) void __ubsan_handle_out_of_bounds_abort(void *data, void *index) {
    __ubsan_handle_out_of_bounds(data, index);
}
// GCC's -fsanitize=object-size (the learner's code: builder.py) calls this before an access
// through a pointer into an object whose size it can see, once the functions are inlined, that
// would run past the object's end: a local array handed to a __device__ function and indexed
// there past its end, which -fsanitize=bounds (indices into the array itself) cannot follow, and
// whose writes would run up the thread's stack over its Frame. GCC's data: the location, the
// accessed type's descriptor, its alignment and the kind of check (0 a load, 1 a store). Only a
// store into an object on the thread's own stack stops the launch, as a BOUNDS error whose
// array type is null (run/report.py); the store has not happened yet, so the Frame still names
// the thread. A load goes on, as before, and reads what lies there, as a GPU reads what its
// local memory holds past the array (the checkers model such reads); so does an access to an
// object elsewhere (a __shared__ array overrun through a pointer lands in the next one).
struct SimTypeMismatchData {
    SimSourceLocation loc;
    const void *type;
    unsigned char log_alignment, type_check_kind;
};
extern "C" void __ubsan_handle_type_mismatch_v1(void *data, void *pointer) {
    auto *d = (SimTypeMismatchData *)data;
    sim::Worker *w = sim::worker;
    if (d->type_check_kind != 1 || !w || !w->stacks || w->current < 0) return;
    uintptr_t slot = (uintptr_t)w->stacks + (uintptr_t)w->current * sim::kStackSize;
    if ((uintptr_t)pointer - slot >= sim::kStackSize) return;
    w->err.operands[0] = (uint64_t)(uintptr_t)pointer;
    w->err.types[0] = d->type;
    w->err.types[1] = nullptr;
    w->err.is_write = 1;
    sim::fail_at(w, sim::BOUNDS, sim::Site{d->loc.file, (int)d->loc.line, 0},
                 "a write through a pointer past the end of a local array");
}
extern "C" void __ubsan_handle_type_mismatch_v1_abort(void *data, void *pointer) {
    __ubsan_handle_type_mismatch_v1(data, pointer);
}
// -fstack-protector-strong (the learner's code: builder.py) keeps a guard word between a
// function's local arrays and its return address, and calls this at the function's end where
// the word was written over: a write past the end of a local array, reached through a pointer
// or an index no check could follow. Every compiler and distribution then names it the same
// (without the guard, where the write lands depends on the compiler's frame). FAULT with
// stack_guard set, pc in the failing function (run/report.py: "local array overrun").
extern "C" __attribute__((noreturn)) void __stack_chk_fail(void) {
    sim::Worker *w = sim::current_worker();
    w->err.stack_guard = 1;
    w->err.is_write = 1;
    w->err.pc = (uint64_t)(uintptr_t)__builtin_return_address(0) - 1;  // the call, not past it
    sim::fail_at(w, sim::FAULT, sim::Site{nullptr, 0, 0}, "");
}

// ---- what C++ leaves undefined and a GPU defines: conversions and shifts ------------------------
// The learner's code is compiled with -fsanitize=float-cast-overflow,shift-exponent (builder.py),
// so GCC calls these before a float-to-integer conversion of NaN or of a value outside the
// integer type's range, and before a shift by the operand's width or more (or by a negative
// count). x86 gives INT_MIN (its "integer indefinite") or wraps, and masks a shift's count; a
// GPU saturates and clamps. A prelude cannot change C++'s operators, so the launch stops, with
// the operands, their types and what a GPU gives (sim::Error, read by run/operators.py).
// Where this CPU's conversion and the GPU's give the same integer, or a shift's operand is 0, the
// kernel goes on: nothing differs.
struct SimTypeDescriptor {  // GCC's (and LLVM's) UBSan type descriptor
    uint16_t kind, info;    // kind 0: integer, info = log2(bits) << 1 | signed; kind 1: float, info = bits
    char name[1];
};
struct SimCastData {
    SimSourceLocation loc;
    const SimTypeDescriptor *from, *to;
};
struct SimShiftData {
    SimSourceLocation loc;
    const SimTypeDescriptor *operand, *count;
};

namespace sim {
inline int integer_bits(const SimTypeDescriptor *t) { return 1 << (t->info >> 1); }

// A value as the check hands it over: inline up to 64 bits, else through a pointer.
inline uint64_t integer_operand(const SimTypeDescriptor *t, void *handle) {
    return integer_bits(t) <= 64 ? (uint64_t)(uintptr_t)handle : *(const uint64_t *)handle;
}
inline double float_operand(const SimTypeDescriptor *t, void *handle) {
    uint64_t bits = (uint64_t)(uintptr_t)handle;
    if (t->info == 32) {
        float f;
        uint32_t low = (uint32_t)bits;
        memcpy(&f, &low, 4);
        return f;
    }
    if (t->info == 64) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    return (double)*(const long double *)handle;
}

// What nvcc's code gives (measured on an H200, CUDA 13.0): cvt.rzi to the 32- or 64-bit integer
// of the type's signedness, which saturates to its range; NaN gives 0 from a float to a 32-bit
// integer, and 0x80000000 (0x8000000000000000) from a double to a 32-bit one and from either to
// a 64-bit one. A char or short keeps the low bits of the 32-bit conversion.
inline uint64_t gpu_conversion(double x, bool from_double, int bits, bool is_signed) {
    int wide = bits < 32 ? 32 : bits;
    uint64_t r;
    double t = std::trunc(x), top = std::ldexp(1.0, wide - is_signed);  // 2^31, 2^32, 2^63, 2^64
    if (x != x) {
        r = from_double || wide == 64 ? 1ull << (wide - 1) : 0;
    } else if (is_signed) {
        int64_t max = wide == 64 ? INT64_MAX : INT32_MAX;
        r = (uint64_t)(t >= top ? max : t < -top ? -max - 1 : (int64_t)t);
    } else {
        r = t >= top ? (wide == 64 ? UINT64_MAX : UINT32_MAX) : t <= 0 ? 0 : (uint64_t)t;
    }
    return bits == 64 ? r : r & ((1ull << bits) - 1);
}

// What this CPU's conversion gives, in the target type's bits.
template <typename I> inline uint64_t cpu_conversion(double x, bool from_double) {
    volatile double in = x;  // converted at run time, by the instruction the kernel's cast uses
    I v = from_double ? (I)in : (I)(float)in;
    return (uint64_t)v & (sizeof(I) == 8 ? ~0ull : (1ull << 8 * sizeof(I)) - 1);
}
inline uint64_t cpu_conversion(double x, bool from_double, int bits, bool is_signed) {
    switch (bits) {
        case 8: return is_signed ? cpu_conversion<int8_t>(x, from_double) : cpu_conversion<uint8_t>(x, from_double);
        case 16: return is_signed ? cpu_conversion<int16_t>(x, from_double) : cpu_conversion<uint16_t>(x, from_double);
        case 32: return is_signed ? cpu_conversion<int32_t>(x, from_double) : cpu_conversion<uint32_t>(x, from_double);
        default: return is_signed ? cpu_conversion<int64_t>(x, from_double) : cpu_conversion<uint64_t>(x, from_double);
    }
}

[[noreturn]] inline void stop_operator(int status, const SimSourceLocation &loc, const char *text) {
    Worker *w = current_worker();
    w->err.column = loc.column;
    fail_at(w, status, Site{loc.file, (int)loc.line, 0}, text);
}

inline void check_conversion(SimCastData *d, void *value, bool always) {
    double x = float_operand(d->from, value);
    bool from_double = d->from->info > 32, is_signed = d->to->info & 1;
    int bits = integer_bits(d->to);
    uint64_t gpu = gpu_conversion(x, from_double, bits, is_signed);
    uint64_t cpu = cpu_conversion(x, from_double, bits, is_signed);
    if (gpu == cpu && !always) return;
    Worker *w = current_worker();
    memcpy(&w->err.operands[0], &x, 8);
    w->err.types[0] = d->from, w->err.types[1] = d->to;
    w->err.gpu = gpu, w->err.cpu = cpu;
    stop_operator(CAST, d->loc, "a float-to-integer conversion of NaN or of a value out of range");
}

inline void check_shift(SimShiftData *d, void *operand, void *count, bool always) {
    uint64_t a = integer_operand(d->operand, operand);
    if (a == 0 && !always) return;  // 0 on both, whatever the count
    Worker *w = current_worker();
    w->err.operands[0] = a, w->err.operands[1] = integer_operand(d->count, count);
    w->err.types[0] = d->operand, w->err.types[1] = d->count;
    stop_operator(SHIFT, d->loc, "a shift by the operand's width or more");
}
}  // namespace sim

extern "C" void __ubsan_handle_float_cast_overflow(void *data, void *value) {
    sim::check_conversion((SimCastData *)data, value, false);
}
extern "C" __attribute__((noreturn)) void __ubsan_handle_float_cast_overflow_abort(void *data, void *value) {
    sim::check_conversion((SimCastData *)data, value, true);
    __builtin_unreachable();
}
extern "C" void __ubsan_handle_shift_out_of_bounds(void *data, void *operand, void *count) {
    sim::check_shift((SimShiftData *)data, operand, count, false);
}
extern "C" __attribute__((noreturn)) void __ubsan_handle_shift_out_of_bounds_abort(void *data, void *operand, void *count) {
    sim::check_shift((SimShiftData *)data, operand, count, true);
    __builtin_unreachable();
}
#pragma GCC visibility pop

// ---- device-side malloc and free (sim_host_only.h makes a kernel's malloc and free these) ------
// The heap is the current context's: its limit (cudaLimitMallocHeapSize) and the bytes in use,
// two counters that Python owns (machine/device.py) and names before each launch. Each block
// carries its size and its heap in a 16-byte header, so that free() gives the bytes back to the
// heap they came from and the block stays 16-byte aligned.
namespace sim {
struct Heap { uint64_t limit, used; };
static Heap default_heap = {8u << 20, 0};
static Heap *heap = &default_heap;
}  // namespace sim

SIM_EXPORT void sim_set_heap(void *h) { sim::heap = h ? (sim::Heap *)h : &sim::default_heap; }

// The learner's __shared__ arrays, as n (offset from sim::worker, bytes) pairs: filled before
// each block (fill_shared).
SIM_EXPORT void sim_set_shared(const int64_t *pairs, int n) {
    sim::shared_variables.clear();
    for (int i = 0; i < n; i++) sim::shared_variables.emplace_back(pairs[2 * i], (uint64_t)pairs[2 * i + 1]);
}

extern "C" void *__sim_device_malloc(size_t bytes) {
    sim::Heap *h = sim::heap;
    uint64_t need = (uint64_t)bytes + 16;
    if (need < bytes) return nullptr;
    if (__atomic_add_fetch(&h->used, need, __ATOMIC_RELAXED) > h->limit) {
        __atomic_sub_fetch(&h->used, need, __ATOMIC_RELAXED);
        return nullptr;
    }
    sim::hold_cancel(sim::worker);
    char *block = (char *)malloc(need);
    sim::release_cancel(sim::worker);
    if (!block) {
        __atomic_sub_fetch(&h->used, need, __ATOMIC_RELAXED);
        return nullptr;
    }
    *(uint64_t *)block = need;
    *(sim::Heap **)(block + 8) = h;
    return block + 16;
}

extern "C" void __sim_device_free(void *p) {
    if (!p) return;
    char *block = (char *)p - 16;
    __atomic_sub_fetch(&(*(sim::Heap **)(block + 8))->used, *(uint64_t *)block, __ATOMIC_RELAXED);
    sim::hold_cancel(sim::worker);
    free(block);
    sim::release_cancel(sim::worker);
}

// ---- new and delete: a kernel's from the device heap -------------------------------------
// CUDA's new in device code takes the malloc heap too, and gives NULL past it. These stand in for
// libstdc++'s in the whole module (hidden: no other library sees them, and libstdc++ keeps its
// own): while a worker runs a kernel, new draws on the context's heap as malloc does; elsewhere
// (the launch's bookkeeping, on Python's thread) on the C library, as before. Without this a
// kernel's new char[n] took the machine's memory, which no limit saw, until the out-of-memory
// killer ended the learner's Jupyter kernel. Each block has a Tag just before it: where the memory
// starts and which heap it came from, so that delete gives it back whoever calls it.
namespace sim {
struct NewTag { void *start; uint64_t device; };
static_assert(sizeof(NewTag) == 16, "a block of new stays 16-byte aligned");

inline void *new_block(size_t bytes, size_t align) {
    if (align < sizeof(NewTag)) align = sizeof(NewTag);
    if (bytes > SIZE_MAX - align) return nullptr;
    const bool device = worker && worker->in_kernel;
    void *start = device ? __sim_device_malloc(bytes + align) : malloc(bytes + align);
    if (!start) return nullptr;  // both give 16-byte aligned memory
    uintptr_t object = ((uintptr_t)start + sizeof(NewTag) + align - 1) & ~(uintptr_t)(align - 1);
    ((NewTag *)object)[-1] = NewTag{start, device};
    return (void *)object;
}

inline void *new_or_throw(size_t bytes, size_t align) {  // a kernel gets NULL, as on a GPU
    void *p = new_block(bytes, align);
    if (!p && !(worker && worker->in_kernel)) throw std::bad_alloc();
    return p;
}

inline void delete_block(void *p) {
    if (!p) return;
    const NewTag tag = ((NewTag *)p)[-1];
    if (tag.device) __sim_device_free(tag.start);
    else free(tag.start);
}
}  // namespace sim

#pragma GCC visibility push(hidden)
void *operator new(size_t n) { return sim::new_or_throw(n, 0); }
void *operator new[](size_t n) { return sim::new_or_throw(n, 0); }
void *operator new(size_t n, std::align_val_t a) { return sim::new_or_throw(n, (size_t)a); }
void *operator new[](size_t n, std::align_val_t a) { return sim::new_or_throw(n, (size_t)a); }
void *operator new(size_t n, const std::nothrow_t &) noexcept { return sim::new_block(n, 0); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return sim::new_block(n, 0); }
void *operator new(size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return sim::new_block(n, (size_t)a);
}
void *operator new[](size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return sim::new_block(n, (size_t)a);
}
void operator delete(void *p) noexcept { sim::delete_block(p); }
void operator delete[](void *p) noexcept { sim::delete_block(p); }
void operator delete(void *p, size_t) noexcept { sim::delete_block(p); }
void operator delete[](void *p, size_t) noexcept { sim::delete_block(p); }
void operator delete(void *p, std::align_val_t) noexcept { sim::delete_block(p); }
void operator delete[](void *p, std::align_val_t) noexcept { sim::delete_block(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { sim::delete_block(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { sim::delete_block(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { sim::delete_block(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { sim::delete_block(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { sim::delete_block(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { sim::delete_block(p); }
#pragma GCC visibility pop

// ---- what Python calls to run a launch (run/launch.py) ----------------------------------
SIM_EXPORT const sim::KernelEntry *sim_kernel(int i);  // the module's own table (sim_launch.h)

// Starts a launch on up to `workers` threads (stacks[i]: worker i's stacks, machine/stacks.py).
// watch: 0, or 1 to run in watch mode with nwatch (address, length) pairs in watched. Returns
// nullptr when not even the launch's bookkeeping can be allocated.
SIM_EXPORT void *sim_launch_start(int k, const unsigned *grid, const unsigned *block, size_t shared,
                                  void **args, int workers, char *const *stacks,
                                  int watch, const uint64_t *watched, int nwatch) {
    using namespace sim;
    Launch *L = nullptr;
    try {
        L = new Launch();
        L->kernel = sim_kernel(k);
        L->args = L->kernel->make_args(args);
        L->grid = dim3(grid[0], grid[1], grid[2]);
        L->block = dim3(block[0], block[1], block[2]);
        L->shared = shared;
        L->watch = watch != 0;
        L->stacks = stacks;
        L->nblocks = (long)grid[0] * grid[1] * grid[2];
        for (int i = 0; i < nwatch; i++) {
            auto *p = (unsigned char *)(uintptr_t)watched[2 * i];
            L->watched.emplace_back(p, std::vector<unsigned char>(p, p + watched[2 * i + 1]));
        }
        if (L->watch) protect_watched(L);
        L->threads.reserve(workers);
    } catch (...) {  // std::bad_alloc
        if (L && L->args) L->kernel->free_args(L->args);
        delete L;
        return nullptr;
    }
    int n = workers < 1 ? 1 : workers;
    if (n > L->nblocks) n = (int)L->nblocks;
    // Claims of many blocks, about 32 a worker: an atomic shared by the workers costs as much as a
    // small block's threads, and a worker that runs on through consecutive blocks reads and writes
    // memory in long runs, as the CPU's prefetchers like (claims of at most 16 blocks, which
    // interleaved two workers' runs every 16 KiB of each array, cost saxpy's 2^22 floats 3.6 ms of
    // CPU time on two workers, median of 80 launches, and 2.9 ms as now); 32 claims a worker still
    // share out blocks of unequal cost (the rows of a Mandelbrot image) evenly.
    L->chunk = std::max(1L, L->nblocks / (32L * n));
    install_handlers(L);
    fflush(stdout);
    L->running = n;
    int started = 0;
    try {
        for (; started < n; started++) L->threads.emplace_back(worker_main, L, started);
    } catch (...) {  // std::system_error: the system has no thread (or no stack) for another worker
        std::lock_guard<std::mutex> g(L->mu);
        L->running -= n - started;
        if (started == 0) {
            L->err.status = RESOURCES;
            copy_text(L->err.text, "could not start a worker thread");
        }
    }
    return L;
}

// Waits up to timeout_ms; 1 when every worker has finished. Python calls this in a loop so that
// Jupyter's interrupt button is seen between calls.
SIM_EXPORT int sim_launch_wait(void *h, int timeout_ms) {
    auto *L = (sim::Launch *)h;
    std::unique_lock<std::mutex> g(L->mu);
    return L->done_cv.wait_for(g, std::chrono::milliseconds(timeout_ms), [L] { return L->running == 0; });
}

SIM_EXPORT void sim_launch_cancel(void *h) {
    auto *L = (sim::Launch *)h;
    L->stop = 1;
    {
        std::lock_guard<std::mutex> g(L->mu);
        if (L->err.status == sim::OK) L->err.status = sim::INTERRUPTED;
    }
    for (auto &t : L->threads) pthread_kill(t.native_handle(), SIGUSR2);
}

// Joins the workers, copies out the error (if any: the lowest failed block's, record_error) and
// frees the launch.
SIM_EXPORT int sim_launch_finish(void *h, sim::Error *err) {
    auto *L = (sim::Launch *)h;
    for (auto &t : L->threads) t.join();
    for (uintptr_t page : L->watch_pages) mprotect((void *)page, sim::page_size(), PROT_READ | PROT_WRITE);
    sim::restore_handlers(L);
    fflush(stdout);
    L->kernel->free_args(L->args);
    *err = L->err;
    int status = L->err.status;
    delete L;
    return status;
}
