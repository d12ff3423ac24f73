"""A kernel that reads its output before writing it: ``out[i] += v`` where ``out[i] = v`` is
meant, or a sum kept in ``out[i]`` itself. Where it added, the output shows its poison: a float
poison is NaN, and NaN plus anything is NaN (a large poison such as -3e38 plus a coordinate is
the poison again), so the elements read as never written; an integer's is 0xDEADBEEF plus a
little; an output launched with several poisons (bytes, where any value can be right) came back
different from one launch to the next. (On a GPU, where a fresh array holds garbage, such
elements are wrong by whatever it held.)

``KernelExercise`` launches such a case again, with the output filled with 0, 1000 and 2000 in
turn (``fills``: 0, 100 and 200 for bytes; a ``common.Output`` with those poisons). Where an
element's value follows what the output held, in equal steps (stores that race, whose order
differs from launch to launch, give values that do not), the kernel read it: ``mistakes`` names
an addition to what it held (the steps are the fills') or, for an output with the default
poison alone, a read.
An ``Output`` with ``held=False`` is left to its exercise's detectors, which read what it held
themselves; one with ``held=(problem, hint)`` gets those words for an addition (a WMMA
accumulator loaded from the output).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises.common import Output, is_poison, poison_value

NEAR = 1 << 16
"""An integer within this of its poison (and not the poison) is the poison plus something."""


def fills(dtype) -> tuple:
    """What the output holds in the three launches: 0, 1000 and 2000 (0, 100, 200 for a byte)."""
    dtype = np.dtype(dtype)
    step = 100 if dtype.itemsize == 1 else 1000
    return dtype.type(0), dtype.type(step), dtype.type(2 * step)


def _held_poison(run, poison, dtype) -> bool:
    """Whether some element of ``run`` holds ``poison`` (None: the default), or, for an integer
    with the default poison, the poison plus a little: what an addition to it leaves."""
    value = poison_value(dtype) if poison is None else poison
    if dtype.kind == "f":
        return bool(np.isnan(run).any() if np.isnan(value) else is_poison(run, value).any())
    if dtype.itemsize == 1 or poison is not None:
        return False      # bytes: every value is near the poison (several poisons tell); an
        #                   exercise's own (0: bins to count into) may be near a right value
    bits = 8 * dtype.itemsize
    step = (run.astype(np.int64) - int(np.array(value, dtype).astype(np.int64))) % (1 << bits)
    return bool((((step > 0) & (step < NEAR)) | (step > (1 << bits) - NEAR)).any())


def suspect(output: Output, result) -> bool:
    """Whether ``result`` (a ``common.Result``) of ``output`` is worth a launch with ``fills``:
    nothing set before the launch, and a launch left the output holding its poison (or two
    launches with different poisons came back different)."""
    if output.start is not None or output.held is False:
        return False
    dtype = np.dtype(output.dtype)
    if len(output.poisons) > 1 and result.differs:
        return True
    return any(_held_poison(run, output.poisons[k % len(output.poisons)], dtype)
               for k, run in enumerate(result.runs or (result.got,)))


def filled(output: Output) -> Output:
    """``output`` filled with each of ``fills`` in turn (three launches)."""
    return dataclasses.replace(output, poisons=fills(output.dtype))


def _same(a, b):
    """Where ``a`` and ``b`` hold the same value (NaN the same as NaN)."""
    return (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b


def _steps(low, high, dtype):
    """How much more each element came out with the second fill than with the first."""
    if dtype.kind == "f":
        return high.astype(np.float64) - low.astype(np.float64)
    return (high.astype(np.int64) - low.astype(np.int64)) % (1 << (8 * dtype.itemsize))


def mistakes(result, name: str, output: Output | None = None):
    """``(problem, hint)`` when ``result`` (the ``Result`` of the launches with ``fills``, of
    ``output``, the parameter called ``name``) shows that the kernel read the output before
    writing it."""
    dtype = np.dtype(output.dtype if output else np.float32)
    first, second, third = fills(dtype)
    low, high, higher = result.runs[:3]
    unset = (low == first) & (high == second) & (higher == third)   # each launch's fill
    follows = ~unset & ~(_same(low, high) & _same(high, higher))
    step = _steps(low[follows], high[follows], dtype)
    if not follows.any() or not np.allclose(_steps(high[follows], higher[follows], dtype), step,
                                            rtol=1e-3, atol=1e-3):
        return   # nothing read, or values that moved otherwise (stores racing): not a read
    plain = follows if dtype.kind == "f" else follows & (high.astype(np.int64) - low == second)
    k = tuple(int(i) for i in np.argwhere(plain if plain.any() else follows)[0])  # not wrapped
    at = f"{name}[{']['.join(map(str, k))}]"
    count = int(follows.sum())
    every = f"every element of {name}" if follows.all() else f"{count} elements of {name}"
    held = (f"{at} came out {low[k]:.7g} when {name} held {float(first):g} before the launch "
            f"and {high[k]:.7g} when it held {float(second):g}")
    held += f" ({every} so)" if count > 1 else ""
    words = output.held if output is not None and isinstance(output.held, tuple) else None
    if np.allclose(step, float(second) - float(first), rtol=1e-3, atol=1e-3):
        yield (f"{words[0]}: {held}", words[1]) if words else (
            f"the kernel adds to {name} instead of storing ({name}[...] += ...): {held}",
            f"store with =: {name}[...] = value; {name} holds garbage until the kernel writes "
            "it (keep a running sum or count in a local variable and store it once)")
    elif output is None or output.poisons == (None,):
        yield (f"the kernel reads {name} before writing it: {held}",
               f"{name} is the kernel's output: compute from the inputs alone and store each "
               f"element of {name} once with =")
