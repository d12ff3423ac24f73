"""matmul_bt's phase count, told from the simulator's counts of stores into shared memory: a
loop bound K + TILE - 1 / TILE is K + TILE phases (``/`` binds tighter than ``-``, and 1 / TILE
is 0 in int division), right, since the phases past K load only zeros, and slow (the checker's
``after`` hook, once every case passed)."""

from __future__ import annotations

from helpers.exercises.microscope import observe
from helpers.exercises.verdict import not_yet

TILE = 16
PROBES = (TILE, 2 * TILE)   # K of two one-block launches: 1 and 2 phases, or 32 and 48


def phases_past_k(kernels, passed, launch):
    """``passed``, or NOT YET where the stores into the tiles grew from K = 16 to K = 32 as
    K + TILE does, where they double for one phase a TILE of K. ``launch(k)``: the checker's
    launch of one block (M = N = TILE) over K = k."""
    stores = []
    for k in PROBES:
        seen = observe(kernels, launch(k), key=f"phases, K = {k}", racecheck=False)
        if seen.error is not None or seen.stats is None:
            return passed
        stores.append(seen.stats.shared_st.requests)
    (k1, k2), (s1, s2) = PROBES, stores
    if not s1 or s2 * (k1 + TILE) != s1 * (k2 + TILE):
        return passed
    return not_yet(
        f"the phase loop ran K + {TILE} phases ({k2 + TILE} with K = {k2}), where (K + TILE - 1) "
        f"/ TILE = {-(-k2 // TILE)} cover K: on the simulator, one block's stores into the tiles "
        f"grew from {s1} with K = {k1} to {s2} with K = {k2}, as {k1 + TILE} phases to "
        f"{k2 + TILE} do; K + TILE - 1 / TILE is K + TILE - 0, for / binds tighter than + and "
        "-, and 1 / TILE is 0 in int division. C is right only because the phases past K load "
        "zeros, each one waiting at two barriers",
        "divide the whole sum, in parentheses: phase < (K + TILE - 1) / TILE")
