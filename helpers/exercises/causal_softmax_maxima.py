"""The causal_softmax checker's (helpers.exercises.causal_softmax) mistakes where the lanes of a
warp subtract different maxima: warp_max by __shfl_down_sync, no warp_max at all, and a warp_max
whose loop stopped before its last shuffles or started below offset 16 (``max_shuffles_short``)."""

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
    yield from max_shuffles_short(x, got)


def _groups_max(x, group):
    """What each column's lane subtracts where lane l ends with the max of the lanes in its group
    (``group``: each of the 32 lanes' group number)."""
    seen = np.where(visible(*x.shape), x.astype(np.float64), -np.inf)
    part, lanes = np.full((x.shape[0], 32), -np.inf), np.arange(32)
    for lane in range(min(32, x.shape[1])):
        part[:, lane] = seen[:, lane::32].max(axis=1)
    groups = np.stack([part[:, group == group[lane]].max(axis=1) for lane in lanes], axis=1)
    return groups[:, np.arange(x.shape[1]) % 32]


LANES = np.arange(32)
SHORT_BUTTERFLIES = ([("cut short", u, LANES % u) for u in (2, 4, 8, 16)]
                     + [("started late", s, LANES // (2 * s)) for s in (8, 4, 2, 1)])
"""warp_max's loops that leave out some shuffles, each with its lanes' groups: offsets 16 down
to u only (lane l holds the lanes l' with l' % u == l % u), or s down to 1 only (the 2 s
neighbouring lanes with l' // 2s == l // 2s)."""


def max_shuffles_short(x, got):
    """warp_max's loop stopped before its last shuffles, or started below offset 16: each lane
    subtracts the max of its group of lanes (``SHORT_BUTTERFLIES``), so the lanes of a row
    subtract different maxima; named where one such loop alone matches."""
    matched = [(kind, k) for kind, k, group in SHORT_BUTTERFLIES
               if _near(got, softmax(x, shift=_groups_max(x, group)))]
    if len(matched) != 1:   # none, or not told apart by this case
        return
    want = softmax(x)
    r, c = np.argwhere(~np.isclose(got, want, rtol=4e-3, atol=1e-4))[0]
    shown = (f"each lane subtracted a different max (y[{r}][{c}] = {got[r, c]:.4g}, expected "
             f"{want[r, c]:.4g}): ")
    kind, k = matched[0]
    yield _cut_short(shown, k) if kind == "cut short" else _started_late(shown, k)


def _cut_short(shown, u):
    """(problem, hint) of a warp_max whose loop ran offsets 16 down to ``u`` only."""
    skipped = " and ".join(str(o) for o in (8, 4, 2, 1) if o < u)
    return (f"{shown}each lane's max holds only {32 // u} of the warp's 32 lanes (every "
            f"{'second' if u == 2 else f'{u}th'} lane, its own among them), as warp_max's loop "
            f"stopped before its shuffle{'s' if u > 2 else ''} at offset {skipped}: its test "
            f"ends the loop at offset {u}, so the lanes {skipped} apart never compared their "
            "maxima", "warp_max's loop runs down to offset 1, whose shuffle takes the "
            "neighbouring lane's max: for (int offset = 16; offset > 0; offset /= 2)")


def _started_late(shown, s):
    """(problem, hint) of a warp_max whose loop ran offsets ``s`` down to 1 only."""
    skipped = " and ".join(str(o) for o in (16, 8, 4, 2) if o > s)
    return (f"{shown}each lane's max holds only {2 * s} of the warp's 32 lanes (lanes 0 to "
            f"{2 * s - 1} or {32 - 2 * s} to 31, its own "
            f"{'half' if s == 8 else f'group of {2 * s}'}), as warp_max's loop started at offset "
            f"{s}: its shuffle{'s' if s < 8 else ''} at offset {skipped}, which compare"
            f"{'' if s < 8 else 's'} the lanes farther apart, never ran", "warp_max's loop "
            "starts at offset 16, half the warp's 32 lanes, and halves it down to 1: for (int "
            "offset = 16; offset > 0; offset /= 2)")
