"""Checker for the first bug hunt of notebook 09 (``cuda_src/exercises/column_means.cu``).

The kernel under test::

    __global__ void column_means(const float *m, float *means, int rows, int cols)

stores in means[col] the mean of column col of m (rows x cols, row after row), one thread a
column. As shipped it steps down a column by rows floats, where a row is cols long: right on a
square matrix, wrong values on a wide one, and reads past m's end on a tall one.

Before the cases, the planted bug is looked for on the simulator (bounds checks always on), m
allocated to the byte: a tall matrix (100 x 37) has it read past m's end, a wide one (37 x 100)
not; an overrun on the wide one is another mistake (a loop, guard or index gone too far). Then
the cases run (m followed by junk, means poisoned with NaN, then with -7 in a second launch),
a wrong result matched with known mistakes.
"""

from __future__ import annotations

import os
from itertools import chain

import numpy as np

from helpers.exercises import near
from helpers.exercises.column_means_models import (blocks_one_column_apart, cols_for_block_dim,
                                                   last_column_sent_away, one_column_a_block,
                                                   row_left_out, rows_stepped, sum_unset,
                                                   sum_unset_by_luck, unrolled_without_tail,
                                                   zero_means)
from helpers.exercises.common import Input, Output
from helpers.exercises.failure import describe
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import accesses_of, grid_for_block, observe, observed_mistakes
from helpers.exercises.verdict import not_yet

TALL, WIDE = (100, 37), (37, 100)  # (rows, cols) of the two launches that look for the bug
CASES = [(100, 37, 32), (37, 100, 64), (1, 77, 32), (64, 64, 128)]  # (rows, cols, block)
JUNK = np.float32(1000.0)
FILL = np.float32(-7.0)  # means' second poison: a kernel that adds to means[col] starts from it


def _draw(rng):  # the grader's: a tall matrix and a wide one, blocks that leave threads over
    return [(awkward(rng, 2, 40, 300), awkward(rng, 32, 2, 39), 32),
            (awkward(rng, 2, 1, 39), awkward(rng, 64, 40, 300), 64)]


def _where(case):
    rows, cols, block = case
    return f"m {rows} x {cols}, block = ({block}, 1, 1), grid = ({-(-cols // block)}, 1)"


def _launch(case, slack=64):
    """m with ``slack`` elements of junk after it (none: an overrun faults on the simulator)."""
    rows, cols, block = case
    m = np.random.default_rng(rows * cols).uniform(-1, 1, (rows, cols)).astype(np.float32)
    return Launch((Input(m, slack, JUNK), Output(cols, poisons=(None, FILL)), np.int32(rows), np.int32(cols)),
                  block=(block, 1, 1), grid=(-(-cols // block), 1), model=m)


def planted_bug(kernels):
    """NOT YET for the planted bug (or another mistake seen looking for it); None without."""
    tall = observe(kernels, _launch((*TALL, 32), slack=0), key="tall")
    if tall.error is None:
        named = cols_for_block_dim(tall, lambda: observe(kernels, _launch((*WIDE, 32), slack=0),
                                                         key="wide"))
        return not_yet(*named) if named else None
    wide = observe(kernels, _launch((*WIDE, 32), slack=0), key="wide")
    err = tall.error
    culprit = err.block[0] * 32 + err.thread[0] if getattr(err, "thread", None) and \
        getattr(err, "block", None) else 0  # the column of the thread that read past m
    if wide.error is None and getattr(err, "kind", None) == "out of bounds" and culprit < TALL[1]:
        return not_yet(
            f"the planted bug is still there: on a {TALL[0]} x {TALL[1]} matrix the bounds checks "
            f"stop the kernel: {describe(tall.error)}",
            "element (r, col) of a rows x cols matrix stored row after row is m[r * cols + col]: "
            "a step down a column moves one whole row, cols floats")
    stepped = _grid_wide(wide.error, WIDE)
    if stepped and _grid_wide(err, TALL):
        r, width = stepped
        col = wide.error.block[0] * 32 + wide.error.thread[0]
        return not_yet(
            f"on a {WIDE[0]} x {WIDE[1]} matrix (block = (32, 1, 1), grid = ({width // 32}, 1)) "
            f"column {col}'s thread read m[{wide.error.element}] = m[{r} * {width} + {col}]: each "
            f"step down a column moved gridDim.x * blockDim.x = {width} floats, the launch's "
            f"width, past the end of m; the grid is rounded up to whole blocks, so it is wider "
            f"than a row of cols = {WIDE[1]} floats (on the {TALL[0]} x {TALL[1]} matrix too, "
            f"{32 * -(-TALL[1] // 32)} floats a step)",
            "a row of m is cols floats long, whatever the launch: m[r * cols + col]")
    seen, cols = (tall, TALL[1]) if wide.error is None else (wide, WIDE[1])
    return not_yet(*next(observed_mistakes(seen, lambda f: chain(
        _sum_shared(f, kernels), grid_for_block(f, "means", cols, "col", "columns"),
        blocks_one_column_apart(f, cols), _stored_by_thread(f, cols, kernels),
        _block_left_out(f, cols, kernels),
        one_column_a_block(f, cols, kernels),
        _overrun(f, cols, kernels)))))


def _sum_shared(failure, kernels):
    """A race on element 0 of a shared array that a trace shows every thread of block 0 writing
    at that element alone: the running sum kept in one __shared__ float for the whole block."""
    err, launch = failure.error, failure.launch
    if failure.kind != "race" or err.space != "shared" or err.element != 0 or launch is None or \
            err.first.block != err.second.block:
        return
    kept = accesses_of(kernels, launch, "the shared sum", 16384)
    if kept is None:
        return
    mine = kept[kept["shared"] & (kept["array"] == err.array) & (kept["block"] == 0)]
    writers = set(mine["thread"][mine["write"]].tolist())
    if not len(mine) or (mine["index"] != 0).any() or writers != set(range(launch.block[0])):
        return
    yield (f"the running sum is one __shared__ float for the whole block: every thread of block "
           f"0 ({len(writers)} of them) stored into {err.array}, the same variable, "
           f"{err.first.who} and {err.second.who} among them, so the threads' columns were added "
           "into one total that each overwrote; shared memory is one copy for the block, not one "
           "a thread", "keep each thread's sum in a local variable of its own: float sum = 0.0f; "
           "with no __shared__ (a local is private to its thread)")


def _block_left_out(failure, cols, kernels):
    """Thread t of two blocks that stored means[t], and the launch run again without the race
    check gives the means of columns 0 to blockDim.x - 1 alone, right, the rest never written:
    col = threadIdx.x, every block computing block 0's columns."""
    err, launch = failure.error, failure.launch
    if failure.kind != "race" or err.hazard != "write-after-write" or err.array != "means" or \
            launch is None or err.first.block == err.second.block or \
            any(a.thread[0] != err.element for a in (err.first, err.second)):
        return
    block = launch.block[0]
    seen = observe(kernels, launch, key="the block left out", racecheck=False)
    out = seen.outs[0] if seen.error is None and seen.outs else None
    want = launch.model.astype(np.float64).mean(axis=0)
    if out is None or block >= cols or out.unwritten[:block].any() or \
            not out.unwritten[block:].all() or \
            not np.allclose(out.got[:block], want[:block], rtol=1e-5, atol=1e-6):
        return
    yield (f"means[{err.element}] was stored by {err.first.who} and by {err.second.who}: col = "
           "threadIdx.x leaves the block out, so every block computed block 0's columns 0 to "
           f"{block - 1} again, and columns {block} to {cols - 1} got no thread",
           "each block takes its own blockDim.x columns: col = blockIdx.x * blockDim.x + "
           "threadIdx.x")


def _stored_by_thread(failure, cols, kernels):
    """Thread t of two blocks that stored means[t], and a trace of the launch shows thread t of
    block b reading column b * blockDim.x + t of m but storing at means[t]: the store's index is
    threadIdx.x where col belongs."""
    err, launch = failure.error, failure.launch
    if failure.kind != "race" or err.hazard != "write-after-write" or err.array != "means" or \
            launch is None or err.first.block == err.second.block or \
            any(a.thread[0] != err.element for a in (err.first, err.second)):
        return
    kept, block = accesses_of(kernels, launch, "stores of means", 16384), launch.block[0]
    if kept is None or kept["shared"].any():
        return
    stores, loads = (kept[(kept["array"] == name) & (kept["write"] == w)]
                     for name, w in (("means", True), ("m", False)))
    col = loads["block"] * block + loads["thread"]
    if not len(stores) or not len(loads) or (loads["index"] % cols != col).any() or \
            (stores["index"] != stores["thread"]).any() or not (stores["block"] > 0).any():
        return
    yield (f"on a {launch.model.shape[0]} x {cols} matrix, means[{err.element}] was stored by "
           f"{err.first.who} and by {err.second.who}: means[threadIdx.x] = sum / rows stores by the thread's place in its block, where its "
           f"column col belongs: thread t of block b summed column b * {block} + t but stored "
           f"its mean in means[t], over block 0's, and means[{block}] to means[{cols - 1}] were "
           "never written", "store the mean at the column's own place: means[col] = sum / rows")


def _grid_wide(err, shape):
    """(r, the launch's width) where ``err``, of a launch on a ``shape`` matrix with blocks of 32,
    is its thread's read past m at the first row r whose m[r * width + col] lies past m's end,
    the width gridDim.x * blockDim.x (not cols); None otherwise."""
    rows, cols = shape
    width = 32 * -(-cols // 32)
    if width == cols or getattr(err, "kind", None) != "out of bounds" or \
            getattr(err, "array", None) != "m" or not err.thread or not err.block:
        return None
    col = err.block[0] * 32 + err.thread[0]
    r = -(-(rows * cols - col) // width)
    return (r, width) if col < cols and err.element == r * width + col else None


def _overrun(failure, cols, kernels=None):
    """The hint for an overrun not the planted bug's: by the thread's column and the element."""
    err = failure.error
    if failure.kind == "out of bounds" and err.thread and err.block:
        col, element = err.block[0] * 32 + err.thread[0], err.element  # a whole row past: r
        if _in_bytes(err, col, cols):
            yield (f"the index {err.element} is element {err.element // 4}'s times sizeof(float), "
                   "but an index counts floats, not bytes (the compiler scales it itself): "
                   "m[r * cols + col]")
        loop = element is None or err.array == "m" and element >= 0 and (element - col) % cols == 0
        if loop and col == 0 and element == err.length and kernels is not None and \
                _column_0_one_past(kernels):
            yield (f"only column 0's thread read past m's end: m[{element}] = m[rows * cols], "
                   f"one past its {element} elements, at {os.path.basename(err.line or '?')}; "
                   "the other columns' means are right (on the simulator, with junk after m): "
                   "the loop down the column, a flat index from col in steps of cols, runs while "
                   "i <= rows * cols, which column 0's index reaches and no other's does",
                   "m's last element is m[rows * cols - 1]: loop while i < rows * cols (column "
                   "col's last element is m[(rows - 1) * cols + col])")
        if loop and col < cols and kernels is not None and _rows_one_late(kernels):
            yield ("each thread read its column one row late, rows 1 to rows where 0 to rows - "
                   "1 belong: row 0 was never read, and row rows lies past m's end; element (r, "
                   "col) is m[r * cols + col], r from 0 to rows - 1")
        yield ("the threads with col >= cols must read and store nothing: if (col >= cols) "
               "return;" if col >= cols else "the rows are 0 to rows - 1: loop while r < rows"
               if loop else f"column {col}'s elements are m[r * cols + {col}], r from 0 to rows "
               f"- 1, and its mean goes to means[{col}]: check the kernel's indices against those")


def _rows_one_late(kernels) -> bool:
    """Whether, on the simulator, a tall matrix followed by one row of junk (JUNK) gives each
    column the mean of rows 1 to rows, the junk row in place of row 0."""
    return _junk_row_gives(kernels, lambda m: (m[1:].sum(axis=0) + JUNK) / TALL[0])


def _column_0_one_past(kernels) -> bool:
    """Whether, on the simulator, a tall matrix followed by one row of junk (JUNK) gives column 0
    the mean of its rows plus one junk element, and every other column its right mean."""
    def one_past(m):
        means = m.mean(axis=0)
        means[0] += JUNK / TALL[0]
        return means
    return _junk_row_gives(kernels, one_past)


def _junk_row_gives(kernels, model) -> bool:
    """Whether the launch on the simulator of a tall matrix followed by one row of junk gives the
    means ``model`` makes of the matrix (float64)."""
    launch = _launch((*TALL, 32), slack=TALL[1])
    seen = observe(kernels, launch, key="a row of junk", racecheck=False)
    want = model(launch.model.astype(np.float64))
    return seen.error is None and np.allclose(seen.outs[0].got, want, rtol=1e-4, atol=1e-5)


def _in_bytes(err, col, cols):
    """True when the element read past m is the first of column col's that lies past its end
    with the index times 4 (sizeof(float)): m[(r * cols + col) * sizeof(float)]."""
    element, size = err.element, getattr(err, "length", None)
    if (err.array != "m" or element is None or not size or element % 4 or col >= cols
            or element == size + col):
        return False
    r = -(-(-(-size // 4) - col) // cols)   # the first row whose element, in bytes, lies past m
    return element == 4 * (max(r, 0) * cols + col)


def _mistakes(case, run):
    """The mistakes one launch on the chosen backend shows."""
    rows, cols, _ = case
    m, got = run.model.astype(np.float64), run.out.got
    if run.out.past.size:
        yield (f"means was written past its end (means[{cols}] and on)",
               "the threads with col >= cols must store nothing: if (col >= cols) return;")
    if np.allclose(run.out.runs[-1], (FILL + m.sum(axis=0)) / rows, rtol=1e-4, atol=1e-5):
        yield ("means[col] was added to before anything set it: it starts with whatever means "
               "held (the checker filled it with NaN, then -7)", "keep the sum in a local "
               "float sum = 0.0f, add to it, and store means[col] = sum / rows once at the end")
    yield from last_column_sent_away(m, got, run.out.unwritten)
    if run.out.unwritten.any():
        yield (f"{int(run.out.unwritten.sum())} of the {cols} means were never written (the "
               f"first is means[{int(np.argmax(run.out.unwritten))}])",
               "every column needs a thread: col = blockIdx.x * blockDim.x + threadIdx.x")
    want = m.mean(axis=0)
    if np.allclose(got, want, rtol=1e-4, atol=1e-5):
        return
    yield from sum_unset(run.kernel, got, want)
    yield from unrolled_without_tail(m, got, run.kernel, lambda r: _launch((r, cols, case[2])))
    for wrong, problem, hint in (
            (m.ravel().reshape(cols, rows).mean(axis=1), "each thread averaged a stretch of "
             "rows neighbouring floats, m[col * rows + r], not a column",
             "element (r, col) is m[r * cols + col]: r picks the row, col the place in it"),
            (m.sum(axis=0) / cols, "each mean is its column's sum divided by cols",
             "a column has rows elements: divide by rows"),
            (m.sum(axis=0) / max(rows - 1, 1), f"each mean is its column's sum divided by rows - 1 "
             f"= {rows - 1}, where a mean divides by the number of elements added, rows = {rows} "
             "(rows - 1 is a sample variance's divisor, not a mean's)",
             "divide by rows: means[col] = sum / rows"),
            *row_left_out(m), *rows_stepped(m, case[2]),
            (m.sum(axis=0), "each mean is its column's sum: it was not divided by rows",
             "the mean is the sum divided by the number of rows: means[col] = sum / rows"),
            (want / rows, f"every mean is the right one divided by rows = {rows} once more: the "
             "sum was divided by rows twice (each element as it was added, then the sum)",
             "divide once: sum += m[r * cols + col] in the loop, then means[col] = sum / rows"),
            (m[0], "each mean is its column's first element, m[col], whatever the row: the index "
             "held col alone, as m[r, col] gives in C, where the comma is an operator that "
             "keeps its right side, not NumPy's tuple of indices",
             "m is a flat pointer with one index: element (r, col) is m[r * cols + col]"),
            (m[-1] / rows, "each mean is the column's last element divided by rows: the loop "
             "replaced the sum (sum = ...) where it should add to it",
             "sum += m[r * cols + col]"),
            (want[np.arange(cols) % case[2]], "each block's threads averaged block 0's columns: "
             "the index read column threadIdx.x, with the block's place left out",
             "the column is col = blockIdx.x * blockDim.x + threadIdx.x: m[r * cols + col]"),
            (m[:, 0].mean() + np.arange(cols), "each mean is column 0's mean plus col: col was "
             "added to the element read, m[r * cols] + col, not to its index",
             "col goes inside the brackets: m[r * cols + col]"), *_misread(m, case[2])):
        if rows > 1 and np.allclose(got, wrong, rtol=1e-4, atol=1e-5):
            yield problem, hint
    yield from zero_means(run.kernel, got)
    yield from near.misses("means", got, want, close=near.within(1e-4, 1e-5))
    c = int(np.argmax(~np.isclose(got, want, rtol=1e-4, atol=1e-5)))
    yield (f"means[{c}] = {got[c]:.6g}, NumPy's is {want[c]:.6g}",
           "printf, from thread 0, the index the kernel reads at each step, and compare it "
           "with r * cols + col")


def _misread(m, block):
    """(means, problem, hint) of kernels that read other elements of m, where those lie in m:
    m[col * cols + r], the row and the column swapped; a flat index from col stepping by rows
    to m's end (the planted bug that never reads past m); r < cols, the loop over the columns
    (and the sum divided by cols);
    rows taken as ``block`` (blockDim.x) floats long; every thread reading column 0, or its
    block's, blockIdx.x."""
    rows, cols = m.shape
    if rows < cols:   # the tall launches before it were right: a step of min(rows, cols)
        yield (m.ravel()[np.arange(rows)[:, None] * rows + np.arange(cols)].mean(axis=0),
               f"on this wide matrix each thread stepped down its column by rows = {rows} "
               f"floats, m[r * {rows} + col], though the tall matrix before it came out right: "
               "the step is the smaller of rows and cols, as min(rows, cols) gives, which is "
               f"the row's length only while cols <= rows; a row is cols = {cols} floats long "
               "whatever the shape", "step by cols on every shape: element (r, col) is m[r * "
               "cols + col]")
    if block != cols and (rows - 1) * block + cols <= m.size:
        yield (m.ravel()[np.arange(rows)[:, None] * block + np.arange(cols)].mean(axis=0),
               f"each thread stepped down its column by blockDim.x = {block} floats, m[r * "
               "blockDim.x + col]: the block's size is not the matrix's, a row of m is cols "
               "floats long", "element (r, col) is m[r * cols + col]")
    yield (m.mean(axis=0)[np.arange(cols) // block], "each thread averaged its block's column: "
           "the index read column blockIdx.x, the block's number, where the thread's own belongs",
           "the column is col = blockIdx.x * blockDim.x + threadIdx.x: m[r * cols + col]")
    yield (np.full(cols, m[:, 0].mean()), "every mean is column 0's: each thread's index started "
           "at 0, not at its own column, so every thread read m[0], m[cols], m[2 * cols] and on",
           "start at the thread's column: element (r, col) is m[r * cols + col] (a flat index "
           "from k = col, k += cols)")
    if (cols - 1) * cols + rows <= m.size:
        yield (m.ravel()[np.arange(cols)[:, None] * cols + np.arange(rows)].mean(axis=1),
               "each thread read m[col * cols + r]: the row and the column swapped in the index",
               "element (r, col) is m[r * cols + col]: r picks the row, col the place in it")
    flat = m.ravel()
    yield (np.array([flat[col::rows].sum() for col in range(cols)]) / rows, "each thread stepped "
           f"through m by rows floats, reading cols = {cols} elements, rows = {rows} floats apart, m[col], m[col + {rows}], ..., "
           f"m[col + {(cols - 1) * rows}], as r < cols over m[r * rows + col] does (or i += rows "
           "to m's end): a step down a column moves one whole row, cols floats, not rows, and a "
           "column has rows elements, not cols", "for (int r = 0; r < rows; r++) sum += m[r * "
           "cols + col]: r counts the column's rows elements, each cols floats after the one "
           "before (on a flat index: from i = col step by cols, i += cols, while i < rows * cols)")
    if cols < rows:   # the planted bug's reads past m's end clamped onto its last element
        yield (flat[np.minimum(np.arange(rows)[:, None] * rows + np.arange(cols),
                               flat.size - 1)].mean(axis=0),
               "each thread still stepped down its column by rows floats, m[r * rows + col], and "
               "the reads past m's end were clamped onto its last element (min(..., rows * cols "
               "- 1)): they no longer fault, but they read m[rows * cols - 1] where the column's "
               "elements belong; the clamp hides the planted bug, it does not fix it",
               "a step down a column moves one whole row, cols floats: element (r, col) is m[r * "
               "cols + col], always inside m, with no clamp")
        yield (m[:cols].sum(axis=0) / rows, "the loop ran while r < cols: each mean is the sum "
               "of the first cols rows only", "a column has rows elements: loop while r < rows")
        yield (m[:cols].mean(axis=0), f"each mean is the mean of its column's first cols = "
               f"{cols} elements, not of its rows = {rows}: the loop stopped at r < cols and the "
               "sum was divided by cols", "a column has rows elements: for (int r = 0; r < rows; "
               "r++), then sum / rows")
    yield from _strides(m, block)


def _strides(m, block):
    """(means, problem, hint) of a step down a column by s floats, m[r * s + col], for each s
    below cols (whose reads all lie in m), other than those named before (rows, blockDim.x)."""
    rows, cols = m.shape
    names = {cols - 1: "cols - 1, the last column's index", cols // 2: "cols / 2"}
    for s in range(1, cols):
        if s in (rows, block):
            continue
        why, short = f" ({names[s]})" if s in names else "", cols - s
        yield (m.ravel()[np.arange(rows)[:, None] * s + np.arange(cols)].mean(axis=0),
               f"each thread stepped down its column by {s} floats{why}, m[r * {s} + col]: a "
               f"row of m is cols = {cols} floats long, so each step landed {short} "
               f"float{'s' if short > 1 else ''} short of the next row's element, in another "
               "column",
               "a step down a column moves one whole row, cols floats: element (r, col) is "
               "m[r * cols + col]")


EXERCISE = KernelExercise(
    stub="exercises/column_means.cu", kernel="column_means",
    signature="const float *m, float *means, int rows, int cols",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    simulated="looks for the planted bug", before=planted_bug, unset=sum_unset_by_luck,
    crash_hint="read the error: it names the thread, the element and the line",
    success=f"the planted bug is fixed (the bounds checks find nothing on a {TALL[0]} x "
            f"{TALL[1]} matrix), and the means match NumPy's ({len(CASES)} shapes: tall, wide, "
            "one row, square)")

check_column_means = EXERCISE.check_file          # (path="exercises/column_means.cu")
check_column_means_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
