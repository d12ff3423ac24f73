"""Checker for exercise 1 of notebook 14: ``cuda_src/exercises/softmax_rows.cu``.

``softmax_rows(const __half *x, __half *y, int rows, int cols)`` must write the softmax of each
row of x into y, one warp a row, with the row's max subtracted: half the rows hold scores of
about 100 (exp overflows a float there), the others small ones, so that a missing max shows as
NaN in exactly the large rows.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch

# (rows, cols, threads a block): cols not a multiple of 32; the second has fewer columns than
# lanes and more warps than rows (blocks of 4 warps for 5 rows).
CASES = [(13, 100, 64), (5, 20, 128), (40, 333, 96)]
BLOCKS = (32, 64, 96, 128, 256)


def _draw(rng):
    """The grader's cases: one of each kind the shipped cases have."""
    return [(int(rng.integers(6, 30)), awkward(rng, 32, 33, 400), pick(rng, BLOCKS)),
            (int(rng.integers(1, 8)), pick(rng, [c for c in range(1, 32) if c != 20]), 128),
            (int(rng.integers(30, 60)), awkward(rng, 32, 200, 700), pick(rng, BLOCKS))]


def _where(case):
    rows, cols, block = case
    return f"rows = {rows}, cols = {cols}, block = ({block}, 1, 1)"


def scores(rows, cols):
    """Rows of scores as FP16: the even ones about 100 (exp overflows) but their first, 0 (so
    that subtracting x[0] overflows too), the odd ones small."""
    rng = np.random.default_rng(rows * 1000 + cols)
    x = rng.standard_normal((rows, cols)) * 3
    x[::2] += 95
    x[::2, 0] = 0
    return x.astype(np.float16)


def softmax(x, shift):
    """exp(x - shift) / its row's sum, in float64; ``shift`` broadcast against x."""
    e = np.exp(x.astype(np.float64) - shift)
    return e / e.sum(axis=-1, keepdims=True)


def _launch(case):
    rows, cols, block = case
    x = scores(rows, cols)
    warps = block // 32
    return Launch((Input(x, after=64, junk=0.0), Output((rows, cols), np.float16),
                   np.int32(rows), np.int32(cols)),
                  block=(block, 1, 1), grid=(-(-rows // warps), 1), model=x)


def _own_lane_max(x):
    """What each lane subtracting only its own columns' max gives."""
    shift = np.empty(x.shape)
    for lane in range(32):
        shift[:, lane::32] = x[:, lane::32].astype(np.float64).max(axis=1, keepdims=True)
    return softmax(x, shift)


def _mistakes(case, run):
    x, got = run.model, run.out.got.astype(np.float64)
    want = softmax(x, x.astype(np.float64).max(axis=1, keepdims=True))
    right = np.isclose(got, want, rtol=4e-3, atol=1e-4)
    if run.out.past.size:
        yield ("y was written past its last row",
               "the warps past the last row must leave: if (row >= rows) return;")
    if right.all():
        return
    bad = ~np.isfinite(got).all(axis=1)
    if bad.any() and set(np.flatnonzero(bad)) <= set(range(0, x.shape[0], 2)):
        yield ("NaN or inf in the rows whose scores are about 100, right in the small ones: "
               "exp(x) overflowed a float, the max was not subtracted",
               "m = the row's max (each lane's, then warp_max), and exp(x - m) in both places")
    if run.out.unwritten.any():
        rows_never = np.flatnonzero(run.out.unwritten.all(axis=1))
        yield ((f"rows never written (the first is row {rows_never[0]})" if rows_never.size
                else "some columns never written"),
               "one warp a row, row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, its "
               "lanes over columns lane, lane + 32, ... while c < cols")
    if np.allclose(got, _own_lane_max(x), rtol=4e-3, atol=1e-4):
        yield ("each lane subtracted the max of its own columns, not the row's",
               "after each lane's max, m = warp_max(m): all 32 lanes need the same max")
    if not np.allclose(got.sum(axis=1), 1, rtol=1e-2):
        yield ("the rows do not add up to 1: the sum of exp(x - m) is not the whole row's",
               "each lane adds its columns' exp(x - m), then sum = warp_sum(sum) for all 32")
    first = np.argwhere(~right)[0]
    yield (f"{int((~right).sum())} of {right.size} outputs are wrong (the first is "
           f"y[{first[0]}][{first[1]}] = {got[tuple(first)]:.4g}, expected "
           f"{want[tuple(first)]:.4g})", "y = exp(x - m) / sum, with m the row's max")


EXERCISE = KernelExercise(
    stub="exercises/softmax_rows.cu", kernel="softmax_rows",
    signature="const __half *x, __half *y, int rows, int cols",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint="the warps past the last row must leave before reading: if (row >= rows) return;",
    success=f"the softmax of every row, scores of 100 included ({len(CASES)} launches, rows "
            "whose length is not a multiple of 32, more warps than rows)")

check_softmax_rows = EXERCISE.check_file          # (path="exercises/softmax_rows.cu")
check_softmax_rows_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
