"""Models of the pixels a wrong index of ``gray_coalesced`` writes
(``helpers.exercises.gray_coalesced``)."""

from __future__ import annotations

import numpy as np


def row_by_height(missing, past, width, height):
    """i = y * height + x (the height where the width belongs): the pixels written are exactly
    those indices (inside gray, and those past it past the end), each the grey of pixel i."""
    n = width * height
    if width == height or not missing.size:
        return
    t = np.arange(n)
    at = np.unique(t // width * height + t % width)
    if not (np.array_equal(np.setdiff1d(np.arange(n), missing), at[at < n])
            and set(past.tolist()) == set(at[at >= n].tolist())):
        return
    yield (f"the pixel index steps a row by height = {height} pixels where a row is width = "
           f"{width}: i = y * height + x puts pixel (x, y) at y * {height} + x, so the rows "
           f"{'overlap' if height < width else 'leave gaps'} and {missing.size} of {n} pixels "
           f"were never written (the first at x = {missing[0] % width}, y = "
           f"{missing[0] // width})", "a row is width pixels long: i = y * width + x")
