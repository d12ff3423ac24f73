// sim_init.h -- the init check of the instrumented build (included by sim_trace.h).
//
// Memory from cudaMalloc (mem_alloc, gpuarray.empty) is not zeroed on a GPU: it holds whatever an
// earlier program or array left there, and a kernel that reads it before anything wrote it gets
// a different wrong answer each time, or the right one by luck. The simulator's fresh pages are
// zero, so the luck is always good here. Instead, Python keeps a shadow of each allocation made
// while the check is on (helpers/sim/written.py): one byte per byte, 1 once written by a copy, a
// memset or a kernel. During a checked launch every global load of the learner's code looks at
// the shadow of the bytes it reads, and every store marks its bytes written. A read of a byte
// never written is what `compute-sanitizer --tool initcheck` reports on a GPU.
//
// Atomics read before they write: an atomicAdd on a counter nobody zeroed is an uninitialised
// read too. Shared memory is not checked (initcheck checks global memory only). A checked launch
// runs on one worker (trace_run.py), so the shadows and the report need no lock.
#pragma once

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

// What a failed check reports (mirrored by helpers/sim/trace_run.py).
struct InitReport {
    uint64_t count;    // uninitialised reads in the launch
    uint64_t address;  // the first byte of the first one never written
    uint32_t block;    // its block and thread, as linear indices
    uint16_t thread, site;
    uint32_t size;     // the bytes that access read
    uint32_t pad;
};

struct InitGlobal {
    uint8_t **shadow = nullptr;  // per allocation (cfg.range_lo order): 1 a byte written, or null
    InitReport report{};
};
inline InitGlobal init_global;

SIM_UNTRACED inline void init_access(State *s, uint32_t tid, uintptr_t a, unsigned size, unsigned flags,
                                     unsigned site) {
    uint32_t i;
    uintptr_t off;
    if (!find_range(s->init_hint, a, &i, &off) || !init_global.shadow[i]) return;
    uint8_t *shadow = init_global.shadow[i] + off;
    uintptr_t n = cfg.range_n[i] - off < size ? cfg.range_n[i] - off : size;
    if (!(flags & WRITE) || (flags & ATOMIC)) {
        for (uintptr_t b = 0; b < n; b++) {
            if (shadow[b]) continue;
            InitReport &rep = init_global.report;
            if (rep.count++ == 0)
                rep.address = a + b, rep.block = (uint32_t)s->block_linear, rep.thread = (uint16_t)tid,
                rep.site = (uint16_t)site, rep.size = size;
            break;
        }
    }
    if (flags & WRITE) memset(shadow, 1, n);
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop
