"""Where a wrong element came from, for the mistakes no detector of an exercise names.

An exercise's last detector says that elements are wrong and names the first: "895 of 896
elements are wrong (the first is out[1] = -5.01, expected 4.66)". That tells the learner what
came out, not what their kernel did. It yields a ``Wrong``, which names that element; the
runner (``KernelExercise``) then launches the case again on the simulator, traced
(``microscope.observe``), and adds which thread stored the element and what that thread loaded
before it (``helpers.sim.microscope.provenance``): "out[1] was stored by thread (1, 0, 0) of
block (0, 0, 0) at line 10, which loaded a[1] and b[0]". An index that is off shows as the
element it loaded instead. On a GPU the same happens on the simulator's twin, where the
exercise has one (``simulated=``); elsewhere the mistake stays as it was.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import microscope
from helpers.exercises.verdict import listed

ACCESSES = 1 << 20
"""The accesses a launch may make for its wrong element to be traced back (24 bytes each)."""
LISTED = 4
"""Loads of one array listed one by one; more are summed up by their first and last."""


class Wrong(tuple):
    """A mistake ``(problem, hint)`` about element ``index`` (counted from the start, as the
    kernel indexes it) of the output ``array`` (its parameter's name), which the runner traces
    back to the thread that stored it; ``shape``: the array's as the problem names its elements
    (``C[r][c]`` for a matrix), where it has more than one side."""

    def __new__(cls, problem: str, hint: str, array: str, index: int, shape=None):
        self = super().__new__(cls, (problem, hint))
        self.array, self.index, self.shape = array, int(index), shape
        return self


def _element(array, index, shape) -> str:
    """"C[1][2], C[79] as the kernel indexes it" for a matrix's element, "out[79]" otherwise."""
    flat = f"{array}[{index}]"
    if shape is None or len(shape) < 2:
        return flat
    sides = "".join(f"[{i}]" for i in np.unravel_index(index, shape))
    return f"{array}{sides}, {flat} as the kernel indexes it,"


def _array_loads(name, indices) -> str:
    """The loads of one array in words: "b[0]", "a[3] and a[4]", "32 elements of A (A[0] to
    A[992], 32 apart)"."""
    unique = list(dict.fromkeys(indices))
    if len(unique) <= LISTED:
        items = [f"{name}[{i}]" for i in unique]
        return listed(items)
    steps = {b - a for a, b in zip(unique, unique[1:])}
    apart = f", {steps.pop()} apart" if len(steps) == 1 else ""
    return f"{len(unique)} elements of {name} ({name}[{unique[0]}] to {name}[{unique[-1]}]{apart})"


def words(origin, block, grid, shape=None) -> str | None:
    """What a ``provenance.Provenance`` says, in a clause (its element named by its sides too
    where ``shape`` has two or more); None where it says nothing (no provenance was kept, or the
    element was not stored: the exercise's detectors name that)."""
    from helpers.sim.errors import xyz
    from helpers.sim.microscope.racecheck import position

    if origin is None or not origin.stores:
        return None
    who = [f"thread {xyz(position(t, block))} of block {xyz(position(b, grid))}"
           for b, t in origin.stores]
    element = _element(origin.array, origin.index, shape)
    stored = (f"{element} was stored by {who[-1]} at line {origin.line}" if len(who) == 1 else
              f"{element} was stored {len(who)} times, last by {who[-1]} at line {origin.line}")
    by_array = {}
    for load in origin.loads:
        by_array.setdefault(load.array, []).append(load.index)
    if not by_array:
        return f"{stored}, which loaded nothing before it"
    loads = [_array_loads(name, indices) for name, indices in by_array.items()]
    return f"{stored}, which loaded {listed(loads)}"


def traced(kernels, launch, wrong: Wrong):
    """``wrong`` with where its element came from, in ``launch`` (a ``kernel.Launch``) run again
    on the simulator (``kernels.simulated``), traced (``microscope.observe``, not race-checked);
    ``wrong`` as it was where the launch failed there or made too many accesses to keep."""
    from helpers.sim.microscope.provenance import provenance

    seen = microscope.observe(kernels, launch, key=f"origin {id(launch)}", accesses=ACCESSES,
                              racecheck=False)
    if seen.error is not None or seen.trace is None:
        return wrong
    said = words(provenance(seen.trace, wrong.array, wrong.index), seen.trace.block,
                 seen.trace.grid, wrong.shape)
    return wrong if said is None else (f"{wrong[0].rstrip().rstrip('.')}: {said}", wrong[1])
