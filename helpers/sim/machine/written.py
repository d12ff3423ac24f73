"""Which bytes of each device allocation have been written since it was made: the init check's
shadow (settings.initcheck, CUDA_SIM_INITCHECK=1).

On a GPU, memory from cudaMalloc (``mem_alloc``, ``gpuarray.empty``, ``drv.Out``) holds whatever
was there before; the simulator's fresh pages are zero, which hides a kernel that reads before
anything wrote. So an allocation made while the check is on gets a shadow: one byte per byte of
the array, 0 until the byte is written. Copies to the device and memsets mark what they write
(memory.py, copies.py), a NumPy view of device memory (what gpuarray's own operations work
through: ``fill``, ``set``, arithmetic) marks all it spans, and a checked launch's stores mark
theirs (include/sim_init.h), where its loads are checked against the shadow.

Only init-checked launches see what a kernel writes. Any other launch (one that runs plainly, or
one traced or race-checked only: the check was turned off meanwhile) may write anything, so it
ends every shadow: from then on those arrays count as written. What the check cannot see, it
never reports.
"""

from __future__ import annotations

import weakref

import numpy as np

_tracked = weakref.WeakSet()  # the memory.Blocks that have a shadow


def track(block) -> None:
    """Give a new allocation its shadow: nothing written yet."""
    block.written = np.zeros(block.size, np.uint8)
    _tracked.add(block)


def untrack(block) -> None:
    """Drop an allocation's shadow (it is freed, or counts as written from now on)."""
    block.written = None
    _tracked.discard(block)


def mark(block, address: int, nbytes: int) -> None:
    """Bytes [address, address + nbytes) of block have been written."""
    if block is None or block.written is None or nbytes <= 0:
        return
    start = max(address - block.address, 0)
    block.written[start:max(address + nbytes - block.address, start)] = 1


def forget_all() -> None:
    """A launch ran without the check: every tracked array counts as written from now on."""
    for block in list(_tracked):
        untrack(block)


def tracking() -> bool:
    """True while some allocation has a shadow (otherwise marking costs nothing)."""
    return len(_tracked) > 0


def shadows(ranges) -> list:
    """For memory.ranges()'s list: each allocation's shadow array, or None."""
    by_address = {block.address: block.written for block in list(_tracked)}
    return [by_address.get(address) for address, *_ in ranges]

