"""The planes of notebook 10's back-projection (``helpers.exercises.backproject_range``) stored k
elements apart where n = width * height belongs: Y at xyz[k + i] and Z at xyz[2 * k + i], for every
pixel, or in the branch of the points (or of the NaNs) alone, the other branch's stores in their
planes. Told by the places such a kernel leaves unwritten, whatever order its stores land in."""

from __future__ import annotations

import numpy as np

PLANES_HINT = "each plane holds n = width * height floats: X goes to xyz[i], Y to xyz[n + i] and Z "


def _unwritten_model(moved, k):
    """The places of xyz (3 n, flat) that a kernel leaves unwritten whose pixels ``moved`` (a
    flat mask) store Y and Z at k + i and 2 k + i, the others at n + i and 2 n + i."""
    n = moved.size
    written, pixel = np.zeros(3 * n, bool), np.arange(n)
    written[pixel] = True
    written[np.concatenate([pixel[moved] + k, pixel[moved] + 2 * k])] = True
    written[np.concatenate([pixel[~moved] + n, pixel[~moved] + 2 * n])] = True
    return ~written


def _offset(unwritten, moved):
    """The k (0 < k < n) whose model leaves exactly ``unwritten`` (flat) unwritten, or None."""
    n = moved.size
    return next((k for k in range(1, n) if np.array_equal(_unwritten_model(moved, k), unwritten)),
                None)


def planes_apart(unwritten, case, kept):
    """Y and Z stored k and 2 k elements after X (k not n), by every pixel's thread, or in the
    points' branch (``kept``) or the NaNs' alone, the other branch's stores in their planes."""
    flat, kept = unwritten.ravel(), kept.ravel()
    for moved, which, other in ((np.ones_like(kept), "", ""), (kept, "points'", "NaNs"),
                                (~kept, "NaNs'", "points")):
        if moved.any() and (k := _offset(flat, moved)) is not None:
            break
    else:
        return
    name = {case["width"]: "width", case["height"]: "height"}.get(k, str(k))
    if moved.all():
        first = int(np.argmax(flat))
        yield (f"Y and Z were stored {name} and 2 * {name} elements after X (xyz[{name} + i], "
               f"xyz[2 * {name} + i]), inside X's plane, so xyz[{first}] to the end were never "
               "written", PLANES_HINT + "to xyz[2 * n + i]")
        return
    after = "a row and two rows" if name == "width" else f"{name} and 2 * {name} elements"
    yield (f"the {which} Y and Z went to xyz[{name} + i] and xyz[2 * {name} + i], {after} after "
           f"X, where the {other} went to their planes, xyz[n + i] and xyz[2 * n + i] (n = width "
           f"* height = {moved.size}): the {which} places in the Y and Z planes were never written",
           PLANES_HINT + f"to xyz[2 * n + i]: store the {which} Y and Z there, as the {other} are")
