"""Models of wrong ``column_means`` kernels (``helpers.exercises.column_means``): rows left out,
the last column sent away, a row loop unrolled with no tail, a sum that starts from whatever its
register held."""

from __future__ import annotations

import numpy as np

from helpers.exercises import unset


def sum_unset(kernels, got, want):
    """A local the simulator's compiler saw read before anything is stored in it (its records:
    ``helpers.exercises.unset``), the means being wrong: the sum started from garbage, not 0
    (on the simulator 0xFE bytes, -1.7e38 as a float, so every mean is off by -1.7e38 / rows)."""
    for record in unset.reads(kernels)[:1]:
        c = int(np.argmax(~np.isclose(got, want, rtol=1e-4, atol=1e-5)))
        yield _started_from_garbage(record, f"means[{c}] = {got[c]:.6g}, NumPy's is "
                                            f"{want[c]:.6g}")


def sum_unset_by_luck(record):
    """``(problem, hint)`` where the means came out right although ``record``'s local is read
    before anything is stored in it: a GPU's register held 0 by luck (the runner's words for a
    PASS with such a read, ``helpers.exercises.unset``)."""
    return _started_from_garbage(record, "here every mean came out right by luck (the register "
                                         "held 0), which another run need not repeat")


def _started_from_garbage(record, outcome):
    where = f" (declared at line {record.declared})" if record.declared else ""
    return (f"{record.name}{where} is read before anything is stored in it: it starts from "
            "whatever its register held (on a GPU anything, on the simulator 0xFE bytes, "
            f"-1.7e38 as a float), not 0, and each column's sum is built on that: {outcome}",
            f"give {record.name} a value where it is declared, before the loop adds to it: "
            f"float {record.name} = 0.0f;")


def row_left_out(m):
    """(means, problem, hint) of a loop over the rows that leaves the last one out (r < rows -
    1), or the first (from r = 1), or those above the thread's column (from r = col), the sum
    still divided by rows."""
    rows = m.shape[0]
    yield (m[:-1].sum(axis=0) / rows, "the last row of m is left out of every mean",
           "the rows are 0 to rows - 1: loop while r < rows")
    yield (m[1:].sum(axis=0) / rows, "the first row of m, row 0, is left out of every mean "
           f"(still divided by rows = {rows}): the loop started at r = 1, but rows are counted "
           "from 0", "the rows are 0 to rows - 1: for (int r = 0; r < rows; r++)")
    cols = m.shape[1]
    if cols > 1 and rows > 1:   # the rows of column col from r = col on: the grid-stride habit
        kept = np.array([m[c:, c].sum() for c in range(cols)]) / rows
        yield (kept, f"means[1] = {kept[1]:.6g} is the sum of rows 1 to {rows - 1} of column 1 "
               f"divided by rows = {rows}: each column's mean left out rows 0 to col - 1: the row "
               "loop started at r = col, the thread's column, where every column's rows start "
               "at 0", "the rows are 0 to rows - 1 in every column: for (int r = 0; r < rows; "
               "r++)")


UNROLLS, CHECK_ROWS = (2, 4, 8), 62
"""The factors a row loop unrolled with no tail is looked for with, and the rows of the matrix
that tells them apart (62 % 2, 62 % 4, 62 % 8 are 0, 2 and 6, and never 1: no last row alone)."""


def _without_tail(m, k):
    """The means of a row loop unrolled by k with no tail: rows % k rows left out, / rows."""
    rows = m.shape[0]
    return m[:rows - rows % k].sum(axis=0) / rows


def unrolled_without_tail(m, got, kernels, launch_of):
    """(problem, hint) of a row loop that adds k rows a trip (r + k - 1 < rows, r += k) with no
    tail loop after it: the last rows % k rows left out, the sum still divided by rows, on this
    matrix ``m`` and on one of CHECK_ROWS rows (``launch_of(rows)``, launched on the simulator),
    which tells k from the other factors and from the last row alone left out."""
    from helpers.exercises.microscope import observe

    rows = m.shape[0]
    for k in (k for k in UNROLLS if rows % k and np.allclose(got, _without_tail(m, k),
                                                             rtol=1e-4, atol=1e-5)):
        seen = observe(kernels, launch_of(CHECK_ROWS), key="unrolled", racecheck=False)
        if seen.error is not None or not np.allclose(
                seen.outs[0].got, _without_tail(seen.launch.model.astype(np.float64), k),
                rtol=1e-4, atol=1e-5):
            continue
        left = f"row {rows - 1} was" if rows % k == 1 else f"rows {rows - rows % k} to {rows - 1} were"
        yield (f"the row loop takes {k} rows a trip (r + {k - 1} < rows, r += {k}) and has no tail: "
               f"the last rows % {k} rows of each column are never added (on this {rows}-row "
               f"matrix {left} left out, on a {CHECK_ROWS}-row one the last {CHECK_ROWS % k})",
               f"after the loop of {k} rows a trip, add the rows it left one at a time: declare "
               f"r before the loop, int r = 0; for (; r + {k - 1} < rows; r += {k}) ..., then "
               "for (; r < rows; r++) sum += m[r * cols + col];")
        return


def last_column_sent_away(m, got, unwritten):
    """The last mean alone never written, the others right: a guard col >= cols - 1."""
    cols = m.shape[1]
    if cols > 1 and np.array_equal(unwritten, np.arange(cols) == cols - 1) and np.allclose(
            got[:-1], m.mean(axis=0)[:-1], rtol=1e-4, atol=1e-5):
        yield (f"means[{cols - 1}], the last column's, was never written: the guard col >= cols "
               f"- 1 sends its thread (col = {cols - 1}) away with the others past the end, though "
               f"column cols - 1 = {cols - 1} is a column of m", "only the threads with col >= "
               "cols have no column: if (col >= cols) return;")


def one_column_a_block(failure, cols, kernels):
    """Two threads of one block that stored means[b * blockDim.x], the block's first column, and
    the launch run again without the race check gives the means of those columns alone, right,
    the rest never written: the thread's part of col is 0 in every thread (threadIdx.y, 0 in a
    block of (blockDim.x, 1, 1))."""
    from helpers.exercises.microscope import observe

    err, launch = failure.error, failure.launch
    if failure.kind != "race" or err.hazard != "write-after-write" or err.array != "means" or \
            launch is None or err.first.block != err.second.block:
        return
    block = launch.block[0]
    firsts = np.arange(0, cols, block)
    if err.element != err.first.block[0] * block:
        return
    seen = observe(kernels, launch, key="one column a block", racecheck=False)
    out = seen.outs[0] if seen.error is None and seen.outs else None
    want = launch.model.astype(np.float64).mean(axis=0)
    others = np.setdiff1d(np.arange(cols), firsts)
    if out is None or out.unwritten[firsts].any() or not out.unwritten[others].all() or \
            not np.allclose(out.got[firsts], want[firsts], rtol=1e-5, atol=1e-6):
        return
    yield (f"means[{err.element}] was stored by {err.first.who} and by {err.second.who}: every "
           f"thread of a block took the block's first column, blockIdx.x * blockDim.x, as if "
           f"its thread index were 0 (threadIdx.y is 0 in a block of ({block}, 1, 1)), so only "
           f"columns {', '.join(map(str, firsts[:3]))}{', ...' if firsts.size > 3 else ''} got "
           "a mean and the rest none", "the block's threads lie along x: col = blockIdx.x * "
           "blockDim.x + threadIdx.x")


def blocks_one_column_apart(failure, cols):
    """Two threads of different blocks that stored one mean, each at col = blockIdx.x +
    threadIdx.x: the block's index multiplied by 1 (blockDim.y, 1 in a block of (blockDim.x, 1,
    1)) where blockDim.x belongs, so the blocks overlap and the last columns get no thread."""
    err, launch = failure.error, failure.launch
    if failure.kind != "race" or err.hazard != "write-after-write" or err.array != "means" or \
            launch is None or err.first.block == err.second.block or \
            any(a.block[0] + a.thread[0] != err.element for a in (err.first, err.second)):
        return
    block, dims = tuple(launch.block), (*launch.block, 1, 1)[:3]
    reach = launch.grid[0] + block[0] - 1
    left = f", and columns {reach} to {cols - 1} got no thread" if reach < cols else ""
    yield (f"means[{err.element}] was stored by {err.first.who} and by {err.second.who}: col = "
           f"blockIdx.x * 1 + threadIdx.x, so the blocks start one column apart, not blockDim.x = "
           f"{block[0]} apart: they overlap{left}. The block's index was multiplied by 1"
           + (f", as by blockDim.y (blockDim.y is 1 in a block of {dims})" if dims[1] == 1 else ""),
           "a block holds blockDim.x columns: col = blockIdx.x * blockDim.x + threadIdx.x")


def rows_stepped(m, block):
    """(means, problem, hint) of a row loop stepped by the block's size, r += blockDim.x, or by
    the grid's, r += gridDim.x * blockDim.x (the grid-stride habit, where one thread owns the
    whole column), the sum still divided by rows: only every step-th row added."""
    rows, cols = m.shape
    grid = -(-cols // block)
    for step, said in ((block, f"blockDim.x = {block}, r += blockDim.x"),
                       (grid * block, f"gridDim.x * blockDim.x = {grid * block}, r += gridDim.x "
                                      "* blockDim.x")):
        if 1 < step < rows:
            kept = ", ".join(str(r) for r in range(0, rows, step))
            yield (m[::step].sum(axis=0) / rows, f"each mean is the sum of rows {kept} of its "
                   f"column alone, divided by rows = {rows}: the row loop stepped by {said}, so "
                   f"it added one row in {step} (one thread owns the whole column, there is no "
                   "other thread to take the rows between)", "the thread adds every row of its "
                   "column: for (int r = 0; r < rows; r++)")


def cols_for_block_dim(tall, wide_of):
    """(problem, hint) where, on the simulator, a tall and a wide launch (``tall``, an
    ``Observed``, and ``wide_of()``, the wide one) ran with no error, and each gave block 0's
    columns, 0 to blockDim.x - 1, their right means and left every other mean unwritten: the
    threads of blocks 1 and on found no column below cols, as col = blockIdx.x * cols +
    threadIdx.x gives (block b starts at b * cols, past the matrix); None otherwise."""
    if not _block_0_alone(tall):
        return None
    wide = wide_of()
    if not _block_0_alone(wide):
        return None
    (block, *_), (grid, *_), cols = wide.launch.block, wide.launch.grid, wide.launch.model.shape[1]
    return (f"on a {wide.launch.model.shape[0]} x {cols} matrix (block = ({block}, 1, 1), grid = "
            f"({grid}, 1)) means[0] to means[{block - 1}] are right and means[{block}] to "
            f"means[{cols - 1}] were never written: col = blockIdx.x * cols + threadIdx.x starts "
            f"block b's columns at b * {cols} (cols, the matrix's width), not b * {block} "
            f"(blockDim.x), so blocks 1 to {grid - 1} start at column {cols} or past it and "
            f"return, and only block 0's {block} threads had a column",
            "blocks lie blockDim.x columns apart (cols is the matrix's width, not the block's): "
            "col = blockIdx.x * blockDim.x + threadIdx.x")


def _block_0_alone(seen) -> bool:
    """Whether ``seen`` ran with no error, over more than one block, and only means[0] to
    means[blockDim.x - 1] were written, each right."""
    if seen.error is not None or not seen.outs or seen.launch is None:
        return False
    out, m, block = seen.outs[0], seen.launch.model, seen.launch.block[0]
    cols = m.shape[1]
    want = m.astype(np.float64).mean(axis=0)[:block]
    return seen.launch.grid[0] > 1 and block < cols and not out.unwritten[:block].any() and \
        bool(out.unwritten[block:].all()) and np.allclose(out.got[:block], want, rtol=1e-5, atol=1e-6)


def zero_means(kernels, got):
    """(problem, hint) where every mean is 0 (``got``), these being below 1: a launch on the
    simulator of a matrix of elements 1 to 9, whose whole parts an int keeps, tells a sum kept in
    an int (each mean its column's whole parts over rows, an int division or not) from a sum
    divided with an integer division (every mean 0 again); both told where it shows neither."""
    from helpers.exercises.common import Input, Output
    from helpers.exercises.kernel import Launch
    from helpers.exercises.microscope import observe

    if got.any():
        return
    rows, cols = 10, 37
    m = np.random.default_rng(9).uniform(1, 9, (rows, cols)).astype(np.float32)
    seen = observe(kernels, Launch((Input(m), Output(cols), np.int32(rows), np.int32(cols)),
                                   block=(32, 1, 1), grid=(2, 1)), key="whole parts")
    wholes = np.trunc(m).sum(axis=0)
    means = seen.outs[0].got if seen.error is None else None
    hint = "keep the sum in a float, float sum = 0.0f, and divide it by rows: sum / rows"
    if means is not None and any(np.allclose(means, whole, rtol=1e-4, atol=1e-5)
                                 for whole in (wholes // rows, wholes / rows)):
        yield ("every mean is 0: the sum is kept in an int, which cuts every float added to a "
               "whole number (on the simulator, a matrix of elements 1 to 9 gave each column "
               "the mean of their whole parts), and these lie between -1 and 1, so each adds 0",
               hint)
    elif means is not None and not means.any():
        yield ("every mean is 0 (on the simulator, of elements 1 to 9 too, whose whole parts an "
               "int sum would still count): the sum was divided with an integer division, "
               "1 / rows is 0, an int over a larger int", "divide the float sum itself: "
               "means[col] = sum / rows (or sum * (1.0f / rows))")
    else:
        yield ("every mean is 0: the sum is kept in an int, which cuts every float added to a "
               "whole number (these are below 1), or divided by an integer division (1 / rows "
               "is 0)", hint)
