"""The depth scale of notebook 10's back-projection (``helpers.exercises.backproject_range``):
a kernel that writes the notebook's 0.001 m per unit in, z = depth[i] * 0.001f, is right at the
cases' depth_scale = 0.001 alone; the case launched again on the simulator with another scale
shows that its points do not move."""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises.microscope import observe

OTHER_SCALE = np.float32(0.00025)
"""A RealSense L515's metres per unit: a depth_scale other than the cases' 0.001."""


def scale_ignored(kernels, launch, got):
    """``launch`` (the checker's, its depth_scale third from last, its xyz ``got``, every point
    right) again on the simulator with OTHER_SCALE: the very same xyz, Z still depth * 0.001,
    is a kernel that never reads its depth_scale."""
    args = launch.args
    again = dataclasses.replace(launch, args=(*args[:-3], OTHER_SCALE, *args[-2:]))
    seen = observe(kernels, again, key=f"depth_scale {OTHER_SCALE:g}", racecheck=False)
    point = ~np.isnan(got[2])
    if seen.error is not None or not point.any() or \
            not np.array_equal(seen.outs[0].got, got, equal_nan=True):
        return
    v, u = np.argwhere(point)[0]
    d, z = int(launch.model[v, u]), got[2, v, u]
    yield (f"Z came out depth * 0.001 whatever depth_scale is: launched again on the simulator "
           f"with depth_scale = {OTHER_SCALE:g}, every point came out as with 0.001 (depth {d} "
           f"gave Z = {z:g} m, where {d} * {OTHER_SCALE:g} = {d * float(OTHER_SCALE):g} m): the "
           "kernel ignores its depth_scale argument, as z = depth[i] * 0.001f does, right for "
           "one camera alone", "the scale is the camera's, passed in: z = depth[i] * depth_scale")
