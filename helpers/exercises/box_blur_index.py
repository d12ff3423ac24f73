"""Models of ``box_blur``'s tile loaded from the wrong place in the input
(``helpers.exercises.box_blur``), from what the kernel gave: clamp_index's min and max swapped,
so that every load reads one corner pixel (``clamp_inverted``); the row and the column swapped in
the load's flat index, so that the tile holds the image read column after column
(``load_transposed``)."""

from __future__ import annotations

import numpy as np


def mistakes(image, blur):
    """(result, problem, hint) of each of this module's mistakes (``blur``: box_blur.reference)."""
    yield from clamp_inverted(image)
    yield from load_transposed(image, blur)


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


def load_transposed(image, blur):
    """(result, problem, hint) of a tile loaded from in[clamp_index(x0 + tx, width) * height +
    clamp_index(y0 + ty, height)], the row and the column swapped in the flat index: the image
    read as ``width`` rows of ``height`` floats, transposed (``blur``: box_blur.reference). A
    square image gives what the output stored transposed gives: not told apart there."""
    h, w = image.shape
    if h == w:
        return
    yield (blur(image.reshape(w, h).T), "the tile was loaded from in[x * height + y] (the column "
           "times height, plus the row): that reads the image as if it were stored column after "
           "column, so every element of the tile holds another pixel", "the image is stored row "
           "after row: pixel (x, y) is at y * width + x, so load in[clamp_index(y0 + ty, height) "
           "* width + clamp_index(x0 + tx, width)]")
