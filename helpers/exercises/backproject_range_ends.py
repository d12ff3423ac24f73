"""The ends of notebook 10's depth range (``helpers.exercises.backproject_range``): points exactly
at z_min or z_max dropped, the range tested with <= or >= where < and > belong; which end, where
a kernel keeps the other (a half-open range, Python's way, drops the far end alone)."""

from __future__ import annotations

import numpy as np

BOTH = ("points exactly at z_min or z_max were dropped: the range includes both ends",
        "drop only z < z_min and z > z_max (strictly), so that z_min <= Z <= z_max is kept")
# (the end, its test that drops it, the strict test, which end in words)
ENDS = (("z_min", "z <= z_min", "z < z_min", "near"), ("z_max", "z >= z_max", "z > z_max", "far"))


def ends_dropped(z, dropped, kept, ends):
    """(problem, hint) of the points at the range's ends, ``ends`` = (z_min, z_max), that came
    out NaN (``dropped``, every one at an end): both ends named where both lost points, or where
    the other end had no point to keep; else the one end and its strict test. ``kept``: the
    pixels the kernel kept as points."""
    lost = [(dropped & (z == end)).any() for end in ends]
    held = [(kept & (z == end)).any() for end in ends]
    if all(lost) or not any(held):
        return BOTH
    k = int(np.argmax(lost))
    name, wrong, strict, side = ENDS[k]
    other = ENDS[1 - k][0]
    return (f"points exactly at {name} were dropped (those at {other} were kept): a test "
            f"{wrong} drops the {side} end itself, but the range includes both ends",
            f"drop only {strict}, strictly ({strict.split()[1]}, not {wrong.split()[1]}), so "
            f"that Z = {name} is kept")
