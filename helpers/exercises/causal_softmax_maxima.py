"""The causal_softmax checker's (helpers.exercises.causal_softmax) mistakes where the lanes of a
warp subtract different maxima: warp_max by __shfl_down_sync, no warp_max at all, and a warp_max
whose loop stopped before its last shuffles (``max_shuffles_cut_short``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.causal_softmax_models import (_lanes_own_max, _near, _shfl_down_max,
                                                     softmax, visible)


def lanes_maxima(x, got):
    """The mistakes where the lanes subtract different maxima, each named by its model."""
    if _near(got, softmax(x, shift=_shfl_down_max(x))):
        yield ("each lane subtracted a different max: only lane 0 holds the row's max after "
               "__shfl_down_sync, the other lanes a max of part of the row",
               "every lane needs the row's max: m = warp_max(m), whose __shfl_xor_sync leaves it "
               "in every lane (or hand lane 0's to all: m = __shfl_sync(0xffffffffu, m, 0))")
    if _near(got, _lanes_own_max(x)):
        yield ("each lane subtracted the max of its own columns, not the row's",
               "after each lane's max, m = warp_max(m): all 32 lanes need the same max")
    yield from max_shuffles_cut_short(x, got)


def _groups_max(x, u):
    """What each column's lane subtracts after a warp_max whose loop ran offsets 16 down to u
    only: lane l ends with the max of the lanes l' with l' % u == l % u (32 / u of them)."""
    seen = np.where(visible(*x.shape), x.astype(np.float64), -np.inf)
    part, lanes = np.full((x.shape[0], 32), -np.inf), np.arange(32)
    for lane in range(min(32, x.shape[1])):
        part[:, lane] = seen[:, lane::32].max(axis=1)
    groups = np.stack([part[:, lanes % u == lane % u].max(axis=1) for lane in lanes], axis=1)
    return groups[:, np.arange(x.shape[1]) % 32]


def max_shuffles_cut_short(x, got):
    """warp_max's loop stopped before its last shuffles (offset > 1, say): with offsets 16 down
    to u only (u = 2, 4, 8, 16), each lane subtracts the max of its group of 32 / u lanes, so
    the lanes of a row subtract different maxima; named where one u alone matches."""
    matched = [u for u in (2, 4, 8, 16) if _near(got, softmax(x, shift=_groups_max(x, u)))]
    if len(matched) != 1:   # none, or not told apart by this case
        return
    u, want = matched[0], softmax(x)
    r, c = np.argwhere(~np.isclose(got, want, rtol=4e-3, atol=1e-4))[0]
    skipped = " and ".join(str(o) for o in (8, 4, 2, 1) if o < u)
    yield (f"each lane subtracted a different max (y[{r}][{c}] = {got[r, c]:.4g}, expected "
           f"{want[r, c]:.4g}): each lane's max holds only {32 // u} of the warp's 32 lanes "
           f"(every {'second' if u == 2 else f'{u}th'} lane, its own among them), as warp_max's "
           f"loop stopped before its shuffle{'s' if u > 2 else ''} at offset {skipped}: its "
           f"test ends the loop at offset {u}, so the lanes {skipped} apart never compared their "
           "maxima", "warp_max's loop runs down to offset 1, whose shuffle takes the "
           "neighbouring lane's max: for (int offset = 16; offset > 0; offset /= 2)")
