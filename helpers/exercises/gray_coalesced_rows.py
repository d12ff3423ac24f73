"""Only row 0 of gray written, the image wider than tall (``helpers.exercises.gray_coalesced``):
every thread's y came out 0. Who stored into row 0, in a trace of the case's launch on the
simulator, tells how: every thread, height of them a pixel (y from the column, y = x / width), or
the threads t < width alone, once each, the others returning (grayscale.cu's 2-D index kept on
the flat grid: y from blockIdx.y and threadIdx.y, 0 there, and x = t guarded by x >= width)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import accesses_of, kernel_words

FLAT_HINT = ("on a flat grid take x and y from t = blockIdx.x * blockDim.x + threadIdx.x: x = t % "
             "width, y = t / width, and return when t >= width * height")


def row_zero(kernels, launch, missing, width, height):
    """(problem, hint) where only row 0 was written (``missing``: the pixels never written) and
    the trace of ``launch`` shows its pixels stored by height threads each or by the threads
    t < width once each (where it is taller than wide, the pixels t < width are also those of a
    guard against each side)."""
    n = width * height
    if height < 2 or width <= height or missing.tolist() != list(range(width, n)):
        return
    stored = _stores_into_gray(kernels, launch)
    if stored is None:
        return
    t, at = stored
    said = f"only row 0 of gray was written, the {height - 1} rows below never"
    if np.array_equal(np.bincount(at, minlength=width), np.full(width, height)):
        yield (f"{said}: every thread's pixel landed in row 0, y came out 0 for every t (as x / "
               "width does: a column x is below width), and each pixel of row 0 was written by "
               f"{height} threads, those of its column", "the row comes from t, not from the "
               "column: x = t % width, y = t / width")
    elif np.array_equal(np.sort(t), np.arange(width)) and np.array_equal(at, t):
        y = _y_from_the_grid(kernels)
        why = (f"{y} is 0 on this flat grid, whose grid and blocks have no y (blockIdx.y and "
               "threadIdx.y are 0), so x = t ran past the row's end and the guard x >= width "
               "returned every thread past the first row" if y else
               "the guard returned every thread past the first row")
        yield (f"{said}: each pixel of row 0 by one thread (t = 0 to {width - 1}), and every "
               f"thread from t = {width} on returned without storing: {why}", FLAT_HINT)


def _stores_into_gray(kernels, launch):
    """(the threads t, the pixels they stored) of every store into gray in a trace of ``launch``
    on the simulator (a 1-D grid); None where the launch failed there or stored past row 0's
    pixels' indices."""
    threads = launch.block[0] * launch.grid[0]
    kept = accesses_of(kernels, launch, f"the stores of {threads} threads", 4 * threads)
    if kept is None:
        return None
    stores = kept[kept["write"] & (kept["array"] == "gray")]
    t = stores["block"].astype(int) * launch.block[0] + stores["thread"].astype(int)
    at = stores["index"].astype(int)
    return None if (at < 0).any() else (t, at)


def _y_from_the_grid(kernels):
    """The assignment, ``name = ...`` as the kernel's text writes it, that reads blockIdx.y or
    threadIdx.y (a 2-D grid's row); None where there is none or the text cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for k in range(body + 1, end - 1):
        if words[k] in ("blockIdx", "threadIdx") and words[k + 1:k + 3] == [".", "y"]:
            start = max(j for j in range(body, k) if words[j] in (";", "{", "}")) + 1
            stop = next((j for j in range(k, end) if words[j] == ";"), end)
            name = next((j for j in range(start, k) if words[j + 1] == "="), None)
            if name is not None:
                return " ".join(source[tokens[name].start:tokens[stop - 1].end].split())
    return None
