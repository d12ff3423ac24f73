// sim_race.h -- the race check of the instrumented build (included by sim_trace.h).
//
// Running a block's threads one after another hides races: the right answer comes out by luck.
// Instead, every shared (and global) location remembers who last wrote it and who read it since
// then, with how many __syncthreads() (and, within a warp, __syncwarp()) that thread had passed.
// Two accesses by different threads, at least one a write, with no barrier between them, are a
// hazard, whatever order the simulator ran them in: the later one finds the earlier one's record.
// This is what `compute-sanitizer --tool racecheck` reports on a GPU for shared memory; it does
// not watch global memory, where this check finds races as well.
//
// Shared memory is remembered byte by byte; global memory 4-byte word by word (with the bytes
// each access touched), in shadow arrays made when an allocation is first touched. Two atomics
// never race with each other, but an atomic and a plain access of another thread, with no barrier
// between them, do: clearing a counter (or reading it) while other threads add to it atomically.
// Blocks of one launch cannot wait for each other, so a global location touched by two blocks,
// one of them writing, is a race too, unless the kernel calls __threadfence() (the pattern where
// the last block reads what the others wrote, ordered by a fence and an atomic counter).
//
// A fence between the two accesses does not make them safe: __threadfence() and
// __threadfence_block() order the calling thread's own accesses, and no thread waits at one. Each
// access carries the fences its thread had called since its last barrier; where the two differ,
// one thread had passed a fence between the places of the two accesses in the code, which the
// report says (a fence written where a barrier was meant).
//
// The report keeps the launch's first hazard, and what the advice and the prediction of
// compute-sanitizer's line need from all of them: how many lie between threads of different warps
// (where __syncwarp() cannot help), and racecheck's count for the first one's pair of lines.
// racecheck names a pair in the order a GPU ran the two accesses, and counts its hazards byte by
// byte: on an H200, a block reversal through shared memory (notebooks 06 and 09) is reported as
// "Write ... and Read ... [4096 hazards]" for its 1024 floats. The simulator runs a block's threads
// one after another, so it meets half of those pairs read first; a GPU's warps go through the code
// about in step, so each access carries its step, how many accesses its thread had made since
// its last barrier, and of two accesses the one with the smaller step is taken as the first.
#pragma once

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

enum RecFlags : uint8_t { USED = 1, WROTE = 2, ATOMIC_OP = 4 };

struct Rec {  // one access, as a location remembers it
    uint32_t block;
    uint16_t thread, site;
    uint32_t epoch;
    uint16_t wepoch;
    uint8_t mask, flags;
    uint16_t step;  // the thread's accesses since its last barrier, before this one
    uint16_t fences;  // the fences (__threadfence(), ...) it had called since its last barrier
};

struct Cell {
    Rec w, r1, r2;  // the last write; two readers of different threads
};

// What a failed check reports (mirrored by microscope/instrumented.py).
struct RaceReport {
    uint64_t count;         // hazards found in the launch (accesses that found one)
    uint64_t across_warps;  // of them, between threads of different warps (or blocks)
    uint64_t pair_bytes;    // bytes of the hazards between the first one's two sites, in the same
                            // order and of the same kinds, taken in step: racecheck's count
    uint64_t address;       // the byte: an offset for shared memory, an address for global memory
    Rec first, second;      // the first hazard, in the order the simulator ran them
    int32_t space;          // 1 __shared__ arrays, 2 dynamic shared memory, 3 global memory
    int32_t in_step_reversed;  // 1: in step, second's access comes before first's
};

struct RaceShadow : HostAllocated {
    Cell *cells = nullptr;  // one per byte of this worker's shared memory (static, then dynamic)
    uint32_t hint = 0;
};

struct RaceGlobal {
    Cell **ranges = nullptr;  // per allocation, one cell per 4-byte word, made on first use
    RaceReport report{};
    std::mutex mu;
};
inline RaceGlobal race_global;

SIM_UNTRACED inline void race_attach(State *s) {
    s->race = new RaceShadow();
    s->race->cells = (Cell *)zalloc(sizeof(Cell) * (s->tls_n + s->dyn_n));
}

// Could the earlier access r and the current one c happen in either order?
SIM_UNTRACED inline bool concurrent(const Rec &r, const Rec &c, bool shared) {
    if (!(r.flags & USED) || !(r.mask & c.mask)) return false;
    if (r.flags & c.flags & ATOMIC_OP) return false;  // atomics are ordered among themselves
    if (r.block != c.block) return !shared && !cfg.fenced.load(std::memory_order_relaxed);
    if (r.thread == c.thread || r.epoch != c.epoch) return false;
    return (r.thread >> 5) != (c.thread >> 5) || r.wepoch == c.wepoch;
}

// Could the record still be concurrent with some later access? (Else its slot may be reused.)
SIM_UNTRACED inline bool live(const Rec &r, const Rec &c, bool shared) {
    if (!(r.flags & USED)) return false;
    return r.block == c.block ? r.epoch == c.epoch : !shared;
}

// The two accesses' sites and kinds, the one with the smaller step first.
SIM_UNTRACED inline uint64_t in_step_pair(const Rec &a, const Rec &b) {
    const Rec &x = b.step < a.step ? b : a, &y = b.step < a.step ? a : b;
    return (uint64_t)x.site << 32 | (uint64_t)y.site << 16 | (x.flags & WROTE) << 1 | (y.flags & WROTE);
}

SIM_UNTRACED inline void report(const Rec &first, const Rec &second, uint64_t address, int space,
                                unsigned nbytes) {
    RaceReport &rep = race_global.report;
    std::lock_guard<std::mutex> g(race_global.mu);
    if (first.block != second.block || (first.thread >> 5) != (second.thread >> 5)) rep.across_warps++;
    if (rep.count++ == 0) {
        rep.first = first, rep.second = second, rep.address = address, rep.space = space;
        rep.in_step_reversed = second.step < first.step;
        rep.pair_bytes = nbytes;
    } else if (in_step_pair(first, second) == in_step_pair(rep.first, rep.second)) {
        rep.pair_bytes += nbytes;
    }
}

// Checks one cell against the access c, then remembers c. True when c races with an earlier
// access, which is copied to *other.
SIM_UNTRACED inline bool check_cell(Cell &cell, const Rec &c, bool shared, Rec *other) {
    const Rec *o = nullptr;
    if (concurrent(cell.w, c, shared)) o = &cell.w;
    else if ((c.flags & WROTE) && concurrent(cell.r1, c, shared)) o = &cell.r1;
    else if ((c.flags & WROTE) && concurrent(cell.r2, c, shared)) o = &cell.r2;
    if (o) *other = *o;
    // An atomic does not replace a plain write it could still race with: a later atomic of
    // another thread must find that write, not the atomic (atomics never race each other). In
    // global memory a write stays open to every other block's access, whatever barriers its own
    // block has passed since (block 0 zeroing a sum that every block then adds into atomically).
    bool keep_plain = (c.flags & ATOMIC_OP) && (cell.w.flags & USED) &&
                      !(cell.w.flags & ATOMIC_OP) && (!shared || live(cell.w, c, shared));
    if (c.flags & WROTE) {
        // The same thread's earlier bytes of the word, since its last barrier, stay in the
        // record: a thread that stores a word's four bytes one by one leaves all four for another
        // thread's store to find, not only the last (global memory is remembered word by word).
        bool same = live(cell.w, c, shared) && cell.w.block == c.block &&
                    cell.w.thread == c.thread && cell.w.epoch == c.epoch &&
                    cell.w.wepoch == c.wepoch && (cell.w.flags == c.flags);
        uint8_t mask = same ? cell.w.mask | c.mask : c.mask;
        if (!keep_plain) cell.w = c, cell.w.mask = mask;
    } else if (live(cell.r1, c, shared) && cell.r1.block == c.block && cell.r1.thread == c.thread) {
        cell.r1.mask |= c.mask;
    } else if (!live(cell.r1, c, shared)) {
        cell.r1 = c;
    } else if (!live(cell.r2, c, shared) || (cell.r2.block == c.block && cell.r2.thread == c.thread)) {
        cell.r2 = c;
    }
    return o != nullptr;
}

SIM_UNTRACED inline Cell *global_cells(State *s, uintptr_t a, uintptr_t *offset) {
    uint32_t i;
    if (!find_range(s->race->hint, a, &i, offset)) return nullptr;
    Cell *&cells = race_global.ranges[i];
    if (!cells) cells = (Cell *)zalloc(sizeof(Cell) * (cfg.range_n[i] / 4 + 1));
    return cells;
}

SIM_UNTRACED inline void race_access(State *s, uint32_t tid, uintptr_t a, unsigned size, unsigned flags,
                                     unsigned site) {
    Rec c{(uint32_t)s->block_linear, (uint16_t)tid, (uint16_t)site, s->epoch[tid], (uint16_t)s->wepoch[tid],
          1, (uint8_t)(USED | ((flags & WRITE) ? WROTE : 0) | ((flags & ATOMIC) ? ATOMIC_OP : 0)),
          s->step[tid], s->fences[tid]};
    if (s->step[tid] != UINT16_MAX) s->step[tid]++;
    Rec other{}, first{};
    bool hazard = false;
    unsigned nbytes = 0;  // of this access, those that race
    uint64_t where = 0;
    int space = 0;
    if (flags & SHARED) {
        bool dynamic = flags & DYNAMIC;
        uintptr_t off = dynamic ? a - s->dyn_lo : a - s->tls_lo;
        uintptr_t base = dynamic ? s->tls_n : 0, n = dynamic ? s->dyn_n : s->tls_n;
        for (unsigned i = 0; i < size && off + i < n; i++)
            if (check_cell(s->race->cells[base + off + i], c, true, &other) && nbytes++ == 0)
                hazard = true, first = other, where = off + i, space = dynamic ? 2 : 1;
    } else {
        uintptr_t off;
        Cell *cells = global_cells(s, a, &off);
        if (!cells) return;
        for (uintptr_t b = off; b < off + size;) {
            uintptr_t word = b >> 2, end = (word + 1) << 2;
            if (end > off + size) end = off + size;
            c.mask = (uint8_t)(((1u << (end - b)) - 1) << (b & 3));
            if (check_cell(cells[word], c, false, &other)) {
                if (!hazard) hazard = true, first = other, where = a + (b - off), space = 3;
                nbytes += end - b;
            }
            b = end;
        }
    }
    if (hazard) report(first, c, where, space, nbytes);
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop
