"""A read offset of OpenCL's sepia port (``helpers.exercises.sepia_opencl``) that multiplies the
column by 3 and not the row: y * width + 3 * x, where a row of rgb is 3 * width bytes, so
pixel (x, y) reads bytes y * width + 3 * x to y * width + 3 * x + 2 (row 0 alone right)."""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises.sepia_models import CHANNEL_NAMES, near, reference


def _read_at_untripled_rows(rgb):
    """The bytes each pixel (x, y) reads at offset y * width + 3 * x, as an (h, w, 3) image."""
    height, width = rgb.shape[:2]
    ys, xs = np.mgrid[:height, :width]
    return rgb.ravel()[(ys * width + 3 * xs)[..., None] + np.arange(3)]


def _read_offset(code):
    """The first read's offset as the code writes it: the name in rgb[...] with its assignment
    (p = y * width + 3 * x), or the index itself; None where the code reads rgb otherwise."""
    read = re.search(r"\brgb\s*\[\s*([^\]]*?)\s*\]", code)
    if not read:
        return None
    name = re.match(r"(\w+)\s*(?:\+\s*0\s*)?$", read.group(1))
    assigned = name and re.search(rf"\b{name.group(1)}\s*=(?!=)\s*([^;]*);", code)
    return " ".join((f"{name.group(1)} = {assigned.group(1)}" if assigned else
                     f"rgb[{read.group(1)}]").split())


def row_not_tripled(rgb, out, code):
    """Every byte written, row 0 right, and each pixel (x, y) holding the sepia of the 3 bytes at
    y * width + 3 * x: the read's offset multiplies the column by 3 but not the row (named as
    the code writes it)."""
    want = reference(rgb)
    model = reference(_read_at_untripled_rows(rgb))
    if out.unwritten.any() or rgb.shape[0] < 2 or not near(out.got, model) or \
            near(out.got, want):
        return
    y, x, c = np.argwhere(out.got != want)[0]
    offset = _read_offset(code)
    said = f"the read's offset, {offset}," if offset else "the read's offset"
    yield (f"row 0 is right, but the rows below it read the wrong bytes: {said} multiplies the "
           "column by 3 but not the row, so pixel (x, y) read bytes y * width + 3 * x on, where "
           f"row y starts at byte 3 * y * width (the first: x = {x}, y = {y}, "
           f"{CHANNEL_NAMES[c]}: got {out.got[y, x, c]}, expected {want[y, x, c]})",
           "a row of rgb is 3 * width bytes: read pixel i = y * width + x at rgb[3 * i], "
           "rgb[3 * i + 1], rgb[3 * i + 2] (3 * i = 3 * y * width + 3 * x), as the stores into "
           "out do")
