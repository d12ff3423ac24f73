"""Checker for the matrix-vector exercise of notebook 08 (``cuda_src/exercises/matvec_warp.cu``).

The kernel under test::

    __global__ void matvec_warp(const float *A, const float *x, float *y, int rows, int cols)

computes y = A x with one warp a row (block = (32, W, 1), grid = (ceil(rows / W), 1)): lane l adds
A[row][c] * x[c] for c = l, l + 32, ..., then the warp's lanes' sums are added with shuffles.

The cases have rows not a multiple of W (the last block has warps past the end) but for one, and
cols not a multiple of 32 (once over 1024, past what 32 lanes of 32 columns each cover), A and x
with junk after them (a read past the end shows; A has a block's rows of it), y poisoned and
guarded. Rows of y never written are read as the stores that left them out
(``matvec_warp_rows``). A wrong y is matched with what the usual mistakes give
(``matvec_warp_models``), each modelled as the weight every column gets in a row's sum: only some lanes' sums kept by warp_sum
(lane 0 alone, lanes 0 to 15, the even lanes), a fixed stretch of 32 columns a lane, and a loop
that steps by 1 instead of 32; or as the sum itself (``models``): A read down its columns, x[lane]
for x[c], every lane starting at column 0, warp_sum starting at offset 32 (twice the sum), and its
shuffles up, or from one lane, instead of down. A launch that never ends even on a row of no
columns is named as warp_sum's loop. The last three cases run on the simulator, race-checked and
traced: every lane storing y[row] (only lane 0 holds the sum) is a race there, whatever order the
lanes ran in; on one of 42 columns, a float4 loaded from a row's start is a misaligned address;
on the last, of 20 columns, lanes with no column that return before warp_sum's full-mask
shuffles. A trace of A 8 x 40 shows lanes reading past their row. A speed rule can read OBSERVED's
trace (A's sectors per request): lanes that each read a stretch of their own pass.
"""

from __future__ import annotations

import os

import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Input, Output, declared_int, halves, whole_sums
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.failure import LOOP_HINT
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.microscope import (accesses_of, observe, observed_mistakes,
                                         stopped, with_time_limit_told)
from helpers.exercises.matvec_warp_rows import rows_written
from helpers.exercises.matvec_warp_models import (JUNK, float4_off_a_row, in_an_int, lane_0_doubled, lane_sums,
                                                  models, read_past_the_row, shfl_down_sum,
                                                  sum_unset, weighted)

WARPS = (2, 4, 8)
SHAPES, OBSERVED = [(101, 1000, 4), (37, 77, 8), (300, 33, 2), (23, 1100, 4)], (45, 200, 4, "observe")
UNALIGNED = (6, 42, 2, "observe")
"""A launch on the simulator whose rows start 8 bytes past a multiple of 16 (42 columns, no multiple
of 4): its bounds check stops a float4 loaded from a row's start, which a GPU refuses."""
NARROW = (5, 20, 2, "observe")
"""A launch on the simulator of rows narrower than a warp (20 columns): lanes 20 to 31 have no
column to add, yet every lane must reach warp_sum's shuffles, whose mask names all 32."""
CASES = [*SHAPES, OBSERVED, UNALIGNED, NARROW]


def _draw(rng):
    w = pick(rng, WARPS)  # the grader's: rows not a multiple of the block's warps, cols not of 32
    return [(awkward(rng, w, w + 1, 400), awkward(rng, 32, 1, 2000), w)]


def _where(case):
    return f"A {case[0]} x {case[1]}, block = (32, {case[2]}, 1), grid = ({-(-case[0] // case[2])}, 1)"


def _launch(case):
    rows, cols, w = case[:3]
    rng = np.random.default_rng(rows * cols)
    a = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    x = rng.uniform(-1, 1, cols).astype(np.float32)
    return Launch((Input(a, w * cols, JUNK), Input(x, 64, JUNK), Output(rows), np.int32(rows),
                   np.int32(cols)), block=(32, w, 1), grid=(-(-rows // w), 1), model=(a, x))


def _refine(failure):
    """Lanes of one warp that store y[row] one after another: only lane 0 holds the sum; the
    same first lanes of every warp alone in a warp function (``_split_warps``, from the failed
    launch's rows and cols)."""
    if failure.launch is not None:
        yield from _rows_past_read_a(failure, *(int(n) for n in failure.launch.args[3:5]))
        yield from _split_warps(failure, *(int(n) for n in failure.launch.args[3:5]))
    yield from float4_off_a_row(failure)
    if failure.kind == "race" and failure.error.space == "global" and failure.between == "lanes":
        yield ("after warp_sum only lane 0 holds the row's sum (the others hold parts of it): "
               "let lane 0 alone store y[row], if (lane == 0)")


def _rows_past_read_a(failure, rows, cols):
    """A read of A past its end by a warp whose row is past the last (row >= rows): y was right
    and not written past its end in the cases before, so the store was guarded and the warp
    returned too late, or never, for the loop that reads A."""
    err, block = failure.error, failure.block
    if (failure.kind != "out of bounds" or getattr(err, "is_write", None) is not False
            or getattr(err, "array", None) != "A" or (err.element or 0) < rows * cols
            or not err.thread or not err.block or not block):
        return
    row = err.block[0] * block[1] + err.thread[1]
    if row < rows:
        return
    yield (f"the warp of row {row} (block {err.block[0]}, threadIdx.y = {err.thread[1]}), past "
           f"the last row, {rows - 1}, read A[{err.element}], past A's end ({rows} x {cols} = "
           f"{rows * cols} elements), at {os.path.basename(err.line or '?')}: the warps past the "
           "last row ran the loop over A: they must stop before it, not only at the store",
           "those warps must return before they read A: if (row >= rows) return; right after "
           "row is computed, before the loop")


def _split_warps(failure, rows, cols):
    """Lanes 0 to k - 1 of each warp of the block waiting in a warp function, no thread at a
    barrier: k the rows left in the block, from blockIdx.x * blockDim.y or blockIdx.x * blockDim.x
    on (the others had returned at if (row >= rows), so the row is threadIdx.x's), k = cols < 32
    (NARROW's: the lanes with no column left before warp_sum; warp_sum in the column loop fails
    first on OBSERVED's 200 columns), k = cols % 32 (the lanes with one more column called
    warp_sum once more: it is inside the column loop),
    k = 1 (warp_sum inside if (lane == 0)), or k = 16 (a shuffle inside an if (lane < offset))."""
    err, warps = failure.error, int(np.prod(failure.block or (0,))) // 32
    waiting = getattr(err, "waiting", None) or ()
    k = len(waiting) // max(warps, 1)
    if not (failure.kind == "warp mask" and 0 < k < 32 and err.barrier is None and err.block
            and tuple(waiting) == tuple(32 * w + lane for w in range(warps) for lane in range(k))):
        return
    if warps > 1 and k in (rows - err.block[0] * failure.block[1], rows - err.block[0] * 32):
        yield (f"lanes 0 to {k - 1} of each warp alone called warp_sum, the others had returned "
               "at if (row >= rows): the row came from threadIdx.x, so lane and row are swapped: "
               "lane = threadIdx.x (the place in the warp), row = blockIdx.x * blockDim.y + "
               "threadIdx.y (the warp's place)")
    elif k == cols < 32:
        yield (f"lanes {cols} to 31 of each warp, which have no column of a row of cols = {cols}, "
               "never called warp_sum: they left before it (if (lane >= cols) return;, or "
               f"warp_sum inside an if (lane < cols)), and only lanes 0 to {k - 1} called its "
               "shuffles, whose mask 0xffffffff names all 32 lanes",
               "no return before warp_sum, and no if on the lane around it: a lane with no "
               "column makes no turn of the column loop and brings v = 0; every lane calls v = "
               "warp_sum(v), then if (lane == 0) y[row] = v")
    elif k == cols % 32:
        yield (f"lanes 0 to {k - 1}, which have one column more than the others (cols = {cols}), "
               "called warp_sum once more: it is inside the loop over the columns, where each "
               "lane runs its own number of turns, but every lane must call a shuffle together. "
               "Add each lane's products first, then once after the loop: v = warp_sum(v)")
    elif k == 1:
        yield ("lane 0 of each warp alone called warp_sum, inside if (lane == 0): its shuffles' "
               "mask 0xffffffff names all 32 lanes", "every lane calls it, then lane 0 stores: "
               "v = warp_sum(v); before the if, then if (lane == 0) y[row] = v")
    elif k == 16:
        yield ("lanes 0 to 15 alone called __shfl_down_sync at offset 16, the others skipped it: "
               "a shuffle inside an if (lane < offset) leaves lanes out that its mask "
               "0xffffffff names. Every lane calls it, with no if: v += "
               "__shfl_down_sync(0xffffffff, v, offset) (only lane 0's sum is kept)")


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first."""
    kernels, (rows, cols), (a, x), got = run.kernel, case[:2], run.model, run.out.got
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    want = a64 @ x
    grid_rows = -(-rows // case[2]) * case[2]
    if list(run.out.past) == [rows] and grid_rows > rows + 1 and \
            np.allclose(got, want, rtol=1e-4, atol=1e-4):
        yield (f"y[{rows}] alone was written past y's end, by the warp of row == rows = {rows} "
               f"(the grid's {grid_rows - rows - 1} rows after it returned): the guard "
               "if (row > rows) lets row == rows through, one row past A's last",
               "rows run 0 to rows - 1: return where row >= rows, if (row >= rows) return;")
    if run.out.past.size:
        yield ("y was written past its end (y[rows] and on)",
               "keep the stub's if (row >= rows) return;, before anything is stored")
    yield from rows_written(case, run.out, want,
                            lambda: accesses_of(kernels, _launch((8, 40, 4)), "y stores", 4096))
    if run.out.unwritten.any():
        yield (f"{int(run.out.unwritten.sum())} of the {rows} elements of y were never written "
               f"(the first is y[{int(np.argmax(run.out.unwritten))}])",
               "each warp's row is row = blockIdx.x * blockDim.y + threadIdx.y; its lane 0 "
               "stores y[row]")
    if np.allclose(got, want, rtol=1e-4, atol=1e-4):
        return
    yield from sum_unset(kernels, got, want)
    yield from observed_mistakes(observe(kernels, _launch(OBSERVED)), _refine,
                                 wrong="y is wrong")
    yield from read_past_the_row(accesses_of(kernels, _launch((8, 40, 4)), "y stores", 4096), cols)
    if not got.any():
        yield from _v_declared_int(kernels)
        yield ("y is 0 everywhere: no lane added anything to v", "follow TODO 1: lane l adds "
               "A[row * cols + c] * x[c] for c = l, l + 32, ... < cols")
    for weight, problem, hint in weighted(cols, -(-rows // case[2]), case[2]):
        if np.allclose(got, a64 @ (weight * x), rtol=1e-4, atol=1e-4):
            yield problem, hint
    if rows < cols and np.allclose(got, a64 @ ((np.arange(cols) < rows) * x), rtol=1e-4, atol=1e-4):
        yield (f"each y[row] holds only columns 0 to {rows - 1} of its row: the lanes' column "
               f"loop stopped at rows = {rows}, A's number of rows, but a row of A has cols = "
               f"{cols} columns", "run the column loop to the length of a row: for (int c = "
               "lane; c < cols; c += 32)")
    yield from in_an_int(a64, x64, got)
    yield from _from_the_block_s_thread(a64, x64, got, case[2])
    yield from _halved_first(kernels, lane_sums(a64, x64), got)
    yield from lane_0_doubled(kernels, _launch(OBSERVED), lane_sums(a64, x64), got)
    for model, problem, hint in models(a64, x64):
        if np.allclose(got, model, rtol=1e-4, atol=1e-4):
            yield problem, hint
    last = shfl_down_sum(lane_sums(a64, x64), (16, 8, 4, 2, 1), lane=31)
    if np.allclose(got, last, rtol=1e-4, atol=1e-4):
        yield ("lane 31 stored y[row]: after warp_sum's __shfl_down_sync steps lane 31 holds its "
               "own sum only (doubled at each step: its source, past lane 31, gives its own v "
               "back); the row's sum ends in lane 0", "lane 0 stores: if (lane == 0) y[row] = v")
    yield from near.misses("y", got, want, close=near.within(1e-4, 1e-4))
    r = int(np.argmax(~np.isclose(got, want, rtol=1e-4, atol=1e-4)))
    yield (f"y[{r}] = {got[r]:.6g}, NumPy's is {want[r]:.6g}", "lane l adds A[row * cols + c] * "
           "x[c] for c = l, l + 32, ... < cols; warp_sum adds the lanes; lane 0 stores y[row]")


def _detect(kernels, case):
    """The case's mistakes; a launch stopped at the simulator's time limit, after the loop that
    never ended where it can be told (``_endless_shuffles``), raises its error again."""
    launch = _launch(case)
    run = yield from with_time_limit_told(EXERCISE, kernels, launch,
                                          lambda: _endless_shuffles(kernels))
    if run is not None:
        yield from traced_back(kernels, launch, _mistakes(case, run))


def _endless_shuffles(kernels):
    """A launch that never ends even on a row of no columns, where the column loop makes no
    turn: the loop that goes on for ever is warp_sum's (the simulator stops it, ``stopped``)."""
    probe = Launch((Input(np.zeros((1, 0), np.float32), 32, JUNK),
                    Input(np.zeros(0, np.float32), 64, JUNK), Output(1), np.int32(1),
                    np.int32(0)), block=(32, 1, 1), grid=(1, 1))
    if stopped(kernels, probe, key="no columns") is not None:
        yield ("the loop in warp_sum never ends: the kernel did not finish even on a row of 0 "
               "columns, where the column loop makes no turn, so the shuffles' loop goes on for "
               "ever; with offset >= 0 as its condition it does: offset halves 16, 8, 4, 2, 1, "
               "then 0, and 0 / 2 is 0 again, still >= 0",
               "the shuffles stop after offset 1: for (int offset = 16; offset > 0; offset /= 2) "
               "(> 0, not >= 0); " + LOOP_HINT)


def _halved_first(kernels, parts, got):
    """warp_sum's offset halved before each shuffle, not after (offset = 16 or 32; while (offset >
    0) { offset /= 2; v += ...; }): lane 0 adds lanes 0 to 15 (or all 32), and offset 0, last,
    doubles. A width of 16 (or a first offset of 32) doubles the same sum, but first: told apart
    by a row whose lanes 0 and 1 hold +-2^127, where the doubling first overflows (NaN), last not."""
    for lanes, steps, but in ((16, "8, 4, 2, 1", "lanes 0 to 15 only"),
                              (32, "16, 8, 4, 2, 1", "all 32 lanes")):
        if not np.allclose(got, 2 * parts[:, :lanes].sum(axis=1), rtol=1e-4, atol=1e-4):
            continue
        a, x = np.zeros((1, 32), np.float32), np.zeros(32, np.float32)
        a[0, :2], x[:2] = (2.0 ** 64, -2.0 ** 64), 2.0 ** 63
        launched = EXERCISE.run(kernels, Launch((Input(a, 32, JUNK), Input(x, 64, JUNK), Output(1),
                                                 np.int32(1), np.int32(32)), (32, 1, 1), (1, 1)))
        try:
            next(launched)
        except StopIteration as stop:
            if stop.value is not None and stop.value.out.got[0] == 0:
                yield (f"warp_sum's offsets were {steps} and then 0: the offset was halved "
                       f"before each shuffle, not after, so lane 0 added {but}, and the last "
                       "step, offset 0, handed every lane its own v back, doubling the sum",
                       "shuffle first, then halve: for (int offset = 16; offset > 0; offset /= "
                       "2) v += __shfl_down_sync(0xffffffff, v, offset)")
        return


def _v_declared_int(kernels):
    """y all zeros: v declared int, each add cut toward 0 (on the cases' elements, in (-1, 1), it
    stays 0), told by a launch on multiples of 0.5 (``halves``): lane l's whole sum over columns
    l, l + 32, ..., the lanes' added by warp_sum (whole numbers, exact)."""
    rng = np.random.default_rng(32)
    a, x = halves(rng, (5, 70)), halves(rng, 70)
    launched = EXERCISE.run(kernels, Launch((Input(a, 70, JUNK), Input(x, 64, JUNK), Output(5),
                                             np.int32(5), np.int32(70)), (32, 1, 1), (5, 1)))
    try:
        next(launched)
    except StopIteration as stop:
        if stop.value is not None:
            terms = np.pad(a * x, ((0, 0), (0, 26))).reshape(5, 3, 32).transpose(0, 2, 1)
            yield from declared_int(stop.value.out.got, whole_sums(terms).sum(axis=1),
                                    a.astype(np.float64) @ x, "v", "y[{}]", "float v = 0.0f;")


def _from_the_block_s_thread(a, x, got, warps):
    """Each lane starting at its thread's place in the block, threadIdx.x + 32 * threadIdx.y:
    the row of warp ty (row % warps) sums columns 32 * ty on only."""
    rows, cols = a.shape
    ty = np.arange(rows) % warps
    model = (a * (np.arange(cols) >= 32 * ty[:, None]) * x).sum(axis=1)
    if warps > 1 and rows > 1 and np.allclose(got, model, rtol=1e-4, atol=1e-4):
        yield ("each warp w of the block (threadIdx.y = w) left out its row's first 32 * w "
               f"columns: y[1], the row of warp 1, lacks columns 0 to {min(cols, 32) - 1}; the "
               "lanes started at "
               "their thread's place in the block, threadIdx.x + blockDim.x * threadIdx.y, not "
               "in the warp", "lane l starts at column l, whichever warp it is in: for (int c = "
               "lane; c < cols; c += 32)")


def _observed(kernels, case):
    """``microscope.observed_launch``'s mistakes, OBSERVED's launch kept under the key the
    detectors that launch it again read (``observe`` keeps one launch a key)."""
    key = {OBSERVED: "observed", UNALIGNED: "rows not 16-byte aligned"}.get(case, "narrow rows")
    return observed_mistakes(observe(kernels, _launch(case), key=key), _refine)


EXERCISE = KernelExercise(
    stub="exercises/matvec_warp.cu", kernel="matvec_warp",
    signature="const float *A, const float *x, float *y, int rows, int cols",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, detect=_detect,
    observed=_observed, observed_as="race-checked",
    simulated="runs the race check",
    refine=_refine, crash_hint="read A and x only below cols, and store y[row] only for row < rows",
    success=f"y = A x matches NumPy ({len(SHAPES)} shapes, rows a multiple of the "
            "block's warps once and otherwise not, cols not one of 32), and only lane 0 stores "
            "each row's sum")

check_matvec_warp = EXERCISE.check_file          # (path="exercises/matvec_warp.cu")
check_matvec_warp_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
