"""The models of matrix_index's mistakes (helpers.exercises.matrix_index): the output of a
guarded kernel whose row, col, index or block differ from the solution's (``model``), and how a
result is compared with one (``same``); which of two slips whose outputs agree the kernel's
text shows (``one_thread_side``)."""

from __future__ import annotations

import numpy as np


def model(case, padded, swap=False, index=None, block=None, y_from_x=False,
           threads_swapped=False, one_d=False, x_from_y=False, blocks_from=None):
    """The output of a guarded kernel that takes row from x when ``swap`` (y's block from y, its
    thread from x when ``y_from_x``; x's block from x, its thread from y when ``x_from_y``; each side's block from itself, its thread from the other
    when ``threads_swapped``; both sides' blocks from blockIdx.``blocks_from`` ("x" or "y");
    row and col from x's global index alone, t / cols and t % cols,
    when ``one_d``), stores element
    (row, col) at ``index(row, col)`` (by default row * cols + col) and takes ``block`` for
    blockDim (by default the launch's); NaN where it writes nothing, nothing past the end, and
    inf where threads with different values meet (whichever wrote last: a GPU does not say)."""
    rows, cols = case.height, case.width
    (pc, pr), (bx, by) = case.threads, case.block[:2]
    a_pad, cs_pad, ro_pad = padded
    xs, ys = np.meshgrid(np.arange(pc), np.arange(pr))
    if block is not None:  # blockIdx * block + threadIdx
        xs, ys = xs // bx * block[0] + xs % bx, ys // by * block[1] + ys % by
    if y_from_x:
        ys = ys // by * by + xs % bx
    if x_from_y:
        xs = xs // bx * bx + ys % by
    if blocks_from:
        block_index = (xs // bx) if blocks_from == "x" else (ys // by)
        xs, ys = block_index * bx + xs % bx, block_index * by + ys % by
    if threads_swapped:
        xs, ys = xs // bx * bx + ys % by, ys // by * by + xs % bx
    row, col = (xs, ys) if swap else (ys, xs)
    if one_d:
        row, col = xs // cols, xs % cols
    idx = index(row, col) if index else row * cols + col
    keep = (row < rows) & (col < cols) & (idx < rows * cols)
    row, col, idx = row[keep], col[keep], idx[keep]
    out, values = np.full((2, rows * cols), np.nan, np.float32)
    value = a_pad[idx] * cs_pad[col] + ro_pad[row]
    out[idx], values[idx[::-1]] = value, value[::-1]   # each element's last store, its first
    out[~np.isclose(out, values, rtol=1e-5, atol=1e-4) & ~np.isnan(out)] = np.inf
    return out.reshape(rows, cols)


def same(got, model):
    """Whether ``got`` has NaN exactly where ``model`` does, and equals it where it is finite."""
    unwritten, known = np.isnan(model), np.isfinite(model)
    return (np.array_equal(np.isnan(got), unwritten)
            and np.allclose(got[known], model[known], rtol=1e-5, atol=1e-4))


def thread_sides(kernels, of="threadIdx"):
    """{"col": side, "row": side}: the side (x or y) of ``of`` (threadIdx, or blockIdx) in the
    statement that sets col and in the one that sets row (``col = ...;``), as the kernel's text
    reads (its simulated twin's source); a name set nowhere, or with neither or both sides, is
    left out."""
    from helpers.exercises.microscope import body_words

    words = body_words(kernels)
    sides = {}
    for i in range(len(words) - 1):
        if words[i] in ("col", "row") and words[i + 1] == "=" and words[i] not in sides:
            end = words.index(";", i) if ";" in words[i:] else len(words)
            found = {words[j + 2] for j in range(i, end - 2)
                     if words[j:j + 2] == [of, "."] and words[j + 2] in ("x", "y")}
            sides[words[i]] = found.pop() if len(found) == 1 else None
    return {name: side for name, side in sides.items() if side}


def one_thread_side(case, padded, kernels, index_hint):
    """The model entries ``(model's arguments, problem, hint)`` of a kernel whose row takes
    threadIdx.x (or col threadIdx.y), as the other does. On square blocks both give the same
    output: there the kernel's text says which line it is (both are named where it cannot)."""
    row_from_x = (dict(y_from_x=True), "the result is what row = blockIdx.y * blockDim.y + "
                  "threadIdx.x gives: row takes threadIdx.x, as col does", "row comes from y: "
                  + index_hint)
    col_from_y = (dict(x_from_y=True), "the result is what col = blockIdx.x * blockDim.x + "
                  "threadIdx.y gives: col takes threadIdx.y, as row does", "col comes from x: "
                  + index_hint)
    if not same(model(case, padded, y_from_x=True), model(case, padded, x_from_y=True)):
        return [row_from_x, col_from_y]
    sides = thread_sides(kernels)
    if sides.get("col") == "y" and sides.get("row") != "x":
        return [col_from_y]
    if sides.get("row") == "x" and sides.get("col") != "y":
        return [row_from_x]
    return [(dict(y_from_x=True), "the result is what a kernel whose row and col take the same "
             "thread index gives: row = blockIdx.y * blockDim.y + threadIdx.x, or col = "
             "blockIdx.x * blockDim.x + threadIdx.y (on square blocks the two give the same "
             "output)", "col takes threadIdx.x, row threadIdx.y: " + index_hint)]


def one_block_side(case, kernels, index_hint):
    """The model entries of a kernel whose col takes blockIdx.y (or row blockIdx.x), as the other
    does: both give the same output (each block writes the tile on the diagonal of its one block
    index), so the kernel's text says which line it is (both are named where it cannot)."""
    sides = thread_sides(kernels, "blockIdx")
    col, row = sides.get("col"), sides.get("row")
    (pc, pr), (bx, by) = case.threads, case.block[:2]

    def reach(name, size, across, width, side):   # the columns (rows) the diagonal tiles cover
        last = min(size, across * width) - 1
        return (f"{name} takes blockIdx.{side}, as {'row' if name == 'col' else 'col'} does, so "
                f"each block wrote the tile of its blockIdx.{side}'s rows and columns: only the "
                f"diagonal tiles, in {'columns' if name == 'col' else 'rows'} 0 to {last} "
                f"(blockIdx.{side} 0 to {last // width}), were written")
    if col == "y" and row != "x":
        return [(dict(blocks_from="y"), "the result is what col = blockIdx.y * blockDim.x + "
                 "threadIdx.x gives: " + reach("col", case.width, pr // by, bx, "y"),
                 "col comes from x, its block too: " + index_hint)]
    if row == "x" and col != "y":
        return [(dict(blocks_from="x"), "the result is what row = blockIdx.x * blockDim.y + "
                 "threadIdx.y gives: " + reach("row", case.height, pc // bx, by, "x"),
                 "row comes from y, its block too: " + index_hint)]
    return [(dict(blocks_from="x"), "the result is what a kernel whose row and col take the same "
             "block index gives: col = blockIdx.y * blockDim.x + threadIdx.x, or row = blockIdx.x "
             "* blockDim.y + threadIdx.y (the two give the same output)",
             "col takes blockIdx.x, row blockIdx.y: " + index_hint)]


def read_at_col(case, padded):
    """a read at the column, a[col], not at the element's index i (a copy slip): every row reads
    row 0's elements of a."""
    rows, cols = case.height, case.width
    a_pad, cs_pad, ro_pad = padded
    got = a_pad[:cols] * cs_pad[:cols] + ro_pad[:rows, None]
    return [(got, f"a was read at a[col], the column, not at the element's index i = row * cols + "
             f"col: out[1][0] took a[0], not a[{cols}], so every row read row 0's elements of a",
             "read a where out is stored: out[i] = a[i] * col_scale[col] + row_offset[row]")]


def guard_one_short(case, right, unwritten, guard):
    """A guard that stops col (or row, or both) at cols - 1 (rows - 1), taking the last index for
    the edge (col >= cols - 1): the last column (row) never written, every other element right.
    ``guard`` is the solution's guard, for the hint."""
    rows, cols = case.height, case.width
    y, x = np.indices((rows, cols))
    sides = [(x == cols - 1, "col", "cols", cols, "column", rows),
             (y == rows - 1, "row", "rows", rows, "row", cols)]
    if not (right | unwritten).all():
        return
    if np.array_equal(unwritten, sides[0][0] | sides[1][0]):
        yield (f"the last column, col = {cols - 1}, and the last row, row = {rows - 1}, were "
               f"never written: the guard stops col at cols - 1 = {cols - 1} and row at rows - 1 "
               f"= {rows - 1} where they should stop at cols = {cols} and rows = {rows}",
               "columns run 0 to cols - 1 and rows 0 to rows - 1, and the last of each needs its "
               f"thread too: stop only at cols and rows, {guard}")
        return
    for mask, index, side, size, what, count in sides:
        if np.array_equal(unwritten, mask):
            yield (f"the last {what}, {index} = {size - 1}, was never written ({count} elements): "
                   f"the guard stops {index} at {side} - 1 = {size - 1} where it should stop at "
                   f"{side} = {size}",
                   f"{what}s run 0 to {side} - 1, and the last one needs its thread too: stop "
                   f"only at {side}, {guard}")


def guard_against_the_launch(case, kernels, past, guard):
    """Every thread outside the matrix wrote (``past``: the elements past the end of out, those
    of a launch with no guard) where the kernel's body has an if that tests gridDim, not rows or
    cols: a guard on the threads launched, which no thread reaches. ``guard``: the solution's."""
    (tx, ty), rows, cols = case.threads, case.height, case.width
    for said, line, tested in _guards(case, kernels, past):
        if "gridDim" in tested and not {"rows", "cols"} & set(tested):
            yield (f"the guard {said} at line {line} compares "
                   f"with the threads launched, gridDim.x * blockDim.x = {tx} columns and "
                   f"gridDim.y * blockDim.y = {ty} rows, not with the {rows} x {cols} matrix: no "
                   "thread lies past the launch, so it stops nothing, and the threads outside "
                   f"the matrix wrote ({_outside_wrote(case)})",
                   f"compare with the matrix's sides, rows and cols, not the launch's: {guard}")
            return


def guard_of_the_thread_s_place(case, kernels, past, guard):
    """Every thread outside the matrix wrote where the kernel's body has an if that compares
    threadIdx with rows or cols and tests neither row nor col: the thread's place in its block,
    which no thread of a block smaller than the matrix fails. ``guard``: the solution's."""
    (bx, by), rows, cols = case.block[:2], case.height, case.width
    for said, line, tested in _guards(case, kernels, past):
        fields = [tested[j + 2] for j in range(len(tested) - 2)
                  if tested[j:j + 2] == ["threadIdx", "."] and tested[j + 2] in ("x", "y")]
        if fields and {"rows", "cols"} & set(tested) and not {"row", "col"} & set(tested):
            places = " and ".join(f"threadIdx.{f}" for f in dict.fromkeys(fields))
            spans = " and ".join(f"0 to {dict(x=bx, y=by)[f] - 1}" for f in dict.fromkeys(fields))
            yield (f"the guard {said} at line {line} compares {places}, a thread's place in its "
                   f"block ({spans} here), with rows and cols: no thread of a block fails it, so "
                   f"it stops nothing, and the threads outside the {rows} x {cols} matrix wrote "
                   f"({_outside_wrote(case)})",
                   "compare the thread's row and col, which take in its block's place too "
                   f"(blockIdx * blockDim): {guard}")
            return


def _guards(case, kernels, past):
    """The kernel's ifs (``if_tests``) where every thread outside the matrix wrote (``past``:
    the elements of a launch with no guard); none where not."""
    if set(np.asarray(past).ravel().tolist()) != case.unguarded():
        return []
    return if_tests(kernels)


def if_tests(kernels):
    """(the if and its return;, its line, the words it tests) of each if of the kernel's body
    (its simulated twin's source); none where the text cannot be read."""
    from helpers.exercises.microscope import kernel_words, source_line
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return []
    source, tokens, words, body, end = text
    try:
        tests = [(k, closing(tokens, k + 1)) for k in range(body + 1, end - 1)
                 if words[k:k + 2] == ["if", "("]]
    except (Unreadable, ValueError):
        return []
    return [(source[tokens[k].start:tokens[close].end] + (
        " return;" if words[close + 1:close + 3] == ["return", ";"] else ""),
        source_line(source, tokens[k].start), words[k + 2:close]) for k, close in tests]


def _outside_wrote(case) -> str:
    """Where the threads outside the matrix of ``case`` store with no guard: those past the last
    column into the next row's first elements, those past the last row past the end of out."""
    (tx, ty), rows, cols = case.threads, case.height, case.width
    return " and ".join([f"those in columns {cols} to {tx - 1} into the next row's first "
                         "elements"] * (tx > cols) + [f"those in rows {rows} to {ty - 1} past "
                                                      "the end of out"] * (ty > rows))


def guard_after_the_store(case, kernels, past, guard):
    """Every thread outside the matrix wrote (``past``: the elements past the end of out, those
    of a launch with no guard) where the kernel's body tests rows or cols only in an if after its
    first store into out (``microscope.guard_after_store``). ``guard``: the solution's."""
    from helpers.exercises.microscope import guard_after_store

    if set(np.asarray(past).ravel().tolist()) != case.unguarded() or \
            (found := guard_after_store(kernels, "out", ("rows", "cols"))) is None:
        return
    said, guard_line, store, store_line = found
    yield (f"the bounds guard {said} at line {guard_line} comes after the store {store} at line "
           f"{store_line}: every thread had stored before it reached the test, so the threads "
           f"outside the {case.height} x {case.width} matrix wrote ({_outside_wrote(case)})",
           f"test row and col before the store: {guard} first, right after row and col are "
           "computed, then i = row * cols + col and the store")


def read_above_the_guard(case, kernels, guard):
    """out right, but a read above the bounds guard, the first if that tests rows or cols, in the
    kernel's text (its simulated twin's source; ``sepia_guard``): the threads outside the matrix
    read before the guard sends them away, past the end of a (its first parameter, as the code
    names it). ``guard``: the solution's."""
    from helpers.exercises.microscope import kernel_words, source_line
    from helpers.exercises.sepia_guard import read_above_the_guard as above

    (tx, ty), rows, cols = case.threads, case.height, case.width
    if (ty - 1) * cols + tx <= rows * cols or (text := kernel_words(kernels)) is None:
        return
    source, tokens, _, _, end = text
    if (read := above(source[:tokens[end].end], kernels.simulated.name, ("rows", "cols"))) is None:
        return
    a = read.array
    yield (f"the kernel reads {a}[{read.index}] (line {source_line(source, read.read_at)}) before "
           f"its bounds guard, if ({read.test}) (line {source_line(source, read.guard_at)}): the "
           f"threads outside the {rows} x {cols} matrix (the grid has {tx} x {ty} threads) read "
           f"before they return, past the end of {a}, as far as {a}[{(ty - 1) * cols + tx - 1}] "
           f"({a} holds {rows * cols} elements: a read outside an array is undefined, even when, "
           "as here, its value goes nowhere and out does not show it)",
           f"the guard must come before any access to memory: move {guard} up, to right after "
           f"row and col are computed, above the read of {a}")


def _sign(x) -> str:
    return f"{'-' if x < 0 else '+'} {abs(x):g}"


def formulas(a, scale, offset):
    """The results of the formula's slips, (model, problem, hint) with out[0][0]'s values: the
    offset added before the scale, the sum scaled, the offset multiplied (``a``: the rows x
    cols matrix, ``scale``: col_scale, ``offset``: row_offset)."""
    a0, o, s = a[0, 0], offset[0], scale[0]
    return [((a + offset[:, None]) * scale, "the row's offset was added before the scale: out = "
             f"(a + row_offset[row]) * col_scale[col] (out[0][0] = {(a0 + o) * s:g} is (a[0][0] "
             f"+ row_offset[0]) * col_scale[0] = ({a0:g} {_sign(o)}) * {s:g}), so the offset was "
             "scaled too", "scale first, then add the row's offset: out[i] = a[i] * "
             "col_scale[col] + row_offset[row]"),
            (a * (scale + offset[:, None]), "the sum was scaled: out = a * (col_scale[col] + "
             f"row_offset[row]) (out[0][0] = {a0 * (s + o):g} is a[0][0] * (col_scale[0] + "
             f"row_offset[0]) = {a0:g} * ({s:g} {_sign(o)})), so the row's offset was multiplied "
             "by a too", "no parentheses around the sum: out[i] = a[i] * col_scale[col] + "
             "row_offset[row], the offset added after the product"),
            (a * scale * offset[:, None], "the row's offset was multiplied, not added: out = a * "
             f"col_scale[col] * row_offset[row] (out[0][0] = {a0 * s * o:g} is a[0][0] * "
             f"col_scale[0] * row_offset[0] = {a0:g} * {s:g} * {o:g}, where a[0][0] * "
             f"col_scale[0] + row_offset[0] = {a0 * s + o:g})", "add the row's offset after the "
             "scale: out[i] = a[i] * col_scale[col] + row_offset[row]")]


def cut_product(a, scale, offset, kernels):
    """The result of a product a[i] * col_scale[col] cut toward zero to a whole number before
    the row's offset is added (an int holds it), with the int statement the kernel's text shows
    (its simulated twin's source) where one reads col_scale: (model, problem, hint)."""
    held = _int_of_the_scale(kernels)
    return [(np.trunc(a * scale) + offset[:, None], "a[i] * col_scale[col] was cut to a whole "
             "number (toward zero) before row_offset[row] was added (out - row_offset[row] is a "
             "whole number in every element): " + (f"{held} holds it in an int" if held else
             "it went through an int") + ", which drops the fraction", "keep the product a float: float scaled = a[i] * col_scale[col]; "
             "(no int, no cast to int), then out[i] = scaled + row_offset[row]")]


def _int_of_the_scale(kernels):
    """The text and line ("int scaled = a[i] * col_scale[col]; at line 24") of the kernel's first
    statement that reads col_scale and holds an int (a declaration or a cast); None where there
    is none or the text cannot be read."""
    from helpers.exercises.microscope import kernel_words, source_line

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    start = body + 1
    for j in range(body + 1, end):
        if words[j] not in (";", "{", "}"):
            continue
        if "col_scale" in words[start:j] and "int" in words[start:j]:
            return (f"{source[tokens[start].start:tokens[j].end]} at line "
                    f"{source_line(source, tokens[start].start)}")
        start = j + 1
    return None


def fixed_blocks(case, index_hint):
    """The models of a kernel that wrote gridDim for blockDim.x, blockDim.y or both, or 16 for
    one of them, for a case whose block is not that many threads along that side: ``(model,
    problem, hint)``."""
    (bx, by), (gx, gy) = case.block[:2], case.grid
    sides = {"x": ("col", "column", gx, bx, case.width), "y": ("row", "row", gy, by, case.height)}
    for these in ("x", "y", "xy"):
        block, said = (gx if "x" in these else bx, gy if "y" in these else by), [
            (s, *sides[s]) for s in these]
        if block == (bx, by):
            continue
        one = len(these) == 1
        wrote = " and ".join(f"{index} = blockIdx.{s} * gridDim.{s} + threadIdx.{s}"
                             for s, index, *_ in said)
        apart = " and ".join(f"gridDim.{s} = {g} {word}s" for s, _, word, g, *_ in said)
        yield (dict(block=block), f"the result is what {wrote} give{'s' * one}: "
               f"{'its' if one else 'their'} blocks start {apart} apart, not a block's "
               + " and ".join(str(b) for *_, b, _ in said) + _unreached(said),
               f"a block is {' by '.join(f'blockDim.{s}' for s in these)} threads"
               + (f" along {these}" if one else "") + "; " + " and ".join(
                   f"gridDim.{s}" for s in these) + f" count{'s' * one} the blocks: " + index_hint)
    for side, block in (("x", (16, by)), ("y", (bx, 16))):
        if block != (bx, by):
            yield (dict(block=block), f"the result is what a kernel that takes 16 for "
                   f"blockDim.{side} gives: this launch's blocks are {bx} x {by} threads, so "
                   f"blockIdx.{side} * 16 + threadIdx.{side} misses some elements (or reaches "
                   "some twice)", f"use blockDim.{side}, not a number: the launch chooses the "
                   "block's shape. " + index_hint)


def _unreached(said):
    """What blocks ``grid`` apart leave without a thread, for each side (letter, index, word,
    grid, block, length) of ``said``: ", so columns 46 to 90 got no thread", or ""."""
    gaps = []
    for *_, word, grid, block, length in said:
        missed = np.setdiff1d(np.arange(length), np.add.outer(np.arange(grid) * grid,
                                                              np.arange(block)))
        if missed.size and missed[-1] - missed[0] + 1 == missed.size:
            gaps.append(f"{word}s {missed[0]} to {missed[-1]}" if missed.size > 1 else
                        f"{word} {missed[0]}")
        elif missed.size:
            gaps.append(f"{missed.size} {word}s (the first {word} {missed[0]})")
    return f", so {' and '.join(gaps)} got no thread" if gaps else ""
