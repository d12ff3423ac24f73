"""A loop along the row of notebook 03's row-per-block kernel (``cuda_src/exercises/mandelbrot_rows.cu``)
unrolled to several pixels a pass, x, x + blockDim.x, ..., stepping by that many blocks' worth,
whose test, x < width, covers the pass's first pixel alone (``unguarded_pixels_of_a_pass``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import observe

UNROLLED = range(2, 5)   # the pixels a pass that a learner's unrolled loop may draw
PROBE = (80, 1, 32, 2)
"""A row of 80 pixels, blocks of 32: 2, 3 and 4 pixels a pass spill x = 96 to 111, 80 to 95 and
80 to 127 past its end, where a case may not tell them apart (203 and 64: 2 and 4 alike)."""


def spilled(width, block, per):
    """The pixels x >= width that a loop drawing ``per`` pixels a pass, x, x + blockDim.x, ...,
    stepping by per * blockDim.x and testing x < width alone, draws past a row's end, as offsets
    into the next row (x - width), sorted."""
    first = np.arange(width)
    first = first[first % (per * block) < block]      # each pass's first pixel, a thread's x
    x = (first[:, None] + block * np.arange(1, per)).ravel()
    return np.unique(x[x >= width]) - width


def unguarded_pixels_of_a_pass(case, run, launch):
    """Every pixel drawn, and past the end of iters exactly the pixels that a loop of
    ``spilled``'s, some pixels a pass with only the first tested against width, draws past the
    last row's end: (problem, hint) naming the pass's other pixels, never tested; how many a
    pass from ``run``'s spill, or where several counts give it, from a row of PROBE's on the
    simulator, where each gives its own (``launch``: the exercise's, a case to its Launch)."""
    width, height, block = case[:3]
    if run.out.unwritten.any() or not run.out.past.size:
        return
    found = _counts_a_pass(case, run.out.past)
    if len(found) > 1:
        seen = observe(run.kernel, launch(PROBE), key="a row's last pass", racecheck=False)
        found = _counts_a_pass(PROBE, seen.outs[0].past) if seen.error is None else {}
        found = {per: spilled(width, block, per) for per in found}
    if len(found) != 1:
        return
    (per, over), = found.items()
    others = ("the second pixel of each pass, x + blockDim.x, was" if per == 2 else
              f"the pixels after the first of each pass, x + blockDim.x to x + {per - 1} * "
              "blockDim.x, were")
    yield (f"{others} drawn without a test against width: the loop draws {per} pixels a pass, "
           f"stepping by {per} * blockDim.x = {per * block}, but tests only the pass's first "
           f"pixel, x < width, so in a row's last pass {over.size} pixels past the row's end (x "
           f"from {width + over[0]} to {width + over[-1]}) were drawn: their counts landed on the "
           "next row's first pixels, and after the last row past the end of iters",
           "test every pixel of a pass against width, not only the first, and keep the "
           f"{per} pixels a pass: right after each pixel's x is worked out (the pass's first x "
           f"plus u * blockDim.x), if (x >= width) break; (a row of {width} pixels is no "
           f"multiple of {per} * blockDim.x = {per * block}, so the last pass runs past the "
           "row's end)")


def _counts_a_pass(case, past):
    """{pixels a pass: their ``spilled`` pixels} of each count in UNROLLED whose loop writes
    exactly ``past`` past the end of iters (the last row's spill) in ``case``'s launch."""
    width, height, block = case[:3]
    found = {per: spilled(width, block, per) for per in UNROLLED}
    return {per: over for per, over in found.items()
            if np.array_equal(np.sort(np.ravel(past)), width * height + over)}
