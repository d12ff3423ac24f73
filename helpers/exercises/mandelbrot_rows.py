"""Checker for the row-per-block exercise of notebook 03: ``cuda_src/exercises/mandelbrot_rows.cu``.

The kernel ``mandelbrot_rows`` draws the chapter's Mandelbrot image with one block a row
(``grid = (height, 1)``): block b draws row b, its threads striding along the row by
``blockDim.x``, and the blocks have fewer threads than a row has pixels. Its one idea is the
layout: which pixels a block and a thread own. The image is compared with NumPy's (the loop of
``helpers.exercises.escape``, up to julia's ``TOLERANCE`` of pixels that a GPU's fused multiply-adds
may change); which pixels were drawn tells the layout's mistakes apart.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Output, one_further
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.julia import TOLERANCE, escape_counts, pixel_grid
from helpers.exercises.kernel import KernelExercise, Launch

# (width, height, threads per block, max_iter): rows longer than a block, not a multiple of it
CASES = [(203, 61, 64, 80), (150, 37, 32, 60)]
VIEW = (-2.2, -1.2, 1.0, 1.2)       # x_min, y_min, x_max, y_max: the chapter's view

LOOP_HINT = ("for (int x = threadIdx.x; x < width; x += blockDim.x): the block's threads walk "
             "along the row together")


def _draw(rng):
    """The grader's cases: two other images and blocks."""
    return [(awkward(rng, block, 2 * block + 1, 300), int(rng.integers(10, 80)), block,
             int(rng.integers(30, 100))) for block in (pick(rng, (32, 64)), pick(rng, (64, 96)))]


def _where(case):
    width, height, block, max_iter = case
    return (f"with a {width}x{height} image, block = ({block}, 1, 1), grid = ({height}, 1), "
            f"max_iter = {max_iter}")


def _args(case):
    width, height, _, _ = case
    x_min, y_min, x_max, y_max = VIEW
    return x_min, y_min, (x_max - x_min) / width, (y_max - y_min) / height


def _launch(case):
    width, height, block, max_iter = case
    f32, i32 = np.float32, np.int32
    return Launch((Output((height, width), np.int32, guard=2 * width), i32(width), i32(height),
                   *map(f32, _args(case)), i32(max_iter)),
                  block=(block, 1, 1), grid=(height, 1))


def reference(case):
    """NumPy's image for the case: int32 counts of shape (height, width)."""
    width, height, _, max_iter = case
    re, im = pixel_grid(width, height, *_args(case))
    return escape_counts(np.zeros_like(re), np.zeros_like(im), re, im, max_iter)


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first."""
    width, height, block, _ = case
    got, drawn = run.out.got, ~run.out.unwritten
    yield from one_further("iters", "pixel", run.out.past, run.out.unwritten,
                           "store n in iters[y * width + x]")
    if run.out.past.size:
        yield ("iters was written past its end: some thread's x reached width",
               "stop the loop while x < width: " + LOOP_HINT)
    if not drawn.any():
        yield "nothing was drawn: iters still holds its poison", "store n in iters[y * width + x]"
    if drawn[0].any() and not drawn[1:].any():
        yield ("only row 0 was drawn: every block drew the same row",
               "y = blockIdx.x: block number b draws row b (the grid is (height, 1))")
    if drawn[:, :block].all() and not drawn[:, block:].any():
        last = [t + block * ((width - 1 - t) // block) for t in range(min(block, width))]
        if np.mean(got[:, :len(last)] != reference(case)[:, last]) <= TOLERANCE:
            yield (f"only the first {block} pixels of each row were drawn, each holding the last "
                   "pixel its thread computed: the store's index uses threadIdx.x where x "
                   "belongs", "store n in iters[y * width + x]")
        yield (f"only the first {block} pixels of each row were drawn: each thread drew one "
               "pixel", LOOP_HINT)
    if not drawn.all():
        rows, cols = np.nonzero(~drawn)
        yield (f"{int((~drawn).sum())} of {got.size} pixels were never drawn (the first at "
               f"x = {cols[0]}, y = {rows[0]})", LOOP_HINT)
    ref = reference(case)
    if np.mean(got != ref) <= TOLERANCE:
        return
    if np.mean(got != ref.T.reshape(height, width)) <= TOLERANCE:
        yield ("the pixels are stored transposed (iters[x * height + y])",
               "row-major, as a NumPy array of shape (height, width): iters[y * width + x]")
    rows, cols = np.nonzero(got != ref)
    yield (f"{np.mean(got != ref):.1%} of the pixels differ from NumPy's, the first at "
           f"(x = {cols[0]}, y = {rows[0]}): got {got[rows[0], cols[0]]}, expected "
           f"{ref[rows[0], cols[0]]}", "keep the stub's loop: only the layout changes")


EXERCISE = KernelExercise(
    stub="exercises/mandelbrot_rows.cu", kernel="mandelbrot_rows",
    signature=("int *iters, int width, int height, float x_min, float y_min, float dx, "
               "float dy, int max_iter"),
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint="stop the loop while x < width: " + LOOP_HINT,
    success=f"the Mandelbrot image matches NumPy's with one block a row ({len(CASES)} images, "
            "rows longer than a block and not a multiple of it)")

check_mandelbrot_rows = EXERCISE.check_file          # (path="exercises/mandelbrot_rows.cu")
check_mandelbrot_rows_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
