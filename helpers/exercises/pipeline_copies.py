"""The copies of notebook 05's pipeline (``pipeline.py``), one by one as the learner's function
queues them: the device address a copy was given, and a copy given its arguments in the other
copy's order (the source first), refused before it is made: PyCUDA would raise a TypeError that
names a buffer protocol or a C++ signature, not the swap; and the buffers the copies go through,
allocated larger than the budget of one chunk each (``over_budget``)."""

from __future__ import annotations

import ast

import numpy as np

from helpers.exercises.function import Refused
from helpers.exercises.learner_code import code_of


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


def over_budget(made, case, itemsize, fn, hint):
    """(problem, hint) where the buffers ``made`` ((address, bytes) of each mem_alloc) hold more
    than one chunk each, 2 x len(streams) chunks in all (``case``: (n, n_chunks, streams); a
    last chunk that takes the remainder may need n_chunks elements more), named with fn's first
    mem_alloc line where its code is known; ``hint``: the budget's."""
    n, n_chunks, n_streams = case
    one = -(-n // n_chunks) * itemsize
    sizes = sorted({size for _, size in made})
    if sum(size for _, size in made) <= 2 * (n_streams * one + n_chunks * itemsize):
        return
    code = code_of(fn)
    call = code and next((c for c in ast.walk(code.tree) if isinstance(c, ast.Call)
                          and getattr(c.func, "attr", "") == "mem_alloc"), None)
    where = f" ({code.at(call)}: {code.text(call)})" if call else ""
    each = " or ".join(str(size) for size in sizes)
    yield (f"the results are right, but your function allocated {len(made)} device buffers of "
           f"{each} bytes{where}, {sum(size for _, size in made)} bytes in all, where the "
           f"kernels need one chunk of each: the budget is one chunk a buffer, chunk * "
           f"h_in.itemsize = {one} bytes, {2 * n_streams} x {one} bytes in all", hint)
