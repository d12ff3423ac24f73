"""The last bits of notebook 10's back-projection (``helpers.exercises.backproject_range``): the
exercise's points are NumPy's float32 operations, bit for bit, as section 2's kernel's are. A
kernel whose points are right to float32's rounding but not to the bit: X and Y computed in double
and rounded once at the store (z declared double, its model), or float32 operations in another
order."""

from __future__ import annotations

import numpy as np

from helpers.ch10.point_cloud import backproject
from helpers.exercises.backproject_range_models import DEPTH_SCALE
from helpers.exercises.microscope import kernel_words

ORDER_HINT = ("X = (u - cx) * z / fx and Y = (v - cy) * z / fy, with float z = depth[i] * "
              "depth_scale")


def _in_double(depth, fx, fy, cx, cy):
    """X, Y and Z of a kernel whose z is a double: u - cx in float, then * z and / fx in double,
    rounded to float at the store; Z the float z itself."""
    xyz = backproject(depth, fx, fy, cx, cy, DEPTH_SCALE)
    v, u = np.mgrid[0:depth.shape[0], 0:depth.shape[1]].astype(np.float32)
    z = xyz[2].astype(np.float64)
    x = (u - np.float32(cx)).astype(np.float64) * z / np.float64(np.float32(fx))
    y = (v - np.float32(cy)).astype(np.float64) * z / np.float64(np.float32(fy))
    return np.stack([x, y, z]).astype(np.float32)


def _declared_double(kernels):
    """The name of the first variable the kernel's body declares double, or None."""
    if (text := kernel_words(kernels)) is None:
        return None
    _, _, words, body, end = text
    return next((words[k + 1] for k in range(body, end - 2) if words[k] == "double"
                 and words[k + 1].isidentifier() and words[k + 2] in ("=", ";")), None)


def last_bits(kernels, got, depth, intrinsics, kept):
    """(problem, hint) where the points (``kept``) differ from NumPy's float32 ones, all of them
    close: computed in double (the model of z declared double), or otherwise."""
    want = backproject(depth, *intrinsics, DEPTH_SCALE)
    differ = (got != want) & kept
    if not differ.any():
        return
    plane, v, u = np.argwhere(differ)[0]
    ulps = np.abs(got[differ].view(np.int32).astype(np.int64) - want[differ].view(np.int32))
    count = (f"{int(differ.sum())} of {3 * int(kept.sum())} values differ from NumPy's float32 "
             f"{' and '.join(np.array(list('XYZ'))[differ.any(axis=(1, 2))])} in the last "
             f"{'bit' if ulps.max() == 1 else 'bits'} (the first: "
             f"{'XYZ'[plane]} of pixel u = {u}, v = {v}: got {got[plane, v, u]:.9g}, NumPy's "
             f"{want[plane, v, u]:.9g})")
    if np.array_equal(got[:, kept], _in_double(depth, *intrinsics)[:, kept]):
        name = _declared_double(kernels)
        said = f"{name} is declared double, so" if name else "in the kernel"
        yield (f"{said} X and Y were computed in double precision and rounded to float once, at "
               f"the store: {count}", f"declare {name or 'z'} a float, as the chapter does, so "
               f"that X and Y are NumPy's float32 operations, bit for bit: {ORDER_HINT}")
        return
    yield (f"{count}: the points must be NumPy's bit for bit, as section 2's kernel's are, "
           "which takes NumPy's float32 operations in NumPy's order; another order, or a double, "
           "rounds otherwise", f"do NumPy's float32 operations in its order, with no double: "
           f"{ORDER_HINT}")
