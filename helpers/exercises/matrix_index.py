"""Checker for the exercise in notebook 02, ``cuda_src/exercises/matrix_index.cu``: ``scale_shift``
writes out[row][col] = a[row][col] * col_scale[col] + row_offset[row] on a 2-D grid. Each
element's value depends on its row and column in different ways, so the result of a kernel that
mixes up x and y, forgets blockIdx, writes 16 for blockDim or steps rows from one row to the next
is recognised; the inputs' junk after their end keeps most wrong indices from crashing. The last
case runs on the simulator, race-checked (``helpers.exercises.microscope``), whatever the backend:
a kernel in which every thread loops over the whole matrix gives the right values, but each
element is written by every thread."""

from __future__ import annotations


import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Input, Output, is_poison
from helpers.exercises.coverage import Grid, Words, never_written, past_the_end, reached
from helpers.exercises.hidden import grids
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.matrix_index_models import (cut_product, fixed_blocks, formulas,
                                                   guard_after_the_store,
                                                   guard_against_the_launch, guard_one_short,
                                                   guard_of_the_thread_s_place,
                                                   model as _model, one_block_side,
                                                   one_thread_side, read_above_the_guard,
                                                   read_at_col, same as _same)
from helpers.exercises.matrix_index_operands import operands_swapped
from helpers.exercises.microscope import observe, written_by_two, written_twice
from helpers.exercises.or_guard import store_guard_with_or
from helpers.exercises.verdict import matches
from helpers.exercises.origin import Wrong

KERNEL = "scale_shift"
PARAMETERS = ("const float *a, const float *col_scale, const float *row_offset, float *out, "
              "int rows, int cols")

# Non-square, neither side a multiple of the block, one wide and one tall matrix, and three block
# shapes, each side smaller than 16 in one of them (so a kernel that assumes 16 x 16 fails); last
# a small one on the simulator, race-checked.
CASES = [Grid(37, 91, (16, 16)), Grid(70, 45, (32, 8)), Grid(29, 53, (8, 32)),
         Grid(5, 7, (4, 4), observe=True)]


def _draw(rng):
    """The grader's cases: three more shapes on the shipped blocks."""
    return grids(rng, [case.block for case in CASES if not case.observe], 5, 120, 3)


# What an out-of-range thread reads from the inputs' spare elements: finite, and far from any
# right answer, so that a value computed from it shows up as wrong.
JUNK = np.float32(1.0e4)

INDEX_HINT = ("col = blockIdx.x * blockDim.x + threadIdx.x, "
              "row = blockIdx.y * blockDim.y + threadIdx.y")
GUARD = "if (row >= rows || col >= cols) return;"
GUARD_HINT = ("the grid is rounded up to whole blocks, so some threads lie outside the matrix: "
              f"make them do nothing with a bounds guard, {GUARD}")
WILD_HINT = ("a thread went outside the matrix: check the bounds guard, " + GUARD
             + " (row and col separately), and the index: element (row, col) is at "
             "row * cols + col")
SWAP_HINT = ("x and y are swapped: x runs along a row (over the columns), y down the matrix "
             "(over the rows): " + INDEX_HINT)
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT, item="element", whole="matrix",
              col="col", row="row", cols="cols", rows="rows")
ROW_MAJOR_HINT = ("in a row-major matrix a row is cols elements long, so element (row, col) is "
                  "at row * cols + col (col * rows + row is the column-major, Fortran order)")
BYTES_HINT = ("the index counts bytes, times sizeof(float): a[i] is already the i-th float, not "
              "the i-th byte, so the index counts elements: int i = row * cols + col;")


def _refine(failure):
    """A read or write 4 times as far as the thread's element (row, col) is, for some cols: the
    index multiplied by sizeof(float), from the error's thread, block and offset."""
    err, block = failure.error, failure.block
    if failure.kind != "out of bounds" or not block or err.thread is None or err.block is None \
            or err.offset is None or err.offset % 16:
        return
    col, row = (err.block[k] * block[k] + err.thread[k] for k in (0, 1))
    element = err.offset // 16      # the element the index would reach, were it not times 4
    if row > 0 and element > col and (element - col) % row == 0 and (element - col) // row > col:
        yield BYTES_HINT


def _where(case):
    (gx, gy), (bx, by) = case.grid, case.block
    return f"rows = {case.height}, cols = {case.width}, block = ({bx}, {by}, 1), grid = ({gx}, {gy})"


def _launch(case):
    rows, cols = case.height, case.width
    rng = np.random.default_rng(rows * 1000 + cols)
    a, col_scale, row_offset = (rng.uniform(low, high, size).astype(np.float32) for low, high,
                                size in ((-10, 10, (rows, cols)), (.5, 4, cols), (-100, 100, rows)))
    span = case.span()
    inputs = [Input(x, after=max(span - x.size, 64), junk=JUNK) for x in (a, col_scale, row_offset)]
    return Launch((*inputs, Output((rows, cols), guard=span - rows * cols), np.int32(rows),
                   np.int32(cols)), **case.launch(),
                  model=(a * col_scale + row_offset[:, None], [x.host() for x in inputs]))


def _observed(kernels, case):
    """The race check's launch on the simulator: two threads that store into one element (one
    of them outside the matrix, its row and col clamped to the edge, first)."""
    launch = _launch(case)
    race = observe(kernels, launch).race
    if written_by_two(race) and race.array == "out":
        yield from _clamped(race, case)
    yield from written_twice(kernels, launch, f"each thread writes only its own element: "
                             f"{INDEX_HINT}, then out[row * cols + col] = ...; no loop over all "
                             "of out", refine=lambda failure: _read_outside(failure, case))


def _read_outside(failure, case):
    """A read of col_scale[col] (row_offset[row]) past its end by the thread at (row, col), outside
    the matrix: the threads outside went on past the guard (the race check's launch has no room
    after the inputs)."""
    err, block = failure.error, failure.block
    if failure.kind != "out of bounds" or getattr(err, "is_write", None) is not False or \
            not block or err.thread is None or err.block is None:
        return
    col, row = (err.block[k] * block[k] + err.thread[k] for k in (0, 1))
    if (err.array, err.element) in (("col_scale", col), ("row_offset", row)) and \
            (row >= case.height or col >= case.width):
        yield (f"the thread at row {row}, col {col} lies outside the {case.height} x "
               f"{case.width} matrix, yet went on to read {err.array}[{err.element}]: "
               + OUTSIDE_HINT)


def _clamped(race, case):
    """Two threads that wrote one element of out, the one outside the matrix with its row and
    col clamped to the last ones (min(row, rows - 1), min(col, cols - 1)) where the guard
    belongs."""
    rows, cols, (bx, by) = case.height, case.width, case.block[:2]
    places = [(b[1] * by + t[1], b[0] * bx + t[0])
              for b, t in ((a.block, a.thread) for a in (race.first, race.second))]
    inside = [r < rows and c < cols for r, c in places]
    clamped = [min(r, rows - 1) * cols + min(c, cols - 1) for r, c in places]
    if inside.count(True) == 1 and clamped == [race.element] * 2:
        (r, c), which = places[inside.index(False)], ("first", "second")[inside.index(False)]
        yield (f"two threads wrote out[{race.element}] ({race.first.who} and "
               f"{race.second.who}): the {which}, at row {r}, col {c}, lies outside the "
               f"{rows} x {cols} matrix, and row and col clamped with min() sent it onto the "
               "edge's element", "a thread outside the matrix must write nothing, not the "
               "nearest element: a bounds guard, " + GUARD)


def _one_side(case, past, right, unwritten):
    """A guard that compares row and col with one and the same side (row >= cols || col >= cols,
    or row >= rows || col >= rows): where the other side is longer, threads outside the matrix
    wrote past its end (or, where shorter, the last rows or columns were never written), the rest
    right. Its writes past the end can be those of a guard joined with &&, whose threads past
    the last column wrap into the next row: only the matrix's elements all right tell it apart."""
    rows, cols = case.height, case.width
    y, x = np.indices((rows, cols))
    past = set(np.asarray(past).ravel().tolist())
    for side, name, index, other, own in ((cols, "cols", "row", "rows", rows),
                                          (rows, "rows", "col", "cols", cols)):
        if (side != own and past == case.unguarded(through=lambda tx, ty, s=side: (tx < s) & (ty < s))
                and (right | unwritten).all()
                and np.array_equal(unwritten, (x >= side) | (y >= side))):
            yield (f"the guard compares {index} with {name}: {index} must stop at {other} = "
                   f"{own}, and {name} = {side} lets "
                   + ("threads outside the matrix write past the end of out" if past else
                      f"some {index}s of the matrix go unwritten"),
                   f"compare row with rows and col with cols: {GUARD}")


def _half_guard(case, past, fine):
    """A guard on one side only (col >= cols, or row >= rows): the writes past the end of out
    of the threads it lets through (below the matrix, or right of it); on col alone the same as
    row >= cols || col >= cols where no row of the grid reaches cols: then both are named."""
    rows, cols, (tx, ty) = case.height, case.width, case.threads
    if not (past := set(np.asarray(past).ravel().tolist())) or past == case.unguarded():
        return
    if past == case.unguarded(through=lambda x, y: x < cols) and fine.all():
        also = (f" (or compares row with cols = {cols}, which no row of this grid reaches)"
                if ty <= cols else "")
        yield (f"the guard tests only col{also}: the threads in rows {rows} to {ty - 1}, below "
               f"the {rows} x {cols} matrix, went on and wrote past the end of out",
               f"stop row at rows as well as col at cols: {GUARD}")
    elif past == case.unguarded(through=lambda x, y: y < rows):
        yield (f"the guard tests only row: the threads in columns {cols} to {tx - 1}, right of "
               f"the {rows} x {cols} matrix, went on and wrote into the next row's first "
               "elements (the last row's past the end of out)",
               f"stop col at cols as well as row at rows: {GUARD}")


def _mistakes(case, run):
    got, (want, padded), rows, cols = run.out.got, run.model, case.height, case.width
    right = np.isclose(got, want, rtol=1e-5, atol=1e-4)
    yield from _half_guard(case, run.out.past, right | is_poison(got))
    yield from _one_side(case, run.out.past, right, is_poison(got))
    yield from guard_against_the_launch(case, run.kernel, run.out.past, GUARD)
    yield from guard_of_the_thread_s_place(case, run.kernel, run.out.past, GUARD)
    yield from guard_after_the_store(case, run.kernel, run.out.past, GUARD)
    yield from store_guard_with_or(run.out.past, case, WORDS, run.kernel)
    yield from past_the_end(run.out.past, case, WORDS, WILD_HINT, run.out.unwritten)
    if right.all():
        yield from read_above_the_guard(case, run.kernel, GUARD)
        return
    unwritten = is_poison(got)
    if unwritten.all():
        yield ("nothing was written: out still holds the NaN it was filled with",
               "each thread should store its result with out[row * cols + col] = ...")
    yield from _outside_into_0(got, right, case, padded)
    if (right | unwritten).all():   # a wrong index's elements hold right values or none
        yield from reached(right, case, WORDS, what="right")
    yield from _mix_ups(got, case, padded, run.kernel)
    # Only guarding the flat index (i < rows * cols): threads with col >= cols wrap into the
    # start of the next row.
    r, c = np.indices((rows, cols))
    if (not unwritten.any() and (r[~right] >= 1).all()
            and (c[~right] < case.threads[0] - cols).all()):
        yield ("the first columns of some rows hold wrong values: threads with col >= cols "
               "wrapped around into the next row",
               "guard row and col separately, not the flat index: " + GUARD)
    written = np.argwhere(~unwritten)
    if len(written) == 1:
        yield (f"only one element, out[{written[0][0]}][{written[0][1]}], was written: every "
               "thread wrote to the same place", "each thread must work out its own (row, col) "
               f"from blockIdx, blockDim and threadIdx: {INDEX_HINT}")
    yield from guard_one_short(case, right, unwritten, GUARD)
    yield from never_written(unwritten, WORDS)
    yield from near.misses("out", got, want, close=near.within(1e-6, 0), index_hint=INDEX_HINT,
                           store="out[row * cols + col] = ...")
    fr, fc = np.argwhere(~right)[0]
    yield Wrong(f"{int((~right).sum())} of {rows * cols} elements are wrong (the first is "
                f"out[{fr}][{fc}] = {got[fr, fc]:g}, expected {want[fr, fc]:g})",
                "out[row * cols + col] = a[row * cols + col] * col_scale[col] + row_offset[row]",
                "out", fr * cols + fc, (rows, cols))


OUTSIDE_HINT = ("a thread outside the matrix must read and store nothing: leave first, "
                + GUARD)


def _outside_into_0(got, right, case, padded):
    """Only out[0][0] wrong, holding what a thread outside the matrix computes for element 0,
    a[0] * col_scale[col] + row_offset[row] with row >= rows or col >= cols (past an input's
    end: its junk): such threads stored too, into out[0] (whichever stored last: a race)."""
    if right.ravel()[0] or not right.ravel()[1:].all():
        return
    (pc, pr), rows, cols = case.threads, case.height, case.width
    row, col = np.indices((pr, pc))
    outside = (row >= rows) | (col >= cols)
    a_pad, cs_pad, ro_pad = padded
    value = (np.float32(a_pad[0]) * cs_pad[col] + ro_pad[row])[outside]
    hit = np.flatnonzero(np.isclose(value, got.ravel()[0], rtol=1e-5, atol=1e-4))
    if hit.size:
        r, c = row[outside][hit[-1]], col[outside][hit[-1]]
        past = ("col_scale and row_offset" if r >= rows and c >= cols
                else "col_scale" if c >= cols else "row_offset")
        yield (f"out[0][0] = {got.ravel()[0]:g} where the rest is right: threads outside the "
               f"matrix still stored, into out[0]: {got.ravel()[0]:g} is a[0] * col_scale[{c}] + "
               f"row_offset[{r}], what the thread at row {r}, col {c} computes, outside the "
               f"{rows} x {cols} matrix (it read past the end of {past})",
               OUTSIDE_HINT)


def _mix_ups(got, case, padded, kernels):
    """Mix-ups of x and y, of row and col, a number for blockDim: such kernels' results."""
    rows, cols = case.height, case.width
    a_pad, cs_pad, ro_pad = padded
    transposed, by_rows = (lambda r, c: c * rows + r), (lambda r, c: r * rows + c)
    models = [(_model(case, padded, **model), problem, hint) for model, problem, hint in (
        (dict(swap=True), "the result is what a kernel with x and y swapped gives, with row "
                          "taken from x and col from y", SWAP_HINT),
        (dict(index=transposed), "the result is what the transposed index col * rows + row "
                                 "gives", ROW_MAJOR_HINT),
        (dict(swap=True, index=transposed), "the result is what a kernel with x and y swapped "
         "and the transposed index col * rows + row gives", SWAP_HINT + "; " + ROW_MAJOR_HINT),
        (dict(index=by_rows), "the result is what the index row * rows + col gives: it steps "
                              "rows elements from one row to the next", ROW_MAJOR_HINT),
        (dict(index=lambda r, c: r * case.block[0] + c), "the result is what the index row * "
         "blockDim.x + col gives: it steps a block's width from one row to the next",
         ROW_MAJOR_HINT),
        (dict(index=lambda r, c: r * (cols - 1) + c), "the result is what the index row * "
         "(cols - 1) + col gives: it steps cols - 1 elements from one row to the next, so each "
         "row's last element lands on the next row's first (cols - 1 is the last column's "
         "index, not a row's length)", "a row holds cols elements, columns 0 to cols - 1, so "
         "element (row, col) is at row * cols + col"),
        (dict(one_d=True), "the result is what row = t / cols, col = t % cols gives, with t = "
         "blockIdx.x * blockDim.x + threadIdx.x: an index from x alone, so every row of threads "
         f"(each threadIdx.y, each blockIdx.y) wrote the same first {case.threads[0]} elements "
         "and the rest were never written", "the grid is 2-D, so each thread takes its column "
         "from x and its row from y: " + INDEX_HINT),
        *one_thread_side(case, padded, kernels, INDEX_HINT), *one_block_side(case, kernels, INDEX_HINT),
        *_threads_swapped(case),
        *fixed_blocks(case, INDEX_HINT))] + list(_overlapping(case, padded)) + read_at_col(case, padded)
    a = a_pad[:rows * cols].reshape(rows, cols)
    for scale, offset, problem, hint in _vectors(case):
        models.append((a * cs_pad[scale] + ro_pad[offset], f"the result is a * {problem}", hint))
    col_scale, row_offset = cs_pad[:cols], ro_pad[:rows]
    models += (formulas(a, col_scale, row_offset) + cut_product(a, col_scale, row_offset, kernels)
               + operands_swapped(a, col_scale, row_offset, kernels))
    yield from matches(got, models, _same)


def _vectors(case):
    """The mix-ups of col_scale's and row_offset's indices: (scale's index, offset's index, what
    was written, hint), the indices over the matrix's (row, col)."""
    rows, cols = case.height, case.width
    r, c = np.indices((rows, cols))
    vectors = ("col_scale has one entry per column (index it with col), "
               "row_offset one per row (index it with row)")
    return (
        (r, c, "col_scale[row] + row_offset[col]", vectors),
        (r, r, "col_scale[row] + row_offset[row]", vectors),
        (c, c, "col_scale[col] + row_offset[col]", vectors),
        (c % case.block[0], r, "col_scale[threadIdx.x] + row_offset[row]: threadIdx.x is "
         "the column within a block", "col_scale has one entry per column of the matrix: "
         "index it with col, blockIdx.x * blockDim.x + threadIdx.x"),
        (c, r % case.block[1], "col_scale[col] + row_offset[threadIdx.y]: threadIdx.y is "
         "the row within a block, so every block of rows added the first block's offsets",
         "row_offset has one entry per row of the matrix: index it with row, "
         "row_offset[row]"),
        (c, r // case.block[1], "col_scale[col] + row_offset[blockIdx.y]: blockIdx.y is "
         f"the block's row number (0 to {case.grid[1] - 1}), not the element's row, so every "
         "element of a block's rows added the offset of row blockIdx.y", "row_offset has one "
         "entry per row of the matrix: index it with the element's row, row_offset[row], row "
         "= blockIdx.y * blockDim.y + threadIdx.y"),
        (r * cols + c, r, "col_scale[i] + row_offset[row]: col_scale was indexed with i, "
         "the element's place in the matrix, where its column col belongs", "col_scale has "
         "one entry per column: index it with col, col_scale[col]"),
        ((r * cols + c) % rows, r, "col_scale[i % rows] + row_offset[row]: with i = row * cols "
         "+ col, i % rows is not the column (i % cols is)", "col_scale has one entry per "
         "column: index it with col, col_scale[col]"),
        (c, r * cols + c, "col_scale[col] + row_offset[i]: row_offset was indexed with i, "
         "the element's place in the matrix, where its row belongs", "row_offset has one "
         "entry per row: index it with row, row_offset[row]"),
        (c, (r * cols + c) // rows, "col_scale[col] + row_offset[i / rows]: with i = row * "
         "cols + col, i / rows is not the row", "row_offset has one entry per row: index it "
         "with row (a row is cols elements long, so i / cols is the row; i / rows is not)"))


def _threads_swapped(case):
    """The model of a kernel that swapped threadIdx.x and threadIdx.y but kept blockIdx and
    blockDim (col = blockIdx.x * blockDim.x + threadIdx.y): right for square blocks only."""
    bx, by = case.block[:2]
    if bx != by:
        yield (dict(threads_swapped=True), "the result is what col = blockIdx.x * blockDim.x + "
               "threadIdx.y, row = blockIdx.y * blockDim.y + threadIdx.x gives: threadIdx.x and "
               "threadIdx.y are swapped, which is right only when blockDim.x == blockDim.y, and "
               f"this launch's blocks are {bx} x {by} threads, so some elements were never "
               "written (and others by more than one thread)",
               "col takes threadIdx.x, row threadIdx.y: " + INDEX_HINT)


def _overlapping(case, padded):
    """The models of a kernel whose blocks start one column (or row) apart: blockIdx added
    without blockDim (col = blockIdx.x + threadIdx.x), along x, y or both: ``(model, problem,
    hint)``, the problem counting the elements its model leaves unwritten."""
    (bx, by), size = case.block[:2], case.height * case.width
    for sides in ("x", "y", "xy"):
        block = (1 if "x" in sides else bx, 1 if "y" in sides else by)
        if block == (bx, by):
            continue
        model = _model(case, padded, block=block)
        names = " and ".join(f"{'col' if side == 'x' else 'row'} = blockIdx.{side} + "
                             f"threadIdx.{side}" for side in sides)
        starts = ", and ".join(f"block {(1, 0) if side == 'x' else (0, 1)} starts at "
                               f"{'column' if side == 'x' else 'row'} 1, not "
                               f"{case.block['xy'.index(side)]}" for side in sides)
        yield (model, f"the blocks overlap: {names} add{'s' * (len(sides) == 1)} the block's "
               f"index without the block's size, so {starts}: several threads wrote the same "
               f"elements, and {int(np.isnan(model).sum())} of {size} were never written",
               "multiply the block's index by the block's size: " + " and ".join(
                   INDEX_HINT.split(", ")["xy".index(side)] for side in sides))


EXERCISE = KernelExercise(
    stub="exercises/matrix_index.cu", kernel=KERNEL, signature=PARAMETERS,
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint=WILD_HINT, refine=_refine, simulated="runs the race check", observed=_observed,
    observed_as="race-checked",
    success=f"out = a * col_scale + row_offset[:, None] for every shape tried ({len(CASES) - 1} "
            "launches, sides not multiples of the block), nothing written outside the matrix, "
            "each element by one thread")

check_matrix_index = EXERCISE.check_file          # (path="exercises/matrix_index.cu")
check_matrix_index_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
