"""NaN marks stored over by the point's coordinates in notebook 10's back-projection
(``helpers.exercises.backproject_range``): a branch that writes the NaNs but goes on to X, Y and
Z, for every pixel that is not a point, or for the out-of-range ones alone (the range test's own
branch with no return), told from a kernel with no range filter by its stores, traced on the
simulator; and the other way round, the NaNs of every pixel that is not a point stored over pixel
0's place, their index without + i."""

from __future__ import annotations

import numpy as np

from helpers.exercises.backproject_range_models import NAN_HINT
from helpers.exercises.common import close
from helpers.exercises.microscope import accesses_of


def nans_overwritten(kernels, got, kept, raw, small):
    """(problem, hint) where the pixels that are not points (not ``kept``) hold their X, Y and Z
    (``raw``, every pixel's back-projection): all of them, or the measured ones outside
    [z_min, z_max] alone (no hole), when ``small`` (the checker's small case's launch), traced on the
    simulator, stored each such pixel's three places twice, from one thread, and every other
    place once."""
    if kept.all():
        return
    if close(got[:, ~kept], raw[:, ~kept]):
        yield ("the pixels that are not points hold their X, Y and Z: NaN was stored, then the "
               "coordinates over it", 'after writing nanf("") into the three planes, return')
    out = ~kept & ~np.isnan(got).any(axis=0)
    if not out.any() or not close(got[:, out], raw[:, out]) or (raw[2][out] == 0).any():
        return
    depth, (scale, low, high) = small.model, small.args[-3:]
    z = depth.astype(np.float32) * scale
    far = np.tile(((depth > 0) & ((z < low) | (z > high))).ravel(), 3)
    seen = accesses_of(kernels, small, key="xyz stores", accesses=8 * depth.size)
    if seen is None or not far.any():
        return
    stores = seen[seen["write"] & (seen["array"] == "xyz")]
    index, count = np.unique(stores["index"], return_counts=True)
    twice = np.isin(np.arange(3 * depth.size), index[count == 2])
    threads = {(int(s["block"]), int(s["thread"]), int(s["index"])) for s in stores}
    if not np.array_equal(twice, far) or len(threads) != index.size or (count > 2).any():
        return
    yield (f"{int(out.sum())} points outside [z_min, z_max] were kept: their NaNs were written, "
           "then X, Y and Z over them (on the simulator each such pixel's thread stored into "
           "xyz[i], xyz[n + i] and xyz[2 * n + i] twice, every point's once): the range test's "
           "branch has no return, so the kernel goes on to the point's stores",
           'return after writing the NaNs: if (z < z_min || z > z_max) { xyz[i] = xyz[n + i] = '
           'xyz[2 * n + i] = nanf(""); return; } (or join the tests in one if: depth[i] == 0 || '
           "z < z_min || z > z_max)")


def nans_at_plane_starts(unwritten, got, kept):
    """(problem, hint) where some planes' NaNs went to the plane's start (xyz[0], xyz[n],
    xyz[2 * n]), pixel 0's place, as stores that lack + i make: in those planes every pixel that is
    not a point but pixel 0 never written, pixel 0 NaN; every point written, the other planes' NaNs
    in place."""
    rest = ~kept.ravel()
    rest[0] = False
    if not rest.any() or unwritten[:, kept].any():
        return
    flat = [plane.ravel() for plane in got]
    lost = [p for p in range(3) if unwritten[p].ravel()[rest].all() and np.isnan(flat[p][0])]
    if not lost or not all(np.isnan(got[p][~kept]).all() for p in range(3) if p not in lost):
        return
    names = " and ".join("XYZ"[p] for p in lost)
    places = " and ".join(("xyz[0]", "xyz[n]", "xyz[2 * n]")[p] for p in lost)
    point, aside = (" though it is a point", "") if kept.flat[0] else ("", " (pixel 0 aside)")
    yield (f"the {names} NaNs of the pixels that are not points all went to {places}, pixel 0's "
           f"{names}, as stores whose index lacks + i: pixel 0 (u = 0, v = 0) came out "
           f"NaN{point}, and the {int(rest.sum())} pixels that are not points{aside} never had "
           f"their own {names} written",
           "add the pixel's index i to each plane's start: " + NAN_HINT)
