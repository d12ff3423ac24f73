"""Where one element of a kernel's output came from: the threads that stored it, and what the last
of them loaded before that store, from a traced launch's kept accesses (``trace.KernelTrace``;
``trace(accesses=...)`` keeps them).

    with trace(accesses=1 << 20) as t:
        kernel(a, b, out, block=(128, 1, 1), grid=(7, 1))
    origin = provenance(t.launches[-1], "out", 1)
    origin.stores     # ((block, thread), ...): linear indices, in the order the stores ran
    origin.loads      # the last store's thread's loads before it: Load("b", 0, False, 10), ...

A thread's accesses are kept in the order it made them, so its loads before the store are what
its value could have been computed from (a value held in a register since an earlier store
included). Loads of shared memory are named by the ``__shared__`` array, as the trace names them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .instrumented import DYNAMIC, SHARED, WRITE

LOADS_NAMED = 4096
"""The most loads of one thread that are named (the last ones before the store)."""


@dataclasses.dataclass(frozen=True)
class Load:
    """One load: the ``array`` (a parameter's name, or a ``__shared__`` array's), the element's
    ``index`` (counted in the array's elements from where the parameter points), whether it is
    ``shared`` memory, and the source ``line``."""

    array: str
    index: int
    shared: bool
    line: int


@dataclasses.dataclass(frozen=True)
class Provenance:
    """Element ``index`` of ``array``: the ``stores`` to it as ``(block, thread)`` (linear
    indices in the grid and the block, in the order they ran; empty when no kept access stored
    it), the ``line`` of the last one, and the ``loads`` its thread made before it."""

    array: str
    index: int
    stores: tuple
    line: int
    loads: tuple


def _address(places, array, index):
    """The address of element ``index`` of the global array a parameter called ``array`` points
    to, or None when no parameter of that name points into an allocation."""
    for start, _, label, elem, view in places.arrays:
        if label == array:
            return start + view + index * elem
    return None


def _load(places, lines, rec):
    if rec["flags"] & SHARED:
        name, index, _ = places.shared_place(int(rec["addr"]), bool(rec["flags"] & DYNAMIC),
                                             int(rec["size"]) or 1)
        return Load(name, int(index), True, int(lines[rec["site"]]))
    place = places.global_place(int(rec["addr"]))
    name, index = place[:2] if place else ("?", -1)
    return Load(name, int(index), False, int(lines[rec["site"]]))


def provenance(launch, array: str, index: int) -> Provenance | None:
    """The ``Provenance`` of element ``index`` of the global ``array`` (a kernel parameter's
    name) in ``launch``, a ``trace.KernelTrace`` that kept its accesses; None when it kept none,
    when no parameter is called ``array``, or when it kept only some (the element's stores may
    be among those it dropped)."""
    raw = launch._detail
    address = _address(launch.places, array, index)
    if raw is None or not len(raw) or address is None or launch.recorded > len(raw):
        return None
    flags = raw["flags"]
    stored = np.flatnonzero(((flags & WRITE) != 0) & ((flags & SHARED) == 0)
                            & (raw["addr"] <= address) & (address < raw["addr"] + raw["size"]))
    if not stored.size:
        return Provenance(array, index, (), 0, ())
    stores = tuple((int(raw["block"][k]), int(raw["thread"][k])) for k in stored)
    last = stored[-1]
    block, thread = stores[-1]
    mine = np.flatnonzero((raw["block"][:last] == block) & (raw["thread"][:last] == thread))
    loads = mine[(flags[mine] & WRITE) == 0][-LOADS_NAMED:]
    lines = np.array([0] + [site.line for site in launch.sites])
    return Provenance(array, index, stores, int(lines[raw["site"][last]]),
                      tuple(_load(launch.places, lines, raw[k]) for k in loads))
