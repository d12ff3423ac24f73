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
// One plain read is no race with atomics: the first guess of a compare-and-swap loop, the CUDA
// Programming Guide's own (`old = *address; do { assumed = old; old = atomicCAS(address, assumed,
// f(assumed)); } while (assumed != old);`). The value read is only a guess, which the atomicCAS
// checks: a stale one fails and is retried with the value the CAS returns. So each thread keeps
// its last plain read (address, size, value, line); an atomicCAS of the same address whose
// compare is that value marks the line as a CAS loop's guess. A hazard between a plain read and
// an atomic of another thread is held, per line of the read, until the launch ends, and dropped
// there if that line was marked: the narrowest rule that also accepts a loop that skips the CAS
// when its guess shows it cannot change anything (`old = *addr; while (v < old) { ... }`, whose
// threads that skip make no CAS). A plain read at any other line (a total other blocks are still
// adding to), and a plain write, still race with the atomics; held hazards keep their place in
// the order hazards were found, so the report's first is the same as without the rule.
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

struct Guess {  // a thread's last plain read (of at most 8 bytes): a CAS loop's first guess?
    uintptr_t address;
    uint64_t value, block;
    uint16_t site;
    uint8_t size;
};

struct RaceShadow : HostAllocated {
    Cell *cells = nullptr;  // one per byte of this worker's shared memory (static, then dynamic)
    uint32_t hint = 0;
    Guess guess[1024];  // per thread of the block
};

struct Held {  // the hazards between plain reads at one line and atomics, until the launch ends
    RaceReport report;
    uint64_t found;  // when its first one was found (RaceGlobal::found)
};

struct RaceGlobal {
    Cell **ranges = nullptr;  // per allocation, one cell per 4-byte word, made on first use
    RaceReport report{};
    uint64_t found = 0, first_found = 0;  // hazards found so far; when the report's first was
    uint8_t *guess_line = nullptr;  // per site: 1, a CAS loop's first guess is read there
    Held *held = nullptr;           // per site: the held hazards of its plain reads
    std::mutex mu;
};
inline RaceGlobal race_global;

SIM_UNTRACED inline void race_begin() {
    race_global.report = RaceReport{};
    race_global.found = race_global.first_found = 0;
    race_global.guess_line = (uint8_t *)zalloc(nsites + 1);
    race_global.held = (Held *)zalloc(sizeof(Held) * (nsites + 1));
}

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

// Adds a hazard to a report; true when it is the report's first.
SIM_UNTRACED inline bool add_hazard(RaceReport &rep, const Rec &first, const Rec &second, uint64_t address,
                                    int space, unsigned nbytes) {
    if (first.block != second.block || (first.thread >> 5) != (second.thread >> 5)) rep.across_warps++;
    if (rep.count++ == 0) {
        rep.first = first, rep.second = second, rep.address = address, rep.space = space;
        rep.in_step_reversed = second.step < first.step;
        rep.pair_bytes = nbytes;
        return true;
    }
    if (in_step_pair(first, second) == in_step_pair(rep.first, rep.second)) rep.pair_bytes += nbytes;
    return false;
}

// Of a hazard between a plain read and an atomic, the read; else null.
SIM_UNTRACED inline const Rec *plain_read(const Rec &a, const Rec &b) {
    if (!(a.flags & (WROTE | ATOMIC_OP)) && (b.flags & ATOMIC_OP)) return &a;
    if (!(b.flags & (WROTE | ATOMIC_OP)) && (a.flags & ATOMIC_OP)) return &b;
    return nullptr;
}

// A hazard already known to be a CAS loop's first guess against an atomic: none.
SIM_UNTRACED inline bool guessed(const Rec &a, const Rec &b) {
    const Rec *read = plain_read(a, b);
    return read && __atomic_load_n(&race_global.guess_line[read->site], __ATOMIC_RELAXED);
}

// A hazard found: in the report, or held with its line's when a plain read meets an atomic.
SIM_UNTRACED inline void report(const Rec &first, const Rec &second, uint64_t address, int space,
                                unsigned nbytes) {
    std::lock_guard<std::mutex> g(race_global.mu);
    uint64_t found = race_global.found++;
    const Rec *read = plain_read(first, second);
    Held *held = read ? &race_global.held[read->site] : nullptr;
    if (add_hazard(held ? held->report : race_global.report, first, second, address, space, nbytes))
        (held ? held->found : race_global.first_found) = found;
}

// An atomicCAS of the thread tid: its compare the value of the thread's last plain read of the
// same address and size marks the line of that read as a CAS loop's first guess.
SIM_UNTRACED inline void race_cas(State *s, uint32_t tid, uintptr_t a, unsigned size, uint64_t compare) {
    const Guess &g = s->race->guess[tid];
    if (g.site && g.address == a && g.size == size && g.block == s->block_linear && g.value == compare)
        __atomic_store_n(&race_global.guess_line[g.site], 1, __ATOMIC_RELAXED);
}

// The launch has ended: the held hazards of lines no CAS loop's first guess was read at join the
// report, in the order they were found.
SIM_UNTRACED inline void race_end() {
    RaceReport &rep = race_global.report;
    for (uint32_t site = 1; site <= nsites; site++) {
        const Held &h = race_global.held[site];
        if (!h.report.count || race_global.guess_line[site]) continue;
        uint64_t count = rep.count + h.report.count, across = rep.across_warps + h.report.across_warps;
        if (!rep.count || h.found < race_global.first_found)
            rep = h.report, race_global.first_found = h.found;
        rep.count = count, rep.across_warps = across;
    }
    free(race_global.guess_line), free(race_global.held);
    race_global.guess_line = nullptr, race_global.held = nullptr;
}

// Could they happen in either order, and not as a CAS loop's first guess and an atomic?
SIM_UNTRACED inline bool races(const Rec &r, const Rec &c, bool shared) {
    return concurrent(r, c, shared) && !guessed(r, c);
}

// Checks one cell against the access c, then remembers c. True when c races with an earlier
// access, which is copied to *other.
SIM_UNTRACED inline bool check_cell(Cell &cell, const Rec &c, bool shared, Rec *other) {
    const Rec *o = nullptr;
    if (races(cell.w, c, shared)) o = &cell.w;
    else if ((c.flags & WROTE) && races(cell.r1, c, shared)) o = &cell.r1;
    else if ((c.flags & WROTE) && races(cell.r2, c, shared)) o = &cell.r2;
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
    if (!(flags & (WRITE | ATOMIC)) && size <= 8) {
        Guess &g = s->race->guess[tid];
        g.address = a, g.value = 0, g.block = s->block_linear, g.site = (uint16_t)site, g.size = (uint8_t)size;
        memcpy(&g.value, (const void *)a, size);  // what the load that follows reads
    }
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop
