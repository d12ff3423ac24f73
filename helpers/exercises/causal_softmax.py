"""Checker for exercise 1 of notebook 14: ``cuda_src/exercises/causal_softmax.cu``: the causal
softmax of each row, one warp a row (row r over columns 0 to min(r, cols - 1), their max
subtracted, the other columns 0). The even rows hold scores of about 100, so that a missing max
shows as NaN in exactly those; the odd rows hide about 150 in their masked columns, so that a max
taken over those too (every visible exp then underflows to 0) shows as NaN in exactly those. Past
row 32 (only the third case has such rows, so that the first case names a missing max first)
every fourth row's visible scores are all below -120, so that a max that starts at 0 shows as NaN
in exactly those. x is followed by 150 as well: a row past the last column that reads past it
goes wrong. The fourth case's last rows see more than 1024 columns, about 150 above the rest past
column 1023: a max whose lanes stop at 1024 columns overflows there. The last case runs on the simulator, race-checked, whatever the backend."""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises.causal_softmax_models import (
    _exps, _near, _shfl_down_sums, _shifted, far, late,
    max_from_0, max_from_the_lane_s_column, max_of_column_numbers, max_of_first_1024_columns,
    max_of_first_columns, max_of_magnitudes, softmax, sum_without_max, sunk,
    unwritten_parts, visible, write_without_max)
from helpers.exercises.causal_softmax_half import flat_scores, sum_in_half
from helpers.exercises.causal_softmax_lanes import sum_of_every_lane
from helpers.exercises.causal_softmax_last import nothing_masked
from helpers.exercises.causal_softmax_maxima import lanes_maxima
from helpers.exercises.causal_softmax_rows import (lanes_alike, written_past_the_last_row,
                                                   max_by_fminf, max_subtracted_reversed,
                                                   rows_misread, sum_before_the_max,
                                                   sum_maxed, sum_of_exp_less_max,
                                                   sum_shuffles_cut_short,
                                                   sum_shuffles_started_late, sum_stepped_by_one)
from helpers.exercises.causal_softmax_shuffles import refine
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import observe, written_twice
from helpers.exercises.origin import Wrong

# (rows, cols, threads a block): cols not a multiple of 32; the second has fewer columns than
# lanes and more warps than rows; in the third the last rows see every column; in the fourth
# rows 1024 on see past column 1023.
# The fifth's scores are flat (``flat_scores``): its long rows' sums hold many small terms
# beside one of 1, which a lane's sum kept in half precision loses.
# Last, a small one on the simulator, race-checked: lanes that each store the whole row write
# the right values, each of them 32 times.
CASES = [(13, 100, 64), (5, 20, 128), (70, 50, 96), (1030, 1100, 128), (1100, 1100, 128, "flat"),
         (3, 40, 64, "observe")]
BLOCKS = (32, 64, 96, 128, 256)


def _draw(rng):
    """The grader's cases: one of each kind the shipped cases have."""
    rows, long = int(rng.integers(50, 90)), int(rng.integers(1026, 1090))
    return [(int(rng.integers(6, 30)), awkward(rng, 32, 33, 400), pick(rng, BLOCKS)),
            (int(rng.integers(1, 8)), pick(rng, [c for c in range(1, 32) if c != 20]), 128),
            (rows, awkward(rng, 32, 33, rows - 1), pick(rng, BLOCKS)),
            (long, awkward(rng, 32, long + 1, long + 99), pick(rng, BLOCKS)),
            (flat := awkward(rng, 32, 1026, 1100), flat, pick(rng, BLOCKS), "flat")]


def scores(rows, cols):
    """FP16 scores: the even rows about 100 but their first 0 (subtracting x[0] overflows
    too), the odd ones small with about 150 in their masked columns, their visible ones about
    -140 in rows 35, 39, 43, ... (``sunk``) and about 100 past column 31 in rows 33, 37, 41, ...
    (``late``: a max that stops at column 31 overflows there); 150 more past column 1023
    (``far``)."""
    x = np.random.default_rng(rows * 1000 + cols).standard_normal((rows, cols)) * 3
    x[::2] += 95
    x[::2, 0] = 0
    x[1::2] += np.where(visible(rows, cols)[1::2], 0, 150)
    x[sunk(rows)] += np.where(visible(rows, cols)[sunk(rows)], -140, 0)
    x[late(rows)] += np.where(visible(rows, cols)[late(rows)] & (np.arange(cols) >= 32), 100, 0)
    x += np.where(far(rows, cols), 150, 0)
    return x.astype(np.float16)


def _launch(case):
    (rows, cols, block) = case[:3]
    x = (flat_scores if case[3:] == ("flat",) else scores)(rows, cols)
    return Launch((Input(x, after=64, junk=150.0), Output((rows, cols), np.float16, guard=cols),
                   np.int32(rows), np.int32(cols)),
                  block=(block, 1, 1), grid=(-(-rows // (block // 32)), 1), model=x)


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), "each lane stores only its own columns, 32 "
                         "apart: for (int c = lane; c < cols; c += 32); no loop over the whole "
                         "row", items="columns", refine=refine)


def _sum_slips(x, got, kernels):
    """The mistakes of the rows' sums, each named by a model of what it computes."""
    yield from sum_in_half(x, got)
    e, rows = _exps(x), np.arange(x.shape[0])
    own = np.arange(x.shape[1])[None, :] == np.minimum(rows, x.shape[1] - 1)[:, None]
    if _near(got, e):
        yield from sum_maxed(kernels)
        yield ("y is exp(x - m), never divided by the sum",
               "y = exp(x - m) / sum where c <= last: the sum is there to make each row add up to 1")
    yield from sum_without_max(x, got)
    yield from sum_of_exp_less_max(x, got)
    if _near(got, np.where(own, 0, softmax(x))):
        yield ("each row's column last came out 0, the others right: the write's test is c < last",
               "a row sees its own column: y = exp(x - m) / sum where c <= last")
    with np.errstate(divide="ignore", invalid="ignore"):
        down = np.where(visible(*x.shape), e / _shfl_down_sums(e), 0)
    if _near(got, down):
        yield ("each lane divided by its own part of the sum: only lane 0 holds the sum after "
               "__shfl_down_sync", "use __shfl_xor_sync, which leaves it in every lane")
    yield from sum_shuffles_cut_short(x, got)
    yield from sum_stepped_by_one(x, got)
    yield from sum_of_every_lane(x, got)
    yield from sum_before_the_max(x, got, kernels)


def _max_slips(x, got, bad, kernels):
    """The mistakes of the max that the NaN or inf rows (``bad``) show, each by its model."""
    if np.isnan(got[visible(*x.shape)]).all() and _maxima_not_maxed(kernels):
        yield ("every visible y is NaN: the lanes' maxima were not combined with a max: a lane "
               "that sees no column keeps m = -INFINITY, and a sum keeps it too (-INFINITY + x "
               "is -INFINITY), so exp(x - m) is inf and y is inf / inf, NaN (33 rows of zeros "
               "on the simulator came out right only in rows 31 and 32, where every lane sees a "
               "column)",
               "combine the lanes' maxima with warp_max, whose shuffles take fmaxf: m = "
               "warp_max(m)")
    if np.isnan(got[visible(*x.shape)]).all():
        yield from max_by_fminf(kernels)
        yield ("every visible y is NaN: m came out above every score (a max that starts at "
               "+INFINITY stays there), so each exp(x - m) is 0, the sum too, and 0 / 0 is NaN",
               "start the max below every score: float m = -INFINITY, then fmaxf over columns 0 "
               "to last")
    yield from max_of_first_1024_columns(x, got, bad)
    if bad and bad <= set(late(x.shape[0])):
        yield from max_of_first_columns(x, got, kernels)
        yield ("NaN or inf in exactly the rows whose largest scores lie past column 31: the max "
               "did not reach those columns, and their exp(x - m) overflowed a float",
               "each lane takes the max of all its columns, 32 apart up to the last: for (int c "
               "= lane; c <= last; c += 32) m = fmaxf(m, ...); then m = warp_max(m)")
    if bad and np.allclose(got, max_from_0(x), rtol=4e-3, atol=1e-4, equal_nan=True):
        yield from max_of_magnitudes(kernels)
        yield ("y is NaN in exactly the rows whose visible scores are all below -120: m starts "
               "at 0, above every score of those rows, and each exp(x - m) underflowed to 0",
               "start the max at -INFINITY: float m = -INFINITY, then fmaxf over columns 0 to last")


def _near_nan(got, model):
    return np.allclose(got, model, rtol=4e-3, atol=1e-4, equal_nan=True)


def _max_from_warp(x, block):
    """What a max loop from column threadIdx.x, not the lane, gives: warp w of a block of
    ``block`` threads takes the visible columns from 32 w on (none: m = -INFINITY)."""
    rows, cols = x.shape
    warp = np.arange(rows) % (block // 32)
    seen = visible(rows, cols) & (np.arange(cols)[None, :] >= 32 * warp[:, None])
    return _shifted(x, np.where(seen, x.astype(np.float64), -np.inf).max(axis=1))


def _max_from_thread(x, got, block, kernels):
    """NaN rows that a max loop from threadIdx.x gives, where one warp a block comes out right."""
    if _near_nan(got, _max_from_warp(x, block)) and _one_warp_right(kernels, x):
        yield (f"NaN in the rows of the block's warps past the first ({block // 32} warps a "
               "block): their lanes' max started at column 32 * warp + lane, so a warp whose "
               "rows end before that saw no column and kept m = -INFINITY (exp(x - m) is inf, "
               "inf / inf NaN); with one warp a block the kernel is right",
               "each warp has a row of its own, and its lanes start at their lane, threadIdx.x "
               "% 32, not threadIdx.x: for (int c = lane; c <= last; c += 32)")


def _one_warp_right(kernels, x) -> bool:
    """Whether a launch on the simulator of ``x`` with one warp a block comes out right."""
    rows, cols = x.shape
    seen = observe(kernels, Launch((Input(x), Output((rows, cols), np.float16), np.int32(rows),
                                    np.int32(cols)), block=(32, 1, 1), grid=(rows, 1)),
                   key="one warp a block", racecheck=False)
    return seen.error is None and _near(seen.outs[0].got.astype(np.float64), softmax(x))


def _rows_probed(kernels, rows=70, cols=40):
    """The rows written by a launch on the simulator of ``rows`` rows, one warp a block."""
    x = scores(rows, cols)
    seen = observe(kernels, Launch((Input(x), Output((rows, cols), np.float16), np.int32(rows),
                                    np.int32(cols)), block=(32, 1, 1), grid=(rows, 1)),
                   key="rows of one warp a block", racecheck=False)
    return None if seen.error is not None else np.flatnonzero(~seen.outs[0].unwritten.all(axis=1))


def _maxima_not_maxed(kernels) -> bool:
    """Whether a launch on the simulator of 33 rows by 32 columns of zeros comes out NaN in rows
    0 to 30, where some lanes see no column and hold m = -INFINITY, and right in rows 31 and 32,
    where every lane sees one: the lanes' maxima combined by a sum (or a min), not a max."""
    rows, cols = 33, 32
    x = np.zeros((rows, cols), np.float16)
    seen = observe(kernels, Launch((Input(x), Output((rows, cols), np.float16), np.int32(rows),
                                    np.int32(cols)), block=(32, 1, 1), grid=(rows, 1)),
                   key="lanes' maxima", racecheck=False)
    if seen.error is not None:
        return False
    got, short = seen.outs[0].got.astype(np.float64), visible(rows, cols)[:31]
    return bool(np.isnan(got[:31][short]).all() and _near(got[31:], softmax(x)[31:]))


def _overflowed(kernels):
    """NaN or inf in the rows whose scores are about 100 alone: no max subtracted, or the max
    of columns 0, 32, ... alone, which a launch tells apart; its trace of the loads of x then
    tells every lane's max loop from column 0 from lane 0's own max handed to every lane."""
    seen = _lanes_from_column_0(kernels)
    if seen is not None and _lanes_kept_to_their_columns(seen) is True:
        yield ("every lane subtracted lane 0's own max, that of columns 0, 32, 64, ... alone: "
               "each lane read its own columns, lane, lane + 32, ..., but lane 0's max was "
               "handed to all (as __shfl_sync(..., m, 0) does) before the lanes' maxima were "
               "combined, so m missed the row's largest scores and exp(x - m) overflowed a float",
               "combine the lanes' maxima first: m = warp_max(m), whose __shfl_xor_sync leaves "
               "the row's max in every lane")
    elif seen is not None and _lanes_kept_to_their_columns(seen) is False:
        yield ("each lane's max started at column 0, not at its lane: every lane took columns "
               "0, 32, 64, ... alone, so m missed the row's largest scores and exp(x - m) "
               "overflowed a float", "lane l takes columns l, l + 32, ...: for (int c = lane; c "
               "<= last; c += 32) m = fmaxf(m, ...)")
    elif seen is not None:
        yield ("every lane subtracted the max of columns 0, 32, 64, ... alone, lane 0's "
               "columns: each lane's max loop started at column 0, or lane 0's own max was "
               "handed to every lane before the lanes' maxima were combined; m missed the row's "
               "largest scores and exp(x - m) overflowed a float",
               "lane l takes the max of columns l, l + 32, ...: for (int c = lane; c <= last; "
               "c += 32) m = fmaxf(m, ...); then m = warp_max(m) combines the lanes' maxima")
    yield ("NaN or inf in the rows whose scores are about 100, right in the small ones: "
           "exp(x) overflowed a float, the max was not subtracted",
           "m = the max of columns 0 to last (each lane's, then warp_max), then exp(x - m)")


COLUMN_0 = 40  # rows and columns of the launch that ``_lanes_from_column_0`` makes


def _lanes_from_column_0(kernels):
    """The ``Observed`` of a launch on the simulator of 40 rows of small scores whose column 0
    is -100, its loads kept, where it gives what m = the max of columns 0, 32, ... up to last
    gives (every lane's max loop from column 0, or lane 0's own max handed to every lane):
    exp(x + 100) overflows in rows 1 to 31, and rows 32 on, whose column 32 is small, come out
    right; else None. A kernel that subtracts no max gets every row right."""
    rows = cols = COLUMN_0
    x = np.random.default_rng(7).standard_normal((rows, cols)).astype(np.float16)
    x[:, 0] = -100
    seen = observe(kernels, Launch((Input(x), Output((rows, cols), np.float16), np.int32(rows),
                                    np.int32(cols)), block=(32, 1, 1), grid=(rows, 1)),
                   key="max from column 0", racecheck=False, accesses=8192)
    if seen.error is not None:
        return None
    m = np.where(visible(rows, cols) & (np.arange(cols) % 32 == 0), x.astype(np.float64),
                 -np.inf).max(axis=1)
    return seen if np.allclose(seen.outs[0].got.astype(np.float64), _shifted(x, m), rtol=4e-3,
                               atol=1e-4, equal_nan=True) else None


def _lanes_kept_to_their_columns(seen):
    """Whether every load of x (the global array no thread wrote) in ``seen`` (one warp a block,
    block b on row b) was of a column of the loading lane's own (column % 32 == lane); None when
    the trace kept no load of x."""
    kept = seen.accesses
    if kept is None:
        return None
    written = kept["array"][kept["write"]]
    loads = kept[~kept["write"] & ~kept["shared"] & ~np.isin(kept["array"], written)]
    if not len(loads):
        return None
    return bool(((loads["index"] - loads["block"] * COLUMN_0) % 32 == loads["lane"]).all())


def _read_past(run, name):
    """A read past the end of x, run again with NaN after it: the max's loop (or every loop)
    reading each row at x + 2 * row * cols, its offset added to in, which already points at the
    row (fmaxf skips the NaN past x; a sum or an exp keeps it)."""
    if name != "x":
        return
    flat, x = run.launch.args[0].host().astype(np.float64), run.model
    rows, cols = x.shape
    seen, at = visible(rows, cols), 2 * np.arange(rows)[:, None] * cols + np.arange(cols)
    twice = np.where(at < flat.size, flat[np.minimum(at, flat.size - 1)], np.nan)
    with np.errstate(invalid="ignore"):
        every = np.where(np.isnan(np.where(seen, twice, 0)).any(axis=1)[:, None] & seen, np.nan,
                         softmax(np.nan_to_num(twice)))
    max_only = _shifted(x, np.where(seen & ~np.isnan(twice), twice, -np.inf).max(axis=1))
    got = run.out.got.astype(np.float64)
    if any(np.allclose(got, model, rtol=4e-3, atol=1e-4, equal_nan=True)
           for model in (max_only, every)):
        yield ("the rows were read at x + 2 * row * cols, past the end of x from row "
               f"{-(-x.size // (2 * cols))} on: in already points at the row (x + row * cols), "
               "and in[row * cols + c] adds row * cols again",
               "index in by the column alone: in[c]")


def _masked_in_the_max(run):
    """Masked scores taken into the max by a loop that runs to the row, or by a start at
    in[lane] (each by its model)."""
    yield from _max_to_the_row(run)
    yield from max_from_the_lane_s_column(run)


def _max_to_the_row(run):
    """A max loop that runs to the row (c <= row), not to last: a row past the last column takes
    in the next rows' scores (the last rows the 150 past the end of x), exps underflow to 0."""
    flat, x = run.launch.args[0].host().astype(np.float64), run.model
    rows, cols = x.shape
    c, r = np.arange(max(rows, cols))[None, :], np.arange(rows)[:, None]
    reach = (c <= r) & (r * cols + c < flat.size)
    m = np.where(reach, flat[np.minimum(r * cols + c, flat.size - 1)], -np.inf).max(axis=1)
    model = _shifted(x, m)
    shown = ", ".join(str(r) for r in np.flatnonzero(np.isnan(model).any(axis=1))[:3])
    if shown and _near_nan(run.out.got.astype(np.float64), model):
        yield (f"NaN in rows {shown}, ...: the max's loop ran to the row, c <= row, so a row past "
               f"the last column (row >= cols = {cols}) took its max over the next row's scores "
               "too (the last rows, the elements past the end of x), m came out above every score of its own, "
               "and each exp(x - m) underflowed to 0 (0 / 0 is NaN)",
               "the max's loop stops at the row's last column, as the sum's does: for (int c = "
               "lane; c <= last; c += 32)")


def _mistakes(case, run):
    x, got = run.model, run.out.got.astype(np.float64)
    want = softmax(x)
    right = np.isclose(got, want, rtol=4e-3, atol=1e-4)
    yield from written_past_the_last_row(x, run.out.past, run.kernel)
    if right.all():
        return
    yield from rows_misread(x, got, run.out.unwritten, run.kernel)
    yield from max_subtracted_reversed(x, got)
    yield from sum_shuffles_started_late(x, got)   # before the NaN rows: a GPU's lanes of denormals
    bad = set(np.flatnonzero(~np.isfinite(np.where(run.out.unwritten, 0, got)).all(axis=1)))
    odd_masked = set(range(1, min(x.shape[0], x.shape[1] - 1), 2))   # odd rows that mask some
    if 0 in bad and not bad & odd_masked:
        yield ("row 0, which sees column 0 alone, came out NaN or inf: a loop over its visible "
               "columns met none of them (it stops before last, or last is one short)",
               "last = min(row, cols - 1), and the max's and the sum's loops run while c <= last")
    if bad and bad <= set(range(0, x.shape[0], 2)):
        yield from max_of_column_numbers(x, got)
        yield from write_without_max(x, got)
        yield from _overflowed(run.kernel)
    yield from _max_slips(x, got, bad, run.kernel)
    if _near(got, softmax(x, seen=visible(*x.shape, ahead=1))):
        yield ("each row saw one column too many: its softmax took in column row + 1",
               "last = min(row, cols - 1): token r looks at columns 0 to r, its own the last")
    if (got[~visible(*x.shape) & ~run.out.unwritten] != 0).any():
        yield from nothing_masked(x, got, run.kernel)
        yield ("the masked columns (past the row's own, c > row) are not 0",
               "y = 0 where c > last: a token does not look at the ones after it")
    if bad:
        yield from _max_from_thread(x, got, case[2], run.kernel)
        yield from _masked_in_the_max(run)
    if odd_masked and odd_masked <= bad <= {0, *range(1, x.shape[0], 2)}:  # row 0: x[0] is 0
        yield ("NaN in the rows whose masked columns hold the largest scores: the max was taken "
               "over the masked columns too, and every visible exp(x - m) underflowed to 0",
               "the max over columns 0 to last only: for (int c = lane; c <= last; c += 32)")
    yield from lanes_alike(x, got, run.out.unwritten, case[2])
    yield from unwritten_parts(x, got, run.out.unwritten, case[2],
                               lambda: _rows_probed(run.kernel))
    yield from lanes_maxima(x, got)
    if right[:x.shape[1] - 1].all():  # only rows r >= cols - 1 are wrong
        yield ("only the rows that see every column (row >= cols - 1) are wrong: their last "
               "column is not cols - 1", "last = min(row, cols - 1): a row has only cols columns")
    if _near(got, softmax(x, seen=visible(*x.shape) & ~np.eye(*x.shape, dtype=bool))):
        # the columns before a row's own only
        yield ("each row left out its own column: y[r][r] is 0, and row 0 is all 0 (last is one "
               "short)", "a row sees columns 0 to row, its own included: last = min(row, cols - 1)")
    if _near(got, softmax(x, summed=True)):  # over every column
        yield ("the rows add up to less than 1: the sum took in the masked columns too (c < "
               "cols), whose exp(x - m) the output leaves out",
               "the sum's loop, as the max's, runs over the visible columns only: c <= last")
    yield from _sum_slips(x, got, run.kernel)
    if not np.allclose(got.sum(axis=1), 1, rtol=1e-2):
        yield ("the rows do not add up to 1: the sum of exp(x - m) is not the whole row's",
               "each lane adds its columns' exp(x - m), then sum = warp_sum(sum) for all 32")
    yield from near.misses("y", got, want, close=near.within(4e-3, 1e-4))
    first = np.argwhere(~right)[0]
    yield Wrong(f"{int((~right).sum())} of {right.size} outputs are wrong (the first is "
                f"y[{first[0]}][{first[1]}] = {got[tuple(first)]:.4g}, expected "
                f"{want[tuple(first)]:.4g})", "y = exp(x - m) / sum where c <= last, else 0", "y",
                np.ravel_multi_index(tuple(first), got.shape), got.shape)


EXERCISE = KernelExercise(
    stub="exercises/causal_softmax.cu", kernel="causal_softmax",
    signature="const __half *x, __half *y, int rows, int cols",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes,
    where=lambda case: "rows = {}, cols = {}, block = ({}, 1, 1)".format(*case),
    crash_hint="the warps past the last row must leave before reading: if (row >= rows) return;",
    refine=refine, read_past=_read_past,
    no_extern_c=True, simulated="runs the race check", observed=_observed,
    observed_as="race-checked",
    success=f"the causal softmax of every row, scores of 100 included ({len(CASES) - 1} "
            "launches, rows whose length is not a multiple of 32, more warps than rows, rows of "
            "more than 1024 columns, long rows of small terms summed in float; each element "
            "stored by one lane)")

check_causal_softmax = EXERCISE.check_file          # (path="exercises/causal_softmax.cu")
check_causal_softmax_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
