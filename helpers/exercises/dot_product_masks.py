"""The shuffles of the dot-product exercise (notebook 07) that wait for lanes which never come,
read from the simulator's "warp mask" error: its ``waiting`` (the threads that wait in a warp
function) and ``barrier`` (the line of the __syncthreads() where the others wait, or None)."""

from __future__ import annotations

import os


def warp_mask_mistakes(failure):
    """The mistakes a "warp mask" ``failure`` (``failure.Failure``) shows: lane 0 of each warp
    alone in the first warp's warp_sum, the others past the barrier (lane and warp swapped; a
    hint), or lanes 1 to 31 in warp_sum while lane 0 waits at a barrier only it reached (the
    __syncthreads() inside if (lane == 0); its problem and hint)."""
    err = failure.error
    if failure.kind != "warp mask":
        return
    lanes_0 = tuple(range(0, (failure.block or (0,))[0], 32))   # lane 0 of each warp
    # the others had left: past the barrier, not waiting there
    if len(lanes_0) > 1 and err.waiting == lanes_0 and err.barrier is None:
        shown = ", ".join(map(str, lanes_0[:3])) + (", ..." if len(lanes_0) > 3 else "")
        yield (f"only lane 0 of each warp (threads {shown}) called warp_sum in the first warp's "
               "if, alone in its warp: warp == 0 held for them, so lane and warp are swapped: "
               "lane = threadIdx.x % 32 (the place in the warp), warp = threadIdx.x / 32 (the "
               "warp's place in the block)")
    if err.barrier and err.waiting == tuple(range(1, 32)):
        at = f" (the shuffle at {os.path.basename(err.line)})" if err.line else ""
        yield (f"the __syncthreads() at line {err.barrier.rsplit(':', 1)[-1]} is inside if (lane "
               "== 0): lanes 1 to 31 of each warp skip it, and those of the first warp went on "
               f"into warp_sum{at}, where they wait for lane 0, while lane 0 waits at the barrier "
               "for them", "put the __syncthreads() after the if, where every thread of the "
               "block reaches it: if (lane == 0) warp_sums[warp] = v; then __syncthreads();")
