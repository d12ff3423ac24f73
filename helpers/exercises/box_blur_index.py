"""Models of ``box_blur``'s tile loaded from the wrong place in the input
(``helpers.exercises.box_blur``), from what the kernel gave: clamp_index's min and max swapped,
so that every load reads one corner pixel (``clamp_inverted``)."""

from __future__ import annotations

import numpy as np


def mistakes(image):
    """(result, problem, hint) of each of this module's mistakes."""
    yield from clamp_inverted(image)


def clamp_inverted(image):
    """(result, problem, hint) of clamp_index giving the same index whatever i is: n - 1, from
    max(min(i, 0), n - 1) (min and max swapped), or 0, from min(max(i, n - 1), 0) (the bounds
    swapped): every load of the tile read the image's last pixel, or its first, and so every
    pixel of the blur is that pixel."""
    h, w = image.shape
    for (y, x), which, where, n, wrote in (
            ((h - 1, w - 1), "last", "(height - 1) * width + width - 1", "n - 1",
             "max(min(i, 0), n - 1) (min and max swapped)"),
            ((0, 0), "first", "0", "0", "min(max(i, n - 1), 0) (the bounds swapped)")):
        yield (np.full_like(image, image[y, x]), f"every pixel came out {image[y, x]:.4f}, the "
               f"image's {which} pixel (x={x}, y={y}): every load of the tile read in[{where}], "
               f"so clamp_index returned {n} for every index: {wrote} gives {n} whatever i is",
               "clamp i up to 0 first, then down to n - 1: min(max(i, 0), n - 1)")

