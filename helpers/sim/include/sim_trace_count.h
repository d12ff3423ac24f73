// sim_trace_count.h -- the memory trace's counting (included by sim_trace.h): a warp's logged
// accesses grouped into requests, and what each request costs, as Nsight Compute counts it.
#pragma once

#pragma GCC visibility push(hidden)
namespace sim {
namespace trace {

// Sorts v (almost always sorted already) and counts its distinct values.
SIM_UNTRACED inline int count_distinct(uint64_t *v, int n) {
    bool sorted = true;
    for (int i = 1; i < n && sorted; i++) sorted = v[i - 1] <= v[i];
    if (!sorted)
        for (int i = 1; i < n; i++) {
            uint64_t x = v[i];
            int j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
    int distinct = n > 0;
    for (int i = 1; i < n; i++) distinct += v[i] != v[i - 1];
    return distinct;
}

// The lanes of one request: their entries, by pointer or (a whole warp without divergence, whose
// lanes' entries follow each other in the log) every stride-th.
struct ByPointer {
    Entry **v;
    SIM_UNTRACED __attribute__((always_inline)) Entry *operator[](int i) const { return v[i]; }
};
struct ByStride {
    Entry *e;
    uint32_t stride;
    SIM_UNTRACED __attribute__((always_inline)) Entry *operator[](int i) const { return e + (size_t)i * stride; }
};

// Global memory: the distinct 32-byte sectors that the lanes of one request touch.
template <typename Lanes>
SIM_UNTRACED inline void count_global(SiteStats &st, Lanes v, int n, Placer &place) {
    uint64_t sectors = 0, last = 0, previous = 0, bytes = 0;
    bool ascending = true;  // the usual case: one pass, no sorting
    for (int i = 0; i < n; i++) {
        uint64_t a = place(v[i]->addr), size = v[i]->size ? v[i]->size : 1;
        uint64_t first = a >> 5, end = (a + size - 1) >> 5;
        bytes += v[i]->size;
        ascending = ascending && a >= previous;
        if (i == 0 || first > last) sectors += end - first + 1, last = end;
        else if (end > last) sectors += end - last, last = end;
        previous = a;
    }
    if (!ascending) {
        uint64_t all[128];
        int ns = 0;
        for (int i = 0; i < n; i++) {
            uint64_t a = place(v[i]->addr), size = v[i]->size ? v[i]->size : 1;
            for (uint64_t s = a >> 5; s <= (a + size - 1) >> 5 && ns < 128; s++) all[ns++] = s;
        }
        sectors = count_distinct(all, ns);
    }
    st.requests++;
    st.lanes += n;
    st.bytes += bytes;
    st.sectors += sectors;
}

// Shared memory: 32 banks of 4 bytes. Lanes reading the same word share it (a broadcast); each
// further word in one bank costs a wavefront. 8-byte accesses go in two phases of 16 lanes, 16-byte
// ones in four of 8, as Nsight Compute counts them.
SIM_UNTRACED inline void count_shared(SiteStats &st, Entry **v, int n) {
    int size = v[0]->size ? v[0]->size : 1;
    int per_phase = size <= 4 ? 32 : size <= 8 ? 16 : 8;
    for (int p = 0; p < 32 / per_phase; p++) {
        uint64_t words[128];
        int nw = 0;
        for (int i = 0; i < n; i++) {
            if (v[i]->lane / per_phase != p) continue;
            uint64_t a = v[i]->addr;
            for (uint64_t w = a >> 2; w <= (a + size - 1) >> 2 && nw < 128; w++) words[nw++] = w;
        }
        if (!nw) continue;
        count_distinct(words, nw);  // which sorts them
        int most = 0;
        uint8_t in_bank[32] = {0};
        for (int i = 0; i < nw; i++)
            if (i == 0 || words[i] != words[i - 1]) {
                int b = (int)(words[i] & 31);
                if (++in_bank[b] > most) most = in_bank[b];
            }
        st.wavefronts += most;
        st.ideal_wavefronts += 1;
    }
    for (int i = 0; i < n; i++) st.bytes += v[i]->size;
    st.requests++;
    st.lanes += n;
}

// One request: the lanes of a warp that executed one site for the k-th time.
SIM_UNTRACED inline void count_request(State *s, Entry **v, int n, bool any_shared) {
    SiteStats *st = s->stats + 2 * v[0]->site;
    if (v[0]->flags & BASIC_BLOCK) {
        st->requests++;
        st->lanes += n;
        return;
    }
    if (!any_shared) return count_global(st[GLOBAL_SPACE], ByPointer{v}, n, s->place);
    int shared = 0;
    for (int i = 0; i < n; i++) shared += (v[i]->flags & SHARED) != 0;
    if (shared == 0) return count_global(st[GLOBAL_SPACE], ByPointer{v}, n, s->place);
    if (shared == n) return count_shared(st[SHARED_SPACE], v, n);
    Entry *g[32], *sh[32];  // a pointer that is shared for some lanes, global for others
    int ng = 0, nsh = 0;
    for (int i = 0; i < n; i++) {
        if (v[i]->flags & SHARED) sh[nsh++] = v[i];
        else g[ng++] = v[i];
    }
    count_global(st[GLOBAL_SPACE], ByPointer{g}, ng, s->place);
    count_shared(st[SHARED_SPACE], sh, nsh);
}

SIM_UNTRACED inline void grow(State *s, uint32_t n) {
    if (n <= s->scratch_cap) return;
    uint32_t cap = s->scratch_cap ? s->scratch_cap : 1024;
    while (cap < n) cap *= 2;
    free(s->scratch), free(s->keys), free(s->keys_k), free(s->head), free(s->next_of);
    s->scratch = (Entry *)malloc(sizeof(Entry) * cap);
    s->table_cap = 2 * cap;
    s->keys = (uint64_t *)malloc(sizeof(uint64_t) * s->table_cap);
    s->keys_k = (uint32_t *)malloc(sizeof(uint32_t) * s->table_cap);
    s->head = (uint32_t *)malloc(sizeof(uint32_t) * cap);
    s->next_of = (uint32_t *)malloc(sizeof(uint32_t) * cap);
    s->scratch_cap = cap;
}

// Lanes whose sequences of sites differ (divergence): group by (site, k) through a hash table.
SIM_UNTRACED inline void group_general(State *s, Entry *e, const uint32_t *start, bool any_shared) {
    uint32_t nreq = 0, mask = s->table_cap - 1;
    for (uint32_t i = 0; i < s->table_cap; i++) s->keys[i] = 0;
    for (int lane = 0; lane < 32; lane++) {
        for (uint32_t i = start[lane]; i < start[lane + 1]; i++) {
            uint32_t k = s->occ[e[i].site]++;
            uint64_t key = ((uint64_t)e[i].site << 32 | k) + 1;
            uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
            while (s->keys[h] && s->keys[h] != key) h = (h + 1) & mask;
            if (!s->keys[h]) s->keys[h] = key, s->keys_k[h] = nreq, s->head[nreq++] = ~0u;
            uint32_t r = s->keys_k[h];
            s->next_of[i] = s->head[r];
            s->head[r] = i;
        }
        for (uint32_t i = start[lane]; i < start[lane + 1]; i++) s->occ[e[i].site] = 0;
    }
    for (uint32_t r = 0; r < nreq; r++) {
        Entry *v[32];
        int m = 0;
        for (uint32_t i = s->head[r]; i != ~0u && m < 32; i = s->next_of[i]) v[m++] = &e[i];
        count_request(s, v, m, any_shared);
    }
}

// Lanes that ran the same sequence of sites (no divergence): request j is entry j of each lane.
SIM_UNTRACED inline bool group_uniform(State *s, Entry *e, const uint32_t *start, bool any_shared) {
    uint32_t at[32], m = 0;  // where each lane with entries begins; their common count
    int lanes = 0;
    for (int l = 0; l < 32; l++) {
        uint32_t count = start[l + 1] - start[l];
        if (!count) continue;
        if (lanes && count != m) return false;
        m = count;
        at[lanes++] = start[l];
    }
    for (int i = 1; i < lanes; i++)
        for (uint32_t j = 0; j < m; j++)
            if (e[at[i] + j].site != e[at[0] + j].site) return false;
    bool whole = lanes == 32 && at[31] == at[0] + 31 * m && !any_shared;  // one after another
    for (uint32_t j = 0; j < m; j++) {
        Entry *first = &e[at[0] + j];
        if (whole && !(first->flags & BASIC_BLOCK)) {
            count_global(s->stats[2 * first->site + GLOBAL_SPACE], ByStride{first, m}, 32, s->place);
            continue;
        }
        Entry *v[32];
        for (int i = 0; i < lanes; i++) v[i] = &e[at[i] + j];
        count_request(s, v, lanes, any_shared);
    }
    return true;
}

SIM_UNTRACED inline void keep_detail(State *s, int warp, const WarpLog &L) {
    uint64_t n = L.n;  // without fibers, basic blocks are counted, not logged
    if (!s->plain)
        for (uint32_t i = 0; i < L.n; i++) n -= (L.e[i].flags & BASIC_BLOCK) != 0;
    s->recorded += n;
    if (cfg.ndetail.load(std::memory_order_relaxed) >= cfg.detail_cap) return;
    uint64_t at = cfg.ndetail.fetch_add(n);
    for (uint32_t i = 0; i < L.n && at < cfg.detail_cap; i++) {
        const Entry &x = L.e[i];
        if (x.flags & BASIC_BLOCK) continue;
        // shared memory as an offset (static: in the module's thread-local block; dynamic: in
        // the launch's shared= bytes), since each worker has its own
        uint64_t a = !(x.flags & SHARED) ? x.addr : (x.flags & DYNAMIC) ? x.addr - s->dyn_lo : x.addr - s->tls_lo;
        cfg.detail[at++] = Detail{a, (uint32_t)s->block_linear, (uint32_t)(warp * 32 + x.lane),
                                  x.site, x.size, x.flags, 0};
    }
}

// Basic blocks without fibers: each lane's executions are counted, not logged. A warp runs a
// block as often as its busiest lane (the k-th executions form one step), with as many lanes
// active in all as the lanes' executions add up to.
SIM_UNTRACED inline void fold_lane(State *s) {
    for (uint32_t i = 0; i < s->nlane_blocks; i++) {
        uint32_t site = s->lane_blocks[i], c = s->bb_lane[site];
        if (!s->bb_sum[site]) s->warp_blocks[s->nwarp_blocks++] = site;
        s->bb_sum[site] += c;
        if (c > s->bb_max[site]) s->bb_max[site] = c;
        s->bb_lane[site] = 0;
    }
    s->nlane_blocks = 0;
}

SIM_UNTRACED inline void flush_blocks(State *s) {
    fold_lane(s);
    for (uint32_t i = 0; i < s->nwarp_blocks; i++) {
        uint32_t site = s->warp_blocks[i];
        s->stats[2 * site].requests += s->bb_max[site];
        s->stats[2 * site].lanes += s->bb_sum[site];
        s->bb_max[site] = s->bb_sum[site] = 0;
    }
    s->nwarp_blocks = 0;
}

// A warp's accesses are complete: count its requests and empty its log.
SIM_UNTRACED inline void flush_warp(State *s, int warp) {
    if (s->plain) flush_blocks(s);
    WarpLog &L = s->logs[s->plain ? 0 : warp];
    if (!L.n) return;
    if (cfg.mode & DETAIL) keep_detail(s, warp, L);
    if (cfg.mode & STATS) {
        uint32_t start[33] = {0};
        bool sorted = true, any_shared = s->log_shared;
        if (s->plain) {  // lanes one after another: where each began was noted (next_thread)
            start[32] = L.n;
            for (int l = 31; l >= 0; l--) start[l] = s->lane_at[l] != ~0u ? s->lane_at[l] : start[l + 1];
        } else {
            for (uint32_t i = 0; i < L.n; i++) {
                start[L.e[i].lane + 1]++;
                any_shared = any_shared || (L.e[i].flags & SHARED);
                sorted = sorted && (i == 0 || L.e[i - 1].lane <= L.e[i].lane);
            }
            for (int l = 0; l < 32; l++) start[l + 1] += start[l];
        }
        grow(s, L.n);
        Entry *e = L.e;
        if (!sorted) {  // fibers interleave lanes: put each lane's entries together, in order
            uint32_t at[32];
            memcpy(at, start, sizeof at);
            for (uint32_t i = 0; i < L.n; i++) s->scratch[at[L.e[i].lane]++] = L.e[i];
            e = s->scratch;
        }
        if (!group_uniform(s, e, start, any_shared)) group_general(s, e, start, any_shared);
    }
    L.n = 0;
    memset(s->lane_at, 0xff, sizeof s->lane_at);
    s->log_shared = false;
}

SIM_UNTRACED inline void flush_all(State *s) {
    if (s->plain) flush_warp(s, (int)(s->cur_tid >> 5));
    else
        for (uint32_t w = 0; w < s->nwarps; w++) flush_warp(s, (int)w);
}

}  // namespace trace
}  // namespace sim
#pragma GCC visibility pop
