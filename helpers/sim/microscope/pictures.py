"""Pictures of a memory trace: which thread touched which element, a warp's addresses against
32-byte sectors, a shared array's banks with the conflicting lanes marked.

    from helpers.sim.microscope.trace import trace
    from helpers.sim.microscope import pictures
    with trace() as t:
        kernel(..., block=(8, 8, 1), grid=(2, 2))
    launch = t.launches[0]
    pictures.threads(launch, "out", shape=(16, 16))   # who wrote each element of out
    pictures.sectors(launch, line=24)                 # warp 0's request on line 24
    pictures.banks(launch, line=31)                   # and for a shared-memory line

All three read the single accesses the trace keeps (the first `trace(accesses=...)` of a launch):
draw small launches. Each returns the matplotlib Axes it drew on.
"""

from __future__ import annotations

import numpy as np

from .instrumented import DYNAMIC, SHARED, WRITE

ACCESS_DTYPE = np.dtype([("block", "<u4"), ("thread", "<u4"), ("warp", "<u4"), ("lane", "<u4"),
                         ("line", "<i4"), ("write", "?"), ("shared", "?"), ("array", "U40"),
                         ("index", "<i8"), ("offset", "<i8"), ("bytes", "u1")])


def access_table(launch):
    """Every kept access of a launch (helpers.sim.microscope.trace.KernelTrace) as a record array."""
    raw = launch._detail
    out = np.zeros(0 if raw is None else len(raw), ACCESS_DTYPE)
    if not len(out):
        return out.view(np.recarray)
    lines = np.array([0] + [s.line for s in launch.sites])
    out["block"], out["thread"] = raw["block"], raw["thread"]
    out["warp"], out["lane"] = raw["thread"] // 32, raw["thread"] % 32
    out["line"], out["bytes"] = lines[raw["site"]], raw["size"]
    out["write"] = (raw["flags"] & WRITE) != 0
    out["shared"] = (raw["flags"] & SHARED) != 0
    out["array"], out["index"] = "?", -1
    _name_shared(out, raw, launch.places)
    _name_global(out, raw, launch.places)
    return out.view(np.recarray)


def _name_shared(out, raw, places):
    """Array, element and offset of each shared access: an element of the access's own size
    (Places.shared_place), worked out once for each (address, dynamic, size) there is."""
    shared = np.flatnonzero(out["shared"])
    keys = np.stack([raw["addr"][shared].astype(np.int64),
                     (raw["flags"][shared] & DYNAMIC) != 0,
                     np.maximum(raw["size"][shared], 1)], axis=1)
    kinds, which = np.unique(keys, axis=0, return_inverse=True)
    named = [places.shared_place(int(a), bool(d), int(b)) for a, d, b in kinds]
    out["offset"][shared] = keys[:, 0]
    out["array"][shared] = [named[k][0] for k in which.ravel()]
    out["index"][shared] = [named[k][1] for k in which.ravel()]


def _name_global(out, raw, places):
    """Array, element and offset of each global access: in the first kernel argument whose
    allocation holds it (Places.global_place), else "?" and the address itself."""
    addresses = raw["addr"].astype(np.int64)
    left = ~out["shared"]
    out["offset"][left] = addresses[left]
    for start, size, label, elem, view in places.arrays:
        inside = left & (addresses >= start) & (addresses < start + size)
        out["array"][inside], out["index"][inside] = label, (addresses[inside] - start - view) // elem
        out["offset"][inside] = addresses[inside] - start
        left &= ~inside


def _axes(ax, figsize):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=figsize)
    return ax


def threads(launch, array, shape=None, write=True, ax=None):
    """An image of `array` (a kernel parameter's name): each element coloured and labelled by
    the thread (numbered across the grid) that wrote it (write=False: read it); blank where no
    thread did, a cross where several did."""
    acc = launch.accesses()
    acc = acc[(acc.array == array) & (acc.write == write)]
    size = int(np.prod(shape)) if shape else int(acc.index.max()) + 1 if len(acc) else 1
    threads_per_block = int(np.prod(launch.block))
    who = np.full(size, np.nan)
    count = np.zeros(size, int)
    for rec in acc:
        if 0 <= rec.index < size:
            who[rec.index] = rec.block * threads_per_block + rec.thread
            count[rec.index] += 1
    grid = who.reshape(shape if shape and len(shape) == 2 else (1, size))
    ax = _axes(ax, (min(12, 1 + grid.shape[1] * 0.5), min(8, 1 + grid.shape[0] * 0.5)))
    ax.imshow(grid, cmap="viridis")
    if grid.size <= 1024:
        for (r, c), value in np.ndenumerate(grid):
            several = count.reshape(grid.shape)[r, c] > 1
            if not np.isnan(value):
                ax.text(c, r, "x" if several else str(int(value)), ha="center", va="center",
                        fontsize=7, color="white" if not several else "red")
    ax.set_title(f"{launch.name}: which thread {'wrote' if write else 'read'} each element "
                 f"of {array}")
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def request(launch, line, warp=0, block=0, nth=0, shared=False):
    """The accesses of one request: the nth execution of the first global (shared=True: shared)
    memory instruction of `line` by the lanes of one warp (a record array, one row a lane)."""
    acc = launch.accesses()
    acc = acc[(acc.line == line) & (acc.warp == warp) & (acc.block == block) & (acc.shared == shared)]
    if not len(acc):
        raise ValueError(f"no {'shared' if shared else 'global'} memory access of line {line} by "
                         f"warp {warp} of block {block} was kept")
    first = acc[(acc.write == acc[0].write) & (acc.array == acc[0].array)]
    rows = [lane_rows[nth] for lane in np.unique(first.lane)
            if len(lane_rows := first[first.lane == lane]) > nth]
    return np.array(rows, dtype=ACCESS_DTYPE).view(np.recarray)


def sectors(launch, line, warp=0, block=0, nth=0, ax=None):
    """One request's lanes against the 32-byte sectors they fall in (global memory)."""
    req = request(launch, line, warp, block, nth)
    first = int(req.offset.min()) // 32 * 32
    last = int((req.offset + np.maximum(req.bytes, 1)).max())
    touched = sorted({s for o, n in zip(req.offset, req.bytes) for s in range(o // 32, (o + max(n, 1) - 1) // 32 + 1)})
    ax = _axes(ax, (10, 4))
    for s in range(first // 32, (last + 31) // 32):
        ax.axvspan(s * 32 - first, (s + 1) * 32 - first, lw=0,
                   color=("tab:orange" if s % 2 else "gold") if s in touched else "0.92", alpha=0.4)
        ax.axvline(s * 32 - first, color="0.4", lw=0.5)
    ax.barh(req.lane, np.maximum(req.bytes, 1), left=req.offset - first, color="tab:blue")
    ax.set_xlabel(f"bytes from offset {first} of {req.array[0]} (shaded: 32-byte sectors)")
    ax.set_ylabel("lane")
    ax.invert_yaxis()
    ax.set_title(f"{launch.name}, line {line}, warp {warp}: {len(req)} lanes, "
                 f"{len(touched)} sectors")
    return ax


def banks(launch, line, warp=0, block=0, nth=0, ax=None):
    """One shared-memory request: each lane's 4-byte word placed in its bank (x) and by which
    word of that bank it is (y); lanes in a bank with more than one word (a conflict) in red."""
    req = request(launch, line, warp, block, nth, shared=True)
    words = req.offset // 4
    bank = words % 32
    levels = {b: sorted(set(words[bank == b])) for b in np.unique(bank)}
    depth = np.array([levels[b].index(w) for b, w in zip(bank, words)])
    conflict = np.array([len(levels[b]) > 1 for b in bank])
    ax = _axes(ax, (10, 3 + 0.2 * max(len(v) for v in levels.values())))
    ax.scatter(bank[~conflict], depth[~conflict], color="tab:blue", label="no conflict")
    ax.scatter(bank[conflict], depth[conflict], color="tab:red", label="bank conflict")
    for lane, b, d in zip(req.lane, bank, depth):
        ax.annotate(str(lane), (b, d), textcoords="offset points", xytext=(0, 6), ha="center",
                    fontsize=7)
    worst = max(len(v) for v in levels.values())
    ax.set_xlim(-1, 32)
    ax.set_ylim(-0.5, worst - 0.5 + 0.8)
    ax.set_xticks(range(0, 32, 4))
    ax.set_yticks(range(worst))
    ax.set_xlabel("bank (4-byte word index mod 32)")
    ax.set_ylabel("distinct word in the bank")
    ax.set_title(f"{launch.name}, line {line} ({req.array[0]}), warp {warp}: "
                 f"{worst} wavefront{'s' * (worst > 1)}, lane numbers above")
    ax.legend(loc="upper right")
    return ax
