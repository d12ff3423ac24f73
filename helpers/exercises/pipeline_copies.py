"""The copies of notebook 05's pipeline (``pipeline.py``), one by one as the learner's function
queues them: the device address a copy was given, and a copy given its arguments in the other
copy's order (the source first), refused before it is made: PyCUDA would raise a TypeError that
names a buffer protocol or a C++ signature, not the swap."""

from __future__ import annotations

import numpy as np

from helpers.exercises.function import Refused


def address(buf) -> int | None:
    """The device address of a DeviceAllocation, a GPUArray (or a view of one) or an int; None
    for anything else."""
    try:
        return int(getattr(buf, "gpudata", buf))
    except (TypeError, ValueError):
        return None


def arguments_swapped(way, c, host, device):
    """Refuse chunk ``c``'s copy given a device buffer where its host array belongs and a host
    array where its buffer belongs: its arguments in the other copy's order, source first."""
    if isinstance(host, np.ndarray) or address(host) is None or not isinstance(device, np.ndarray):
        return
    array = f"a host array of {device.size} {device.dtype}"
    copies = {"htod": ("in", "drv.memcpy_htod_async(d_in, h_in[lo:hi], s)", "device buffer"),
              "dtoh": ("back", "drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)", "host array")}
    (word, mine, into), (other, theirs, _) = copies[way], copies["dtoh" if way == "htod" else "htod"]
    given = (array, "a device buffer") if way == "htod" else ("a device buffer", array)
    raise Refused((f"chunk {c}'s copy {word}, drv.memcpy_{way}_async, was given {given[0]} as "
                   f"its first argument and {given[1]} as its second: the copy {other}'s order, "
                   f"but memcpy_{way}_async copies into its first argument, the {into}",
                   f"destination first in both copies: {mine}, as {theirs}"))
