"""The ends of notebook 10's depth range (``helpers.exercises.backproject_range``): points exactly
at z_min or z_max dropped, the range tested with <= or >= where < and > belong; which end, where
a kernel keeps the other (a half-open range, Python's way, drops the far end alone); or Z
computed and compared in double, not as the float the statement defines."""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises.backproject_range_models import DEPTH_SCALE
from helpers.exercises.microscope import observe

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


def _dropped(depth, z, ends):
    """The pixels a kernel whose Z is ``z`` makes NaN: holes and Z outside ``ends``."""
    return (depth == 0) | (z < ends[0]) | (z > ends[1])


def range_in_double(kernels, launch, nan, ends):
    """(problem, hint) where the pixels NaN (``nan``, the planes') are those whose Z in double,
    depth[i] * (double)depth_scale, lies outside ``ends`` = (z_min, z_max), not their float Z:
    confirmed by the case (``launch``) launched again on the simulator with z_max a depth's float
    Z that float rounded up, so that its double lies below and the kernel keeps it, where a
    float test with >= would drop it."""
    depth = launch.model
    exact = depth.astype(np.float64) * np.float64(DEPTH_SCALE)
    rounded = depth.astype(np.float32) * DEPTH_SCALE
    lost = _dropped(depth, exact, ends) & ~_dropped(depth, rounded, ends)
    up = (depth > 0) & (rounded > exact) & (rounded >= ends[0])
    if not lost.any() or not up.any() or not np.array_equal(nan.all(axis=0), nan.any(axis=0)) \
            or not np.array_equal(nan.all(axis=0), _dropped(depth, exact, ends)):
        return
    z_max = rounded[up].max()
    again = dataclasses.replace(launch, args=(*launch.args[:-1], z_max))
    seen = observe(kernels, again, key=f"z_max {z_max:.9g}", racecheck=False)
    if seen.error is not None or not np.array_equal(np.isnan(seen.outs[0].got).all(axis=0),
                                                    _dropped(depth, exact, (ends[0], z_max))):
        return
    v, u = np.argwhere(lost)[0]
    end, side = ("z_min", "below") if exact[v, u] < ends[0] else ("z_max", "above")
    yield (f"Z was computed and compared with z_min and z_max in double, not as the float product "
           f"depth[i] * depth_scale, so {int(lost.sum())} points whose float Z lies in the range "
           f"were dropped: depth {depth[v, u]} mm gives {exact[v, u]:.9g} m in double, {side} "
           f"{end}, but its float Z is {rounded[v, u]:.9g} m = {end}, which the range keeps",
           "compute Z as a float, float z = depth[i] * depth_scale, with no double, "
           "and test that float z < z_min || z > z_max")
