"""The escape test of notebook 03's row-per-block Mandelbrot kernel at |z|^2 = 4 exactly
(``helpers.exercises.mandelbrot_rows``): no pixel of the checker's images lands there (their
grids miss c = -2 and c = 1 on the real axis), so a test that stops the loop at |z|^2 >= 4 draws
them right; a row of its own, launched on the simulator, whose points reach |z|^2 = 4 exactly in
any float arithmetic, tells it."""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Output
from helpers.exercises.kernel import Launch
from helpers.exercises.microscope import observe

EDGE = (-2, 0, 1, 1)
"""x_min, y_min, dx and dy of a row of 4 pixels, c = -2, -1, 0 and 1: c = -2 (z = -2, 2, 2, ...)
stays on |z|^2 = 4 for ever, in the set; c = 1 (z = 1, 2, 5) escapes after 3 steps."""


def stops_at_4(kernels, max_iter):
    """(problem, hint) where the row ``EDGE``, on the simulator, counts as a loop that stops at
    |z|^2 >= 4 does: c = -2 after 1 step, not ``max_iter``, and c = 1 after 2, not 3."""
    seen = observe(kernels, Launch((Output((1, 4), np.int32), np.int32(4), np.int32(1),
                                    *map(np.float32, EDGE), np.int32(max_iter)),
                                   block=(4, 1, 1), grid=(1, 1)),
                   key=f"|z|^2 exactly 4, max_iter = {max_iter}", racecheck=False)
    if seen.error is not None or seen.outs[0].got.ravel().tolist() != [1, max_iter, max_iter, 2]:
        return
    yield ("the points whose |z|^2 lands on 4 exactly stopped there: the escape test takes "
           "|z|^2 >= 4 for escaped, but |z| = 2 is still inside (on the simulator a row of c = "
           f"-2, -1, 0 and 1 counted 1, {max_iter}, {max_iter} and 2 steps, where NumPy's loop "
           f"counts {max_iter}, {max_iter}, {max_iter} and 3: c = -2, whose z = -2, 2, 2, ... "
           "stays on |z|^2 = 4, in the set, stopped after 1 step; no pixel of the images lands "
           "on |z|^2 = 4 exactly)", "z escapes only once |z|^2 > 4: break at re2 + im2 > 4.0f "
           "(not >=), or loop while |z|^2 <= 4.0f (not <)")
