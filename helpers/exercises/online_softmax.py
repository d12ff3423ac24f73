"""Checker for exercise 2 of notebook 14: ``cuda_src/exercises/online_softmax.cu``.

``online_softmax(const __half *x, float *row_max, float *row_sum, int rows, int cols)`` must
write each row's max m and its sum of exp(x - m), one warp a row, each lane with a running pair
that it rescales when its max grows, the lanes' pairs merged (and rescaled) by shuffles. The rows
have their max first, last, or anywhere, so that a missing rescale shows in some rows and not in
others, and one row of three is all below 0, so that a max that starts at 0 shows; every other
max-first row is around 100, past where a float's exp overflows (88), so that exp(v) / exp(m)
shows; a case shorter than 17 columns merges lanes that have no column at all.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.microscope import with_time_limit_told
from helpers.exercises.verdict import listed
from helpers.exercises.online_softmax_models import (block_not_times_warps, first_warps_alone,
                                                     lane_is_the_warp, max_from_the_lane_s_value,
                                                     max_not_kept, missing_offset,
                                                     outputs_swapped, pairs, refined,
                                                     rescales, row_0_everywhere,
                                                     shuffled_from_lane_offset,
                                                     stored_at_the_block)
from helpers.exercises.online_softmax_lane_0 import lane_0_merged_nothing
from helpers.exercises.online_softmax_loops import (endless_merge, one_past_the_row,
                                                    steps_by_the_block, steps_short_of_the_warp)

# (rows, cols, threads a block)
CASES = [(12, 200, 64), (6, 10, 128), (30, 77, 96)]
PROBE = (70, 40, 64)
"""More rows than a block's threads: row = blockIdx.x * blockDim.x + threadIdx.x / 32 writes
rows 0, 1, 64, 65, row = threadIdx.x / 32 rows 0 and 1 alone."""


def _draw(rng):
    """The grader's cases: one of each kind the shipped cases have."""
    return [(int(rng.integers(6, 20)), awkward(rng, 32, 100, 400), pick(rng, (32, 64, 96, 128, 256))),
            (int(rng.integers(3, 9)), pick(rng, [c for c in range(1, 17) if c != 10]), 128),
            (int(rng.integers(20, 50)), awkward(rng, 32, 33, 99), pick(rng, (32, 64, 96, 128, 256)))]


def scores(rows, cols):
    """FP16 rows: sorted down (the max first; every other one around 100), sorted up (the max
    last), and in no order, all below 0."""
    x = np.random.default_rng(rows * 1000 + cols).standard_normal((rows, cols)) * 3
    x[0::3] = -np.sort(-x[0::3], axis=1)
    x[1::3] = np.sort(x[1::3], axis=1)
    x[2::3] = -np.abs(x[2::3]) - 0.5
    x[0::6] += 100
    return x.astype(np.float16)


def _launch(case):
    (rows, cols, block), x = case, scores(*case[:2])
    return Launch((Input(x, after=64, junk=0.0), Output(rows), Output(rows), np.int32(rows),
                   np.int32(cols)), block=(block, 1, 1), grid=(-(-rows // (block // 32)), 1),
                  model=x)


def _from_the_block_s_thread(case, x, m, sums):
    """The columns walked from threadIdx.x, the thread's place in the block, not its lane: warp
    w of a block (row % warps) started at column 32 w + lane, so its row's pair left out the
    first 32 w columns."""
    warps = case[2] // 32
    if warps < 2:
        return
    model = [pairs(x[r:r + 1, 32 * (r % warps):]) for r in range(x.shape[0])]
    model_m, model_l = (np.array([pair[k][0] for pair in model]) for k in (0, 1))
    if np.allclose(m, model_m) and np.allclose(sums, model_l, rtol=1e-3):
        r = next(r for r in range(len(m)) if r % warps and not np.isclose(
            m[r], x[r].astype(np.float64).max()))
        w = r % warps
        yield (f"row_max[{r}] = {m[r]:.6g}, the max of columns {32 * w} to {x.shape[1] - 1} "
               f"only (the row's is {x[r].astype(np.float64).max():.6g}): row {r} is warp {w} "
               f"of its block, and its lanes started at column threadIdx.x = {32 * w} + lane, "
               f"so warp w of each block left out its row's first 32 w columns",
               "each warp walks its own row from column 0, by its lane, the thread's place in "
               "its warp: for (int c = lane; c < cols; c += 32), lane = threadIdx.x % 32")


def _wrong_max(x, m, want_m):
    """What a row_max that is not the row's max shows, the most telling first."""
    r, xs = int(np.argmax(~np.isclose(m, want_m))), x.astype(np.float64)
    if (m[want_m < 0] == 0).all() and np.allclose(m, np.maximum(want_m, 0)):
        yield ("row_max is 0 in the rows whose values are all below 0: each lane's max "
               "started at 0, above every one of them",
               "start each lane's max below every value: float m = -INFINITY")
    if np.allclose(m, pairs(x, m2_from="l")[0]):
        yield ("row_max is not the row's max: each merge took the partner's sum l as its max "
               "(m2 shuffled from l)", "shuffle the partner's max from m: float m2 = "
               "__shfl_xor_sync(0xffffffffu, m, offset), and l2 from l")
    if np.allclose(m, pairs(x, merged=np.minimum)[0]):
        yield (f"row_max[{r}] = {m[r]:.6g}, the smallest of the 32 lanes' maxes (the row's is "
               f"{want_m[r]:.6g}): the merge took m_new = fminf(m, m2), the smaller of the two",
               "the merged max is the larger of the two: float m_new = fmaxf(m, m2)")
    if np.allclose(m, pairs(x, kept="partner")[0]):
        yield (f"row_max[{r}] = {m[r]:.6g}, lane 31's own max (the row's is {want_m[r]:.6g}): "
               "each merge set m to the partner's max, m = m2, not to the merged one, so each "
               "step handed a max on without merging it (lane 0 ended with lane 31's), and l, "
               "rescaled to m_new, no longer matches m", "keep the merged max: m = m_new (= "
               "fmaxf(m, m2)), after l's update, at each step of the butterfly")
    if np.allclose(m, xs[:, ::32].max(axis=1)):
        yield ("row_max is lane 0's own max, not the row's",
               "merge the lanes' maxes too: m = fmaxf(m, m2) at each step of the butterfly")
    yield ((f"row_max[{r}] = {m[r]:.6g}, the max of only some of its columns",
            "each lane walks c = lane, lane + 32, ... < cols, and the butterfly (offsets 16, "
            "8, 4, 2, 1) merges all 32 lanes' maxes") if all(map(np.isin, m, xs)) else
           (f"row_max[{r}] = {m[r]:.6g} is no value of row {r} (its max is {want_m[r]:.6g})",
            "lane l reads in[c], c = l, l + 32, ... < cols, of its own row: in = x + row * cols"))


def _bad_exps(case, x, sums):
    """What an infinite or NaN row_sum shows: an exp taken the wrong way."""
    if np.isinf(sums).any() and np.allclose(sums, pairs(x, fresh="raw")[1], rtol=1e-3,
                                            equal_nan=True):
        yield ("row_sum is infinite in the rows of scores around 100: each value's exp was "
               "added unshifted, exp(v), which overflows a float past 88; the running sum was "
               "rescaled to the new max, but the new term was not shifted by it",
               "the new term must be shifted by the running max too: l = l * exp(m - m_new) + "
               "exp(v - m_new)")
    if np.allclose(sums, pairs(x, fresh=False)[1], rtol=1e-3, equal_nan=True):
        yield ("row_sum is infinite: each value's exp was taken against the old max, exp(v - m), "
               "and at a lane's first column m is still -INFINITY", "take it against the new max: "
               "l = l * exp(m - m_new) + exp(v - m_new)")
    if np.isnan(sums).any() and np.allclose(sums, pairs(x, fresh="apart")[1], rtol=1e-3,
                                            equal_nan=True):
        yield ("row_sum is NaN in the rows of scores around 100: exp(v) / exp(m_new) takes the "
               "exps first, and exp(v) overflows a float past 88 (infinity / infinity is NaN)",
               "subtract the max first, then take the exp: exp(v - m_new)")
    if np.isnan(sums).any() and case[1] <= 16:
        yield ("row_sum is NaN in rows shorter than 17 columns: lanes with no column "
               "(m = -INFINITY) were merged with exp(-INFINITY - -INFINITY)",
               "a sum whose max is -INFINITY counts 0 in the merge, whatever the exp says")
    if np.isnan(sums).all() and case[1] >= 32 and np.allclose(
            sums, pairs(x, loop="ratio")[1], equal_nan=True):
        yield ("row_sum is NaN in every row, though every lane has columns: at a lane's first "
               "column, while m is still -INFINITY, 0 met infinity (0 times infinity is NaN): "
               "the old sum l = 0 was rescaled linearly, by m / m_new (-INFINITY / v), or the "
               "wrong way, by exp(m_new - m), both infinite where exp(m - m_new) is 0; or the "
               "value's exp(v - m), infinite, was added before the rescale, (l + exp(v - m)) * "
               "exp(m - m_new) (the three give the same NaN in every row, whatever the values)",
               "rescale the old sum by the exp of the old max minus the new, exp(m - m_new), not "
               "by their ratio m / m_new, and add the value's exp against the new max: "
               "l = l * exp(m - m_new) + exp(v - m_new)")


def _written_rows(case, run):
    """The rows whose pair ``run`` wrote (both outputs), right; None where any is wrong."""
    (m_out, l_out), wants = run.outs, pairs(scores(*case[:2]))
    rows = ~m_out.unwritten & ~l_out.unwritten
    if not np.array_equal(rows, ~m_out.unwritten | ~l_out.unwritten) or m_out.past.size or \
            not all(np.allclose(out.got[rows], want[rows], rtol=1e-3)
                    for out, want in zip((m_out, l_out), wants)):
        return None
    return np.flatnonzero(rows).tolist()


def _rows_by_the_block_s_threads(case, run):
    """row = blockIdx.x * blockDim.x + threadIdx.x / 32: block b's warps took rows b * blockDim.x
    + w, so only the first block's rows 0 to warps - 1 lie below rows, right. Where rows <=
    blockDim.x, row = threadIdx.x / 32 writes the same: ``PROBE`` (more rows than a block's
    threads) tells them apart, on the same backend."""
    warps = case[2] // 32
    if _written_rows(case, run) != list(range(min(warps, case[0]))) or warps >= case[0]:
        return
    launched = EXERCISE.run(run.kernel, _launch(PROBE))
    try:
        next(launched)
        return
    except StopIteration as stop:
        probe = stop.value
    rows, _, block = PROBE
    reached = [r for r in range(rows) if r % block < block // 32]
    if probe is None or _written_rows(PROBE, probe) != reached:
        return
    written = listed(range(warps)) if warps < 4 else f"0 to {warps - 1}"
    first = "row 0 was" if warps == 1 else f"rows {written} were"
    yield (f"only {first} written, by the first block's {warps} warps: row = "
           f"blockIdx.x * blockDim.x + threadIdx.x / 32 steps by blockDim.x = {case[2]}, the "
           f"block's threads, from one block to the next, so block 1's warps took rows from "
           f"{case[2]} on, past the last (a launch of {rows} rows in blocks of {block} wrote only "
           f"rows {listed(reached)})", "a block holds blockDim.x / 32 warps, one a "
           "row: row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32")


def _detect(kernel, case):
    """The case's mistakes; a launch stopped at the simulator's time limit raises its error
    again, after the merge's loop where it is the one that never ends (``endless_merge``)."""
    launch = _launch(case)
    run = yield from with_time_limit_told(EXERCISE, kernel, launch,
                                          lambda: endless_merge(kernel, _launch((1, 0, 32))))
    if run is not None:
        yield from traced_back(kernel, launch, _mistakes(case, run))


def _mistakes(case, run):
    x, (m_out, l_out) = run.model, run.outs
    m, sums = m_out.got.astype(np.float64), l_out.got.astype(np.float64)
    want_m, want_l = pairs(x)
    if m_out.past.size or l_out.past.size:
        yield ("row_max or row_sum was written past its last row",
               "the warps past the last row must leave: if (row >= rows) return;")
    yield from lane_is_the_warp(case, m_out, l_out, x)
    if m_out.unwritten.any() or l_out.unwritten.any():
        yield from first_warps_alone(case, m_out, l_out, (want_m, want_l))
        yield from _rows_by_the_block_s_threads(case, run)
        yield from block_not_times_warps(case, _written_rows(case, run))
        yield from stored_at_the_block(case, m_out, l_out, (want_m, want_l))
        yield ("some rows' pair was never written",
               "one warp a row, row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, and "
               "its lane 0 writes row_max[row] and row_sum[row]")
    if not np.allclose(m, want_m) or not np.allclose(sums, want_l, rtol=1e-3):
        yield from outputs_swapped(m, sums, want_m, want_l)
        yield from row_0_everywhere(m, sums, want_m, want_l)
        yield from missing_offset(x, m, sums, want_m, want_l)
        yield from lane_0_merged_nothing(run.kernel, x, m, sums)
        yield from shuffled_from_lane_offset(x, m, sums, want_m, want_l)
        yield from steps_by_the_block(case, x, m, sums)
        yield from one_past_the_row(x, m, sums)
        yield from max_from_the_lane_s_value(x, m, sums)
    if not np.allclose(m, want_m):
        yield from max_not_kept(m, sums)
        yield from _from_the_block_s_thread(case, x, m, sums)
        yield from _wrong_max(x, m, want_m)
    if np.allclose(sums, want_l, rtol=1e-3):
        return
    yield from _bad_exps(case, x, sums)
    yield from steps_short_of_the_warp(x, sums)
    yield from rescales(x, sums)
    yield from _models(case, x, sums)
    yield from near.misses("row_sum", sums, want_l, close=near.within(1e-3, 1e-8))
    row = int(np.argmax(~np.isclose(sums, want_l, rtol=1e-3)))
    yield (f"row_sum[{row}] = {sums[row]:.6g}, expected {want_l[row]:.6g}",
           "l is the sum of exp(x - m) over the row, m the row's max")


# (fits the case's cols, the model pairs() computes, problem, hint), in the order they are tried
_MODELS = (
    (lambda cols: cols <= 16, dict(merge="swapped"),
     "row_sum is too small in rows shorter than 17 columns: in the merge each term's "
     "-INFINITY test looked at the other pair's max, so a lane's own sum was dropped "
     "when its partner had no column (m2 = -INFINITY), and the partner's when the lane "
     "had none",
     "test each sum against its own max: l = (m == -INFINITY ? 0 : l * "
     "exp(m - m_new)) + (m2 == -INFINITY ? 0 : l2 * exp(m2 - m_new))"),
    (None, dict(merge="partner max"),
     "row_sum is wrong: in the merge the lane's own sum l was rescaled by exp(m2 - m_new), with "
     "the partner's max m2, not its own: l is a sum against the lane's max m, which exp(m - "
     "m_new) brings to the merged max",
     "the max is swapped in the own sum's rescale: l was taken against the lane's own max m, "
     "l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"),
    (None, dict(merge="crossed"),
     "row_sum is wrong: in the merge the two sums' factors were swapped: the lane's own sum l was "
     "rescaled by exp(m2 - m_new), the partner's max, and the partner's l2 by exp(m - m_new), the "
     "lane's own: a sum taken against one max is brought to the merged max by that max's factor",
     "each sum takes the factor of its own max: l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"),
    (None, dict(merge="late"),
     "row_sum is too small: in the merge l2 was shuffled after the lane had rescaled its own l to "
     "m_new, so the partner's sum came already rescaled and was multiplied by exp(m2 - m_new) "
     "twice", "shuffle both m2 and l2 from the partner first, before l changes, then "
     "l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"),
    (None, dict(offsets=(32, 16, 8, 4, 2, 1)),
     "every row_sum is twice the right value: the butterfly started at offset 32, and "
     "__shfl_xor_sync(..., 32) gives each lane its own value back (lane ^ 32 is past "
     "the warp), so the first merge added each lane's pair to itself",
     "a warp's 32 lanes merge in 5 steps, offsets 16, 8, 4, 2, 1: "
     "for (int offset = 16; offset > 0; offset /= 2)"),
    (lambda cols: cols > 16, dict(grown=False),
     "row_sum is too small: when a value raised a lane's max, the running sum was "
     "rescaled but that value's own exp(v - m_new) = 1 was not added to it",
     "every value adds its exp, whether or not it raises the max: when v is the new "
     "max, l = l * exp(m - v) + 1 (its exp(v - v) is 1)"),
    (None, dict(loop="value"),
     "row_sum is too large: the loop rescaled the running sum by exp(m - v), against "
     "the value, where it is exp(m - m_new), against the new max: for a value below "
     "the max that factor is above 1, and it grows the sum",
     "l = l * exp(m - m_new) + exp(v - m_new)"),
    (None, dict(loop="term"),
     "row_sum is too small: the loop rescaled the new term, exp(v - m_new) * exp(m - "
     "m_new), and added it to the running sum l as it was: it is l, the sum taken "
     "against the old max, that exp(m - m_new) rescales to the new max, and the new "
     "value's exp(v - m_new) is added as it is",
     "l = l * exp(m - m_new) + exp(v - m_new)"),
    (None, dict(loop="after"),
     "row_sum is too small: in the loop the new term exp(v - m_new) was added to l before the "
     "rescale, so l *= exp(m - m_new) shrank the new term too, though it is already taken "
     "against the new max (and wiped each lane's first value: with m = -INFINITY, exp(m - "
     "m_new) is 0)", "rescale the old sum first, then add the new term: l = l * exp(m - m_new) "
     "+ exp(v - m_new) (or l *= exp(m - m_new); before l += exp(v - m_new);)"),
    (None, dict(fresh="one"),
     "row_sum is too large: each value added 1 to the running sum, as if every value "
     "were the new max, where it adds exp(v - m_new), 1 only for the max",
     "l = l * exp(m - m_new) + exp(v - m_new)"),
    (None, dict(fresh="flipped"),
     "row_sum is too large: the loop's new term was exp(m_new - v), its exponent flipped: "
     "for a value below the max that is above 1, and it grows the sum where each value's "
     "exp against the max is at most 1",
     "the new term is exp(v - m_new), not exp(m_new - v): l = l * exp(m - m_new) + "
     "exp(v - m_new)"),
    (None, dict(l2_from="m"),
     "row_sum is wrong: in the merge the partner's sum l2 was shuffled from m, its max, "
     "not from l: l2 = __shfl_xor_sync(0xffffffffu, m, offset)",
     "l2 is the other lane's l: float l2 = __shfl_xor_sync(0xffffffffu, l, offset)"),
    (None, dict(merge="wrong way"),
     "row_sum is too large: the merge rescaled the lanes' sums the wrong way round, by "
     "exp(m_new - m) and exp(m_new - m2): the new max minus the old is 0 or more, so "
     "each factor is 1 or more and grows a sum where it should shrink it to the merged "
     "max",
     "rescale by the old max minus the new, exp(m - m_new), at most 1: l = l * "
     "exp(m - m_new) + l2 * exp(m2 - m_new)"),
    (None, dict(merge="own kept"),
     "row_sum is wrong: in the merge each lane's own sum was left unrescaled, and the "
     "partner's was brought to the lane's old max, l2 * exp(m2 - m), not to the merged "
     "max: where m2 is the larger, that factor is above 1",
     "bring both sums to the "
     "merged max m_new: l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"),
    (None, dict(merge="own only"),
     "row_sum is too large: in the merge the partner's sum l2 was added as it is, not "
     "rescaled to the merged max: only the lane's own sum took its factor, exp(m - m_new), "
     "and l2, a sum against the partner's max m2, needs exp(m2 - m_new)",
     "in the merge, both sums are brought to the merged max: l = l * exp(m - m_new) + "
     "l2 * exp(m2 - m_new)"),
    (None, dict(merge="smaller"),
     "row_sum is too small: the merge added the two sums first and rescaled the pair once, "
     "by exp(fminf(m, m2) - m_new), the smaller max's factor: the sum whose max is m_new, "
     "already taken against it, was shrunk too; each sum needs the factor of its own max",
     "rescale each sum from its own max, then add: l = l * exp(m - m_new) + l2 * exp(m2 - "
     "m_new)"),
    (None, dict(merge="no parentheses"),
     "row_sum is too small: each merge kept only the partner's sum, l2 * exp(m2 - m_new) (0 "
     "where either max is -INFINITY), and dropped the lane's own: the merge's two ?: terms "
     "have no parentheses, and a ?: without parentheses takes in everything after its : (+ "
     "binds tighter), so C reads m == -INFINITY ? 0 : (l * exp(m - m_new) + m2 == -INFINITY ? "
     "0 : l2 * exp(m2 - m_new))", "put each guarded term in parentheses: l = (m == -INFINITY ? "
     "0.0f : l * __expf(m - m_new)) + (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new))"),
    (None, dict(merge="larger"),
     "row_sum is too small: each merge kept the sum of the pair with the larger max "
     "and dropped the other's, as the max is merged; but the sums add up",
     "in the merge, both sums count, each rescaled to the merged max: l = l * exp(m - "
     "m_new) + l2 * exp(m2 - m_new)"),
)

LOOP_E, MERGE_E = ("l = l * __expf(m - m_new) + __expf(v - m_new) in the loop",
                   "l = l * __expf(m - m_new) + l2 * __expf(m2 - m_new) in the merge")
BOTH_E = f"{LOOP_E}, {MERGE_E}"
BASE2 = ((("term", "scale"), "the loop's", LOOP_E), (("merge",), "the merge's", MERGE_E),
         (("term", "scale", "merge"), "the loop's and the merge's", BOTH_E))
"""Where a kernel's exps may be base 2 (exp2f): the places (``pairs``' base2), those exps in
words, and their right form."""
RESCALES2 = ((("scale",), "the loop's", LOOP_E), (("scale", "merge"), "the loop's and the merge's",
                                                  BOTH_E))
"""Where a kernel's rescales alone may be base 2, its new terms e to the power (exp2f(t * log2(e))
for one, exp2f(m - m_new) for the other): as BASE2."""


def _models(case, x, sums):
    """Mistakes named by a model of the kernel that makes them (_MODELS), after those above;
    then exps of base 2, where the softmax's are e to the power."""
    for fits, model, problem, hint in _MODELS:
        if (fits is None or fits(case[1])) and np.allclose(sums, pairs(x, **model)[1], rtol=1e-3):
            yield problem, hint
    for places, words, right in BASE2:
        if np.allclose(sums, pairs(x, base2=places)[1], rtol=1e-3):
            yield (f"row_sum is wrong: {words} exps were of base 2, 2 to the power (exp2f), "
                   "where the softmax's sum is of e to the power, exp(x - m)",
                   f"take the exps with __expf (or expf), e to the power: {right}")
    for places, words, right in RESCALES2:
        if np.allclose(sums, pairs(x, base2=places)[1], rtol=1e-3):
            yield (f"row_sum is too large: {words} rescales were of base 2, 2^(m - m_new) "
                   "(exp2f(m - m_new)), where a sum of exp(x - m) is brought to a new max by "
                   "e^(m - m_new), as its new terms are e to the power: exp2f(t) is 2^t, and "
                   "e^t only as exp2f(t * log2(e))", "write e^t as exp2f(t * log2(e)) in the "
                   f"rescales too, exp2f((m - m_new) * 1.4426950408889634f), or take every exp "
                   f"with __expf: {right}")


EXERCISE = KernelExercise(
    stub="exercises/online_softmax.cu", kernel="online_softmax",
    signature="const __half *x, float *row_max, float *row_sum, int rows, int cols",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes, detect=_detect,
    where=lambda case: "rows = {}, cols = {}, block = ({}, 1, 1)".format(*case),
    crash_hint="the warps past the last row must leave before reading: if (row >= rows) return;",
    no_extern_c=True, refine=refined,
    success=f"each row's max and sum in one pass ({len(CASES)} launches: the max first, last and "
            "anywhere, rows shorter than a warp)")

check_online_softmax = EXERCISE.check_file          # (path="exercises/online_softmax.cu")
check_online_softmax_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
