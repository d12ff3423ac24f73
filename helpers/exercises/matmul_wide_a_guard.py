"""A's load guard in matmul_wide, told from what the simulator's launches loaded: a guard that
tests the row alone, or one that lets a thread load where either of its tests holds, as
(row < M || a_col < K) does (the checker's ``_read_past``, once C showed each row's columns run
to the end of the last phase)."""

from __future__ import annotations

import dataclasses

from helpers.exercises.common import Input
from helpers.exercises.microscope import accesses_of, observe

TILE_M, TILE_K = 8, 32
ROWS_PAST_M = (5, 33, 31)   # (M, K, N): one block, rows 5 to 7 past M, a_col up to 63 past K


def a_column_unguarded(run, launch, cases):
    """A read past A that took each row's columns up to N, where on the simulator a case with
    N < K (none past A then for a guard against N) stops at a read past A's end by a thread of
    its last row: A's load lets a_col past K (a row took the next row's first elements, which
    B's rows past K, loaded as 0, cancel; the last row's went past A). ``launch``: the
    checker's, a case's launch; ``cases``: its cases."""
    m, k, n = next(c for c in cases if c[2] < c[1])
    err = observe(run.kernel, launch((m, k, n)), key="B's guard", racecheck=False).error
    if getattr(err, "kind", None) != "out of bounds" or err.array != "A" or err.is_write or \
            err.block[1] * TILE_M + err.thread[1] != m - 1:
        return
    big_k = run.model[0].shape[1]
    overrun = (f"a_col runs to the end of the last phase ({-(-big_k // TILE_K) * TILE_K} with "
               f"K = {big_k}), past each row's K elements: a row took the next row's first "
               "elements (which B's rows past K, loaded as 0, cancel), and the last row read past "
               f"the end of A (on the simulator, with M, K, N = {m}, {k}, {n}, thread {err.thread} "
               f"of block {err.block} read A[{err.element}], past its {err.length} elements)")
    past_m = _rows_past_m_loaded(run.kernel, launch)
    if past_m is None:
        yield (f"A's load guards the row alone, (row < M), with no test of its column: {overrun}",
               "guard A's column too: As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] "
               ": 0.0f")
        return
    if past_m[0]:
        yield (f"A's load has no guard: every thread loads A[row * K + a_col], {overrun}; and "
               f"rows past M loaded too, at every a_col ({past_m[1]})", "load only A's elements, "
               "0 past its edges: As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f")
        return
    yield ("A's load guard lets a thread load where either of its tests holds, as (row < M || "
           f"a_col < K) does: in rows below M {overrun}; and rows past M loaded too, where a_col "
           f"< K ({past_m[1]})", "join the two tests with &&: (row < M && a_col < K), so that a "
           "thread loads only an element inside A: As[ty][tx] = (row < M && a_col < K) ? "
           "A[row * K + a_col] : 0.0f")


def _rows_past_m_loaded(kernels, launch):
    """On the simulator, one block over M, K, N = ``ROWS_PAST_M``, A with room after it: where
    the threads of rows past M loaded A at every a_col below K, (whether they loaded past K too
    (no guard) or not (a guard joined with ||), what one of them read, in words); None
    otherwise."""
    m, k, n = ROWS_PAST_M
    base = launch(ROWS_PAST_M)
    a = base.model[0]
    roomy = dataclasses.replace(base, args=(Input(a, TILE_M * 2 * TILE_K), *base.args[1:]))
    kept = accesses_of(kernels, roomy, "A's rows past M", 40_000)
    if kept is None:
        return None
    reads = kept[(kept["array"] == "A") & ~kept["write"] & (kept["block"] == 0)]
    row = reads["thread"] // TILE_K
    past = reads[row >= m]
    a_col = past["index"] - row[row >= m] * k
    if not len(past) or not set(range(k)) <= set(a_col.tolist()):
        return None
    first = past[0]
    return bool((a_col >= k).any()), (f"on the simulator, with M, K, N = {m}, {k}, {n}, thread "
            f"({int(first['thread']) % TILE_K}, {int(first['thread']) // TILE_K}, 0) of row "
            f"{int(first['thread']) // TILE_K} read A[{int(first['index'])}], past its {a.size} "
            "elements")
