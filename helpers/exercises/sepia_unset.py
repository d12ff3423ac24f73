"""A sepia kernel whose values are wrong where it reads a local that holds no value on some paths
(the simulator's compiler's record, ``helpers.exercises.unset.reads``): the clamp written as
nested ifs, say, whose else C pairs with the nearest if (``unbraced.dangling_else``), so that
where the sum passes 255 no branch sets the byte stored."""

from __future__ import annotations

import numpy as np

from helpers.exercises import unset
from helpers.exercises.sepia_models import CHANNEL_NAMES, SEPIA, _differs, reference
from helpers.exercises.unbraced import dangling_else

CLAMP = "(unsigned char)fminf(r2 + 0.5f, 255.0f)"


def read_unset(kernels, rgb, got):
    """(problem, hint) where ``got`` differs from NumPy's sepia and the kernel reads a local
    before anything is stored in it on some path, with the else that leaves it so where the
    text shows one."""
    exact, want = rgb @ SEPIA.T, reference(rgb)
    wrong = _differs(got, want, exact)
    if not wrong.any() or not (found := unset.reads(kernels)):
        return
    name, declared = found[0].name, found[0].declared
    y, x, c = np.argwhere(wrong)[0]
    where = ", all where the sum passes 255" if (wrong <= (exact > 255)).all() else ""
    seen = (f": there it holds whatever its register held ({int(wrong.sum())} of {got.size} "
            f"values are wrong{where}; the first x = {x}, y = {y}, {CHANNEL_NAMES[c]}: the sum "
            f"is {exact[y, x, c]:.1f}, got {got[y, x, c]}, expected {want[y, x, c]})")
    said = f"{name}{f' (declared at line {declared})' * bool(declared)} is read with no value " \
           "on some paths"
    if (d := dangling_else(kernels)) is None:
        yield (said + seen, f"store a value in {name} on every path before it is read (an else "
               f"for each if that sets it), or round and clamp as you store: {CLAMP}")
        return
    yield (f"{said}: the else at line {d.else_line} belongs to the if at line {d.inner_line}, if "
           f"{d.inner}, the nearest, not to the if at line {d.outer_line}, if {d.outer}, that its "
           f"indentation shows, so where {d.outer} is false no branch sets {name}" + seen,
           "C pairs an else with the nearest if, whatever the indentation: put braces around the "
           f"inner if, if {d.outer} {{ if {d.inner} ... }} else ..., or round and clamp as you "
           f"store: {CLAMP}")
