// sim_trace_api.h -- what Python calls on an instrumented module (microscope/instrumented.py):
// the site table once, then, around each traced launch, begin and end.
#pragma once

SIM_EXPORT SIM_UNTRACED int sim_trace_abi_size(const char *name) {
    if (!strcmp(name, "Detail")) return (int)sizeof(sim::trace::Detail);
    if (!strcmp(name, "RaceReport")) return (int)sizeof(sim::trace::RaceReport);
    if (!strcmp(name, "InitReport")) return (int)sizeof(sim::trace::InitReport);
    if (!strcmp(name, "BoundsReport")) return (int)sizeof(sim::trace::BoundsReport);
    if (!strcmp(name, "SiteStats")) return (int)sizeof(sim::trace::SiteStats);
    if (!strcmp(name, "Rec.WROTE")) return sim::trace::WROTE;  // flags, checked like sizes
    if (!strcmp(name, "Rec.ATOMIC_OP")) return sim::trace::ATOMIC_OP;
    return -1;
}

// The learner's call sites: the callbacks' return addresses (as the library's addresses, before
// it is loaded) and their site numbers 1..count. Returns 0, or -1 when the library is not found.
SIM_EXPORT SIM_UNTRACED int sim_trace_set_sites(const uint64_t *vaddr, const uint16_t *site, uint64_t n,
                                                uint32_t count) {
    using namespace sim::trace;
    uintptr_t base = module_base();
    if (!base) return -1;
    uint64_t lo = ~0ull, hi = 0;
    for (uint64_t i = 0; i < n; i++) lo = vaddr[i] < lo ? vaddr[i] : lo, hi = vaddr[i] > hi ? vaddr[i] : hi;
    free(site_of);
    text_lo = n ? base + lo : 0;
    text_n = n ? hi - lo + 1 : 0;
    site_of = (uint16_t *)zalloc(sizeof(uint16_t) * text_n);
    for (uint64_t i = 0; i < n; i++) site_of[vaddr[i] - lo] = site[i];
    nsites = count;
    return 0;
}

// The bounds check's tables for the next traced launch (sim_bounds.h): the pages of each of
// sim_trace_begin's allocations (in its order), guard pages included; the launched kernel's
// __shared__ arrays, as offsets in the module's thread-local block (sorted) and bytes.
SIM_EXPORT SIM_UNTRACED void sim_trace_bounds(const uint64_t *pages_lo, const uint64_t *pages_n,
                                              const uint64_t *shared_at, const uint64_t *shared_n,
                                              uint32_t nshared) {
    using namespace sim::trace;
    bounds_global.pages_lo = pages_lo, bounds_global.pages_n = pages_n;
    bounds_global.shared_at = shared_at, bounds_global.shared_n = shared_n, bounds_global.nshared = nshared;
}

// The init check's unwatched thread-locals (InitGlobal), for the launches that follow.
SIM_EXPORT SIM_UNTRACED void sim_trace_init_unwatched(const uint64_t *at, const uint64_t *n, uint32_t count) {
    using namespace sim::trace;
    init_global.unwatched_at = at, init_global.unwatched_n = n, init_global.nunwatched = count;
}

// Starts a traced launch. mode: STATS | RACE | DETAIL | BLOCKS | INIT. The live allocations,
// sorted by address, let global accesses be placed as on a GPU and give the race check its shadow
// arrays; written (for INIT) holds each allocation's shadow of written bytes, or null where it has
// none; detail (cap records) receives each access for pictures.
SIM_EXPORT SIM_UNTRACED void sim_trace_begin(int mode, const uint64_t *lo, const uint64_t *size, uint32_t n,
                                             uint8_t **written, sim::trace::Detail *detail, uint64_t cap) {
    using namespace sim::trace;
    cfg.mode = mode;
    cfg.range_lo = lo, cfg.range_n = size, cfg.nranges = n;
    cfg.detail = detail, cfg.detail_cap = cap;
    cfg.ndetail = 0;
    cfg.fenced = 0;
    race_begin();
    race_global.ranges = (Cell **)zalloc(sizeof(Cell *) * (n + 1));
    init_global.report = InitReport{};
    init_global.shadow = written;
    bounds_global.report = BoundsReport{};
    init_global.shared_written.clear();
}

// Ends it: counts what the workers still hold, adds up their figures into stats
// ((count + 1) x 2 spaces x SiteStats), copies the race, init and bounds reports, frees everything.
// Returns the number of accesses the launch made (more than cap when some were left out of detail).
SIM_EXPORT SIM_UNTRACED uint64_t sim_trace_end(uint64_t *stats, sim::trace::RaceReport *race,
                                               sim::trace::InitReport *init, sim::trace::BoundsReport *bounds) {
    using namespace sim::trace;
    size_t fields = sizeof(SiteStats) / sizeof(uint64_t), total = 2 * (nsites + 1) * fields;
    for (size_t i = 0; i < total; i++) stats[i] = 0;
    uint64_t recorded = 0;
    std::lock_guard<std::mutex> g(states_mu);
    while (State *s = states) {
        flush_all(s);
        recorded += s->recorded;
        const uint64_t *mine = (const uint64_t *)s->stats;
        for (size_t i = 0; i < total; i++) stats[i] += mine[i];
        for (auto &L : s->logs) free(L.e);
        free(s->stats), free(s->occ), free(s->scratch), free(s->keys), free(s->keys_k);
        free(s->head), free(s->next_of);
        free(s->bb_lane), free(s->bb_max), free(s->bb_sum), free(s->lane_blocks), free(s->warp_blocks);
        if (s->race) free(s->race->cells);
        delete s->race;
        if (s->init_shared)
            init_judge(s), free(s->init_shared->written), free(s->init_shared->before), free(s->init_shared->suspect);
        delete s->init_shared;
        states = s->next;
        delete s;
    }
    race_end();
    *race = race_global.report;
    *init = init_global.report;
    *bounds = bounds_global.report;
    init_global.shadow = nullptr;
    for (uint32_t i = 0; i < cfg.nranges; i++) free(race_global.ranges[i]);
    free(race_global.ranges);
    race_global.ranges = nullptr;
    cfg.mode = 0;
    return recorded;
}

// After a launch whose init report is in shared memory: which bytes of that space (the __shared__
// arrays, or the dynamic arena) its block had written by the last barrier before the read (or its
// start), 1 each, copied into out up to cap bytes. Returns how many there are.
SIM_EXPORT SIM_UNTRACED uint64_t sim_trace_init_shared(uint8_t *out, uint64_t cap) {
    const auto &w = sim::trace::init_global.shared_written;
    if (out) memcpy(out, w.data(), w.size() < cap ? w.size() : cap);
    return w.size();
}
