"""A kernel that reads its output before writing it: ``out[i] += v`` where ``out[i] = v`` is
meant, or a sum kept in ``out[i]`` itself. A float output is poisoned with NaN, and NaN plus
anything is NaN with the poison's bits, so the elements such a kernel added to read as never
written (on a GPU, where a fresh array holds garbage, they are wrong by whatever it held).

``KernelExercise`` launches a case whose float output came back with NaN in it again, with the
output filled with 0, 1000 and 2000 in turn (``FILLS``, a ``common.Output`` with those poisons).
Where an element's value follows what the output held, in equal steps (so that stores that race,
whose order differs from launch to launch, do not count), the kernel read it: ``mistakes`` names
an addition to what it held (the steps are the fills' 1000) or, else, a read.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises.common import Output

FILLS = (np.float32(0.0), np.float32(1000.0), np.float32(2000.0))


def suspect(output: Output, result) -> bool:
    """Whether ``result`` (a ``common.Result``) of ``output`` is worth a launch with ``FILLS``:
    a float output filled with NaN alone, nothing set before the launch, and NaN came back."""
    return (np.dtype(output.dtype).kind == "f" and output.poisons == (None,)
            and output.start is None and bool(np.isnan(result.got).any()))


def filled(output: Output) -> Output:
    """``output`` filled with each of ``FILLS`` in turn (three launches)."""
    return dataclasses.replace(output, poisons=FILLS)


def mistakes(result, name: str):
    """``(problem, hint)`` when ``result`` (the ``Result`` of the launches with ``FILLS``, of the
    output called ``name``) shows that the kernel read the output before writing it."""
    low, high, higher = (np.asarray(run, np.float64) for run in result.runs[:3])
    unset = (low == FILLS[0]) & (high == FILLS[1]) & (higher == FILLS[2])   # each launch's fill
    same = ((low == high) & (high == higher)) | (np.isnan(low) & np.isnan(high) & np.isnan(higher))
    follows = ~unset & ~same
    step = high[follows] - low[follows]
    if not follows.any() or not np.allclose(higher[follows] - high[follows], step, rtol=1e-3,
                                            atol=1e-3):
        return   # nothing read, or values that moved otherwise (stores racing): not this
    k = tuple(int(i) for i in np.argwhere(follows)[0])
    at = f"{name}[{']['.join(map(str, k))}]"
    count = int(follows.sum())
    every = f"every element of {name}" if follows.all() else f"{count} elements of {name}"
    held = (f"{at} came out {low[k]:.7g} when {name} held 0 before the launch and {high[k]:.7g} "
            f"when it held 1000 ({every} so)" if count > 1 else
            f"{at} came out {low[k]:.7g} when {name} held 0 before the launch and {high[k]:.7g} "
            "when it held 1000")
    if np.allclose(step, FILLS[1] - FILLS[0], rtol=1e-3, atol=1e-3):
        yield (f"the kernel adds to {name} instead of storing ({name}[...] += ...): {held}",
               f"store with =: {name}[...] = value; {name} holds garbage until the kernel writes "
               "it (keep a sum in a local variable and store it once)")
    else:
        yield (f"the kernel reads {name} before writing it: {held}",
               f"{name} is the kernel's output: compute from the inputs alone and store each "
               f"element of {name} once with =")
