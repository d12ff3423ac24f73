"""The causal_softmax checker's (helpers.exercises.causal_softmax) hints for a crash in a
shuffle (``refine``): lanes that reach a warp function different numbers of times, lanes with no
visible column that returned before the shuffles (``lanes_without_a_column_left``), and a row
taken from the lane, not the warp, whose lanes past the last row returned
(``row_from_the_lane``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.causal_softmax_models import ROW_HINT


def refine(failure):
    """The hint for lanes that reach a warp function different numbers of times, or that left
    before it (``lanes_without_a_column_left``, ``row_from_the_lane``)."""
    if failure.kind == "warp mask" and getattr(failure.error, "rule", None) == \
            "lanes never arrive":
        yield from lanes_without_a_column_left(failure)
        yield from row_from_the_lane(failure)
        yield ("warp_max and warp_sum shuffle among all 32 lanes, so every lane must call each "
               "of them once, together: call them after the lane's loop over its columns, not "
               "inside it (a lane with fewer columns, or none, runs fewer turns) and not inside "
               "an if: m = warp_max(m); after the max's loop, sum = warp_sum(sum); after the "
               "sum's")


def lanes_without_a_column_left(failure):
    """A shuffle's crash where the threads left in the block (the error's ``waiting``, no
    barrier) are exactly lanes 0 to last = min(row, cols - 1) of each warp with a row: the lanes
    with no visible column returned (if (lane > last) return;) before the shuffles."""
    err, launch, block = failure.error, failure.launch, failure.block
    if launch is None or not block or err.barrier is not None or not err.block:
        return
    rows, cols, warps = int(launch.args[2]), int(launch.args[3]), int(np.prod(block)) // 32
    first = err.block[0] * warps
    lasts = [min(first + w, cols - 1) for w in range(warps) if first + w < rows]
    if min(lasts, default=31) >= 31 or tuple(getattr(err, "waiting", None) or ()) != tuple(
            32 * w + lane for w, last in enumerate(lasts) for lane in range(last + 1)):
        return
    shown = ", ".join(f"row {first + w}'s lane{f's 0 to {last}' if last else ' 0'}"
                      for w, last in enumerate(lasts))
    yield (f"only lanes 0 to last = min(row, cols - 1) of each warp came to the shuffles (in "
           f"block {err.block[0]}: {shown}): the other lanes, with no visible column, had returned, "
           "so the shuffles' mask 0xffffffff names lanes that never came, and those lanes never "
           "wrote the 0s of their masked columns", "a lane with no visible column stays: its "
           "loops run no turn, so it brings m = -INFINITY to warp_max and sum = 0 to warp_sum, "
           "and it writes the 0s of its masked columns; only a whole warp may return: if (row >= "
           "rows) return;")


def _span(first, last, one, many):
    """A span of lanes or rows in words: "lane 3", or "lanes 0 to 12" (``one`` and ``many``
    the noun)."""
    return f"{one} {first}" if first == last else f"{many} {first} to {last}"


def row_from_the_lane(failure):
    """A shuffle's crash where the threads left in the block (the error's ``waiting``, no
    barrier) are exactly those whose lane l gives a row blockIdx.x * warps + l below rows, in
    every warp alike: the row taken from the lane, threadIdx.x % 32, where the warp's number
    threadIdx.x / 32 belongs, so the lanes past the last row returned before the shuffles."""
    err, launch, block = failure.error, failure.launch, failure.block
    if launch is None or not block or err.barrier is not None or not err.block:
        return
    rows, size = int(launch.args[2]), int(np.prod(block))
    warps, first = size // 32, err.block[0] * (size // 32)
    kept = rows - first   # lanes 0 to kept - 1 of each warp have a row
    if not 0 < kept < 32 or tuple(getattr(err, "waiting", None) or ()) != tuple(
            t for t in range(size) if t % 32 < kept):
        return
    each = f"each of its {warps} warps" if warps > 1 else "its warp"
    yield (f"the row came from the lane, threadIdx.x % 32, not the warp, threadIdx.x / 32: the "
           f"32 lanes of each warp took 32 different rows (in block {err.block[0]}, "
           f"{_span(0, kept - 1, 'lane', 'lanes')} of {each} took "
           f"{_span(first, rows - 1, 'row', 'rows')}), and {_span(kept, 31, 'lane', 'lanes')} "
           f"({_span(rows, first + 31, 'row', 'rows')}, past the last row {rows - 1}) had "
           "returned before the shuffles, whose mask 0xffffffff names all 32 lanes",
           f"all 32 lanes of a warp share its row, and {ROW_HINT}")
