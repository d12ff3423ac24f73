// sim_init.h -- the init check of the instrumented build (included by sim_trace.h).
//
// Memory from cudaMalloc (mem_alloc, gpuarray.empty) is not zeroed on a GPU: it holds whatever an
// earlier program or array left there, and a kernel that reads it before anything wrote it gets
// a different wrong answer each time, or the right one by luck. The simulator's fresh pages are
// zero, so the luck is always good here. Instead, Python keeps a shadow of each allocation made
// while the check is on (machine/written.py): one byte per byte, 1 once written by a copy, a
// memset or a kernel. During a checked launch every global load of the learner's code looks at
// the shadow of the bytes it reads, and every store marks its bytes written. A read of a byte
// never written is what `compute-sanitizer --tool initcheck` reports on a GPU.
//
// Shared memory is not zeroed either, and a block starts with what the last block on that
// multiprocessor left (the simulator fills it with NaN: sim_grid.h). compute-sanitizer's initcheck
// does not watch it (global memory only), so here each worker keeps a shadow of its shared memory
// (the __shared__ arrays, then the dynamic arena, as the race check lays them out), cleared when a
// block starts: a read of bytes no thread of the block has written is an uninitialised read. Not
// at once, though: if another thread writes them with no barrier between (the race check's rule,
// concurrent()), the read raced with that write, which is the race check's to report. So such a
// read is a suspect until the block passes its next barrier or ends, and only then counted.
//
// Atomics read before they write: an atomicAdd on a counter nobody zeroed is an uninitialised
// read too. Local arrays (the thread's own stack) are not checked: the trace leaves them out at
// once (sim_trace.h's access()). A checked launch runs on one worker (microscope/instrumented.py),
// so the shadows and the report need no lock.
#pragma once

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

// What a failed check reports (mirrored by microscope/instrumented.py).
struct InitReport {
    uint64_t count;    // uninitialised reads in the launch
    uint64_t address;  // the first byte of the first one never written
    uint32_t block;    // its block and thread, as linear indices
    uint16_t thread, site;
    uint32_t size;     // the bytes that access read
    int32_t space;     // as RaceReport's: 1 __shared__ arrays, 2 dynamic shared memory, 3 global
};                     // (address is an offset in that space for shared memory)

struct InitGlobal {
    uint8_t **shadow = nullptr;  // per allocation (cfg.range_lo order): 1 a byte written, or null
    // the compiler's own thread-locals among the shared arrays (the guard a static of class type
    // gets, _ZGV...): (offset, bytes) in the worker's shared memory, counted written at each
    // block's start, since the learner's code reads them before anything of theirs is stored
    const uint64_t *unwatched_at = nullptr, *unwatched_n = nullptr;
    uint32_t nunwatched = 0;
    InitReport report{};
    host_vector<uint8_t> shared_written;  // for one in shared memory: what its block had written before
};
inline InitGlobal init_global;

SIM_UNTRACED inline void init_report(uint64_t address, uint32_t block, uint32_t thread, uint32_t site,
                                     uint32_t size, int space) {
    InitReport &rep = init_global.report;
    if (rep.count++ == 0)
        rep.address = address, rep.block = block, rep.thread = (uint16_t)thread, rep.site = (uint16_t)site,
        rep.size = size, rep.space = space;
}

struct Suspect {  // a read of shared bytes that no thread of the block had written, not yet judged
    Rec rec;          // who read them, where, after how many barriers
    uint32_t offset;  // the first byte not written, in this worker's shared memory (static, then dynamic)
    uint32_t size;    // the bytes the read took
    bool raced;       // another thread wrote them with no barrier between: a race, not ours
};

struct InitShared : HostAllocated {
    uint8_t *written = nullptr;   // per byte of the worker's shared memory: 1 once written in this block
    uint8_t *before = nullptr;    // the same when the block passed its last barrier (or started): what
                                  // a read may count on other threads having written
    uint32_t *suspect = nullptr;  // per byte: 1 + the index in pending of the read that found it unwritten
    host_vector<Suspect> pending;
    uint32_t phase = 0;           // the barriers the block has passed
};

SIM_UNTRACED inline void init_attach(State *s) {
    s->init_shared = new InitShared();
    s->init_shared->written = (uint8_t *)zalloc(s->tls_n + s->dyn_n);
    s->init_shared->before = (uint8_t *)zalloc(s->tls_n + s->dyn_n);
    s->init_shared->suspect = (uint32_t *)zalloc(sizeof(uint32_t) * (s->tls_n + s->dyn_n));
}

// The block has passed a barrier, or ended: no thread can write what a suspect read with no barrier
// between any more, so each suspect is an uninitialised read or was a race.
SIM_UNTRACED inline void init_judge(State *s) {
    InitShared &sh = *s->init_shared;
    for (const Suspect &p : sh.pending) {
        if (!p.raced) {
            bool dynamic = p.offset >= s->tls_n;
            if (init_global.report.count == 0)  // what its block had written of that space before
                init_global.shared_written.assign(sh.before + (dynamic ? s->tls_n : 0),
                                                  sh.before + (dynamic ? s->tls_n + s->dyn_n : s->tls_n));
            init_report(dynamic ? p.offset - s->tls_n : p.offset, p.rec.block, p.rec.thread, p.rec.site,
                        p.size, dynamic ? 2 : 1);
        }
        for (uint32_t b = p.offset; b < p.offset + p.size && b < s->tls_n + s->dyn_n; b++) sh.suspect[b] = 0;
    }
    sh.pending.clear();
}

// A new block: nothing of its shared memory is written yet.
SIM_UNTRACED inline void init_enter_block(State *s) {
    init_judge(s);
    memset(s->init_shared->written, 0, s->tls_n + s->dyn_n);
    for (uint32_t k = 0; k < init_global.nunwatched; k++) {
        uint64_t at = init_global.unwatched_at[k], n = init_global.unwatched_n[k];
        if (at < s->tls_n) memset(s->init_shared->written + at, 1, at + n <= s->tls_n ? n : s->tls_n - at);
    }
    memcpy(s->init_shared->before, s->init_shared->written, s->tls_n + s->dyn_n);
    s->init_shared->phase = 0;
}

// A thread has passed the block's barrier number e: the first to do so judges what came before.
SIM_UNTRACED inline void init_after_barrier(State *s, uint32_t e) {
    if (e <= s->init_shared->phase) return;
    init_judge(s);
    s->init_shared->phase = e;
    if (init_global.report.count == 0)  // (only the first report's is kept)
        memcpy(s->init_shared->before, s->init_shared->written, s->tls_n + s->dyn_n);
}

SIM_UNTRACED inline void init_shared_access(State *s, uint32_t tid, uintptr_t a, unsigned size, unsigned flags,
                                            unsigned site) {
    InitShared &sh = *s->init_shared;
    bool dynamic = flags & DYNAMIC;
    uintptr_t base = dynamic ? s->tls_n : 0, n = dynamic ? s->dyn_n : s->tls_n;
    uintptr_t off = base + (dynamic ? a - s->dyn_lo : a - s->tls_lo), end = base + n;
    if (off + size < end) end = off + size;
    Rec c{(uint32_t)s->block_linear, (uint16_t)tid, (uint16_t)site, s->epoch[tid], (uint16_t)s->wepoch[tid],
          1, (uint8_t)(USED | ((flags & WRITE) ? WROTE : 0) | ((flags & ATOMIC) ? ATOMIC_OP : 0))};
    if (!(flags & WRITE) || (flags & ATOMIC)) {
        uintptr_t b = off;
        while (b < end && sh.written[b]) b++;
        if (b < end && !sh.suspect[b]) {  // (a later read of a byte already suspected is not counted)
            sh.pending.push_back(Suspect{c, (uint32_t)b, (uint32_t)(end - b), false});
            for (uintptr_t k = b; k < end; k++)
                if (!sh.written[k] && !sh.suspect[k]) sh.suspect[k] = (uint32_t)sh.pending.size();
        }
    }
    if (!(flags & WRITE)) return;
    for (uintptr_t b = off; b < end; b++) {
        if (uint32_t k = sh.suspect[b]) {
            Suspect &p = sh.pending[k - 1];
            p.raced = p.raced || concurrent(p.rec, c, true);
        }
        sh.written[b] = 1;
    }
}

SIM_UNTRACED inline void init_access(State *s, uint32_t tid, uintptr_t a, unsigned size, unsigned flags,
                                     unsigned site) {
    if (flags & SHARED) return init_shared_access(s, tid, a, size, flags, site);
    uint32_t i;
    uintptr_t off;
    if (!find_range(s->init_hint, a, &i, &off) || !init_global.shadow[i]) return;
    uint8_t *shadow = init_global.shadow[i] + off;
    uintptr_t n = cfg.range_n[i] - off < size ? cfg.range_n[i] - off : size;
    if (!(flags & WRITE) || (flags & ATOMIC)) {
        for (uintptr_t b = 0; b < n; b++) {
            if (shadow[b]) continue;
            init_report(a + b, (uint32_t)s->block_linear, tid, site, size, 3);
            break;
        }
    }
    if (flags & WRITE) memset(shadow, 1, n);
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop
