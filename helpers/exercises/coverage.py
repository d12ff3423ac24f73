"""Which elements of a 2-D output a kernel reached, and the mistakes of index and guard that its
coverage shows: the detectors every exercise with a 2-D grid shares.

A checker fills its output with poison and a guard zone after it (``common.Output`` or its
own), launches the learner's kernel on a ``Grid`` whose sides are not multiples of the block, and
hands these generators what it saw: the flat indices written past the end (``past_the_end``), and
which elements were reached (``reached``, then ``never_written``). Each yields ``(problem, hint)``
in the order a learner should read them, in the chapter's words (``Words``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises.common import one_further


@dataclasses.dataclass(frozen=True)
class Grid:
    """A 2-D launch over ``height`` x ``width`` elements with blocks of ``block`` = (bx, by);
    ``observe``: a case launched on the simulator alone, race-checked (``kernel.on_simulator``)."""
    height: int
    width: int
    block: tuple
    observe: bool = False

    @property
    def grid(self) -> tuple:
        bx, by = self.block[:2]
        return -(-self.width // bx), -(-self.height // by)

    @property
    def threads(self) -> tuple:
        """The threads the grid has along x and along y."""
        (gx, gy), (bx, by) = self.grid, self.block[:2]
        return gx * bx, gy * by

    def launch(self) -> dict:
        """The block= and grid= of the launch."""
        return {"block": (*self.block[:2], 1), "grid": self.grid}

    def where(self) -> str:
        (bx, by), (gx, gy) = self.block[:2], self.grid
        return (f"width = {self.width}, height = {self.height}, block = ({bx}, {by}, 1), "
                f"grid = ({gx}, {gy})")

    def span(self) -> int:
        """Elements that any index a plausible wrong kernel computes from the sizes and the
        grid's extent stays within (the room a checker leaves after its arrays)."""
        side = max(self.height, self.width, *self.threads)
        return side * side + side

    def unguarded(self, threads_x=None, threads_y=None, through=None) -> set:
        """Flat indices past the end that a right kernel writes with no bounds guard (over
        ``threads_x`` x ``threads_y`` threads: the whole grid by default), or with a guard that
        lets through the threads (x, y) for which ``through(x, y)`` holds."""
        tx, ty = self.threads
        y, x = np.indices((threads_y or ty, threads_x or tx))
        idx = (y * self.width + x)[through(x, y) if through else ...]
        return set(idx[idx >= self.height * self.width].tolist())


def wrong_indices(grid: Grid, words: "Words"):
    """(the flat index each element (x, y) of the grid went to, problem, hint) of the kernels that
    compute the index with another row length or with x and y swapped."""
    y, x = np.indices((grid.height, grid.width))
    col, row, cols, rows, item = words.col, words.row, words.cols, words.rows, words.item
    hint = f"{item} ({col}, {row}) is at {row} * {cols} + {col}: a row holds {cols} {item}s"
    for index, problem in (
            (y * grid.threads[0] + x, f"a row was taken as the grid's {grid.threads[0]} "
             f"{words.thread}s across, not {cols} = {grid.width}"),
            (y * grid.height + x, f"a row was taken as {rows} = {grid.height} {item}s long, not "
             f"{cols} = {grid.width}"),
            (x * grid.width + y, f"{col} and {row} are swapped in the index: ({col}, {row}) went "
             f"to {col} * {cols} + {row}")):
        if grid.width != grid.height:
            yield index.ravel(), problem, hint


@dataclasses.dataclass(frozen=True)
class Words:
    """How a chapter names an exercise's output and indices, and its hints."""
    index_hint: str
    guard_hint: str
    item: str = "pixel"
    whole: str = "image"
    array: str = "out"
    col: str = "x"
    row: str = "y"
    cols: str = "width"
    rows: str = "height"
    block: str = "block"
    thread: str = "thread"
    # The hint when nothing was written (None: store the result at row * cols + col).
    store_hint: str | None = None
    # What each way of doing the first block's work forgot: in both x and y, in x, in y.
    forgot: tuple = ("blockIdx is missing", "blockIdx.x is missing from {col}",
                     "blockIdx.y is missing from {row}")


def past_the_end(past, grid: Grid, words: Words, wild_hint: str, unwritten=None):
    """Mistakes of the bounds guard, from the flat element indices written past the end (and,
    given ``unwritten``, the elements never written: a store one element too far is told)."""
    if unwritten is not None:
        yield from one_further(words.array, words.item, past, unwritten, f"store at {words.array}"
                               f"[{words.row} * {words.cols} + {words.col}], with nothing added")
    past = set(np.asarray(past).ravel().tolist())
    if not past:
        return
    tx, ty = grid.threads
    width, height = grid.width, grid.height
    if unwritten is not None and past == grid.unguarded():
        yield from _inverted(np.asarray(unwritten).ravel(), grid, words)
    last = f"the last {words.item} is ({words.cols} - 1, {words.rows} - 1): {words.guard_hint}"
    if past == grid.unguarded(min(tx, width + 1), min(ty, height + 1)):
        yield (f"threads with {words.row} == {words.rows} wrote past the end of {words.array}: "
               "the bounds guard is off by one", f"{last} (>=, not >)")
    if ty > height and past == grid.unguarded(width, height + 1):
        yield (f"threads with {words.row} == {words.rows} wrote past the end of {words.array}: "
               f"the guard on {words.row} is off by one ({words.row} > {words.rows} where "
               f"{words.row} >= {words.rows} belongs)", f"{last} (>=, not >)")
    if tx > width and past == grid.unguarded(width + 1, height):
        yield (f"the {words.thread} with {words.col} == {words.cols} in the last row wrote one "
               f"{words.item} past the end of {words.array}: the guard on {words.col} is off by "
               f"one ({words.col} > {words.cols} where {words.col} >= {words.cols} belongs)",
               f"{last} (>=, not >)")
    col, row, cols, rows = words.col, words.row, words.cols, words.rows
    if width != height and past == grid.unguarded(through=lambda x, y: (x < height) & (y < width)):
        yield (f"the guard compares {col} with {rows} and {row} with {cols}: threads below the "
               f"{words.whole} wrote past the end of {words.array}",
               f"{col} goes with {cols}, {row} with {rows}: {words.guard_hint}")
    one_side = [f"{name} with {side}" for name, side, length in ((row, cols, width),
                                                                  (col, rows, height))
                if width != height and past == grid.unguarded(
                    through=lambda x, y, n=length: (x < n) & (y < n))]
    if past == grid.unguarded(through=lambda x, y: (x < width) | (y < height)):
        also = (f", or it compares {one_side[0]} (on this grid the two send the same stores "
                "past the end)") if one_side else ""
        yield (f"the guard stops only the threads outside in both {col} and {row} (&&){also}: "
               f"those outside in one of them wrote past the end of {words.array}",
               "a thread outside in either must return (||)"
               + (f", and {col} goes with {cols}, {row} with {rows}" if also else "")
               + f": {words.guard_hint}")
    for which in one_side:
        yield (f"the guard compares {which}: threads outside the {words.whole} wrote past the "
               f"end of {words.array}", f"{col} goes with {cols}, {row} with {rows}: "
               f"{words.guard_hint}")
    for index, problem, hint in wrong_indices(grid, words):
        if past == set(index[index >= width * height].tolist()):
            yield f"{words.item}s inside the {words.whole} were stored past its end: {problem}", hint
    if past <= grid.unguarded():
        yield (f"threads outside the {words.whole} wrote past the end of {words.array}",
               f"no bounds guard, or only half of one: {words.guard_hint}")
    yield (f"the kernel wrote past the end of {words.array} (as far as {words.item} "
           f"{max(past)}; {words.array} has {grid.height * grid.width})", wild_hint)


def column_guard_only(past, grid: Grid, words: Words, fine, body=()):
    """A guard on the column alone (x >= width): the threads below the output went on and wrote
    past its end, and every element inside it is right (``fine``: a mask, or a bool), which tells
    it from a guard joined with && (whose threads past the last column wrap into the next row).
    On a grid whose rows of threads all lie below the width, comparing y with the width does
    the same: the kernel body's words (``body``, ``microscope.body_words``) tell which it was."""
    ty, width, height = grid.threads[1], grid.width, grid.height
    past = set(np.asarray(past).ravel().tolist())
    if (not past or not np.all(fine) or past == grid.unguarded()
            or past != grid.unguarded(through=lambda x, y: x < width)):
        return
    col, row, cols, rows = words.col, words.row, words.cols, words.rows
    body = list(body)
    test = next((body[k:k + 3] for k in range(len(body)) if body[k] == row
                 and body[k + 1:k + 2] in ([">="], [">"], ["<"], ["<="])
                 and body[k + 2:k + 3] == [cols]), None) if ty <= width else None
    below = (f"the threads in rows {height} to {ty - 1}, below the {width} x {height} "
             f"{words.whole}, went on and wrote past the end of {words.array}")
    if test:
        yield (f"the guard compares {row} with {cols} ({' '.join(test)}) where {rows} belongs: "
               f"no {row} of this grid reaches {cols} = {width}, so {below}", f"compare {row} "
               f"with {rows}, not {cols}: {words.guard_hint}")
        return
    also = (f" (or compares {row} with {cols} = {width}, which no {row} of this grid reaches)"
            if ty <= width and not body else "")
    yield (f"the guard tests only {col}{also}: {below}",
           f"return the threads with {row} >= {rows} as well: {words.guard_hint}")


def _inverted(unwritten, grid: Grid, words: Words):
    """A guard that returns the threads inside and lets those outside through: every element
    unwritten but those that threads past the last column wrap into."""
    y, x = np.indices(grid.threads[::-1])
    idx = (y * grid.width + x)[(x >= grid.width) | (y >= grid.height)]
    if unwritten.any() and np.array_equal(unwritten, ~np.isin(np.arange(unwritten.size), idx)):
        yield (f"the bounds guard is inverted: the {words.thread}s inside the {words.whole} "
               f"returned (its {words.item}s were never written, but for a few that "
               f"{words.thread}s with {words.col} >= {words.cols} wrapped into), and those outside "
               f"wrote past the end of {words.array}",
               f"return the {words.thread}s that lie outside: {words.guard_hint}")


def reached(done, grid: Grid, words: Words, what="written"):
    """Mistakes of the index that ``done`` (a (height, width) mask: the elements written, or
    right) shows: x and y swapped (where a grid reaches the same elements both ways, the swap is
    named), every block doing the first block's work."""
    y, x = np.indices(done.shape)
    (bx, by), (tx, ty) = grid.block[:2], grid.threads
    if what == "written" and np.array_equal(done, (x < ty) & (y < tx)):
        yield (f"the {words.item}s {what} are those a kernel with {words.col} and {words.row} "
               f"swapped reaches ({words.col} < {ty}, {words.row} < {tx})",
               f"{words.col} and {words.row} are swapped: {words.col} runs along a row (over "
               f"the {words.cols}), {words.row} down (over the {words.rows}): "
               f"{words.index_hint}")
    (gx, gy), item, block = grid.grid, words.item, words.block
    for stride, step, side, length, name in ((bx, by, gy, grid.height, words.row),
                                             (by, bx, gx, grid.width, words.col)):
        reach = np.isin(np.arange(length), (np.arange(side)[:, None] * stride + np.arange(step)))
        mask = reach[:, None] if name == words.row else reach[None, :]
        if (np.array_equal(done, mask & np.ones(done.shape, bool)) and not done.all()
                and not np.array_equal(reach, np.arange(length) < step)):  # (not block 0's alone)
            size, other = ("height", "width") if name == words.row else ("width", "height")
            yield (f"the {item}s {what} are those {name} reaches stepping by the {block}'s {other} "
                   f"from one {block} to the next, where it steps by its {size}",
                   words.index_hint)
    for index, problem, hint in wrong_indices(grid, words) if what == "written" else ():
        if not done.all() and np.array_equal(done.ravel(), np.isin(np.arange(done.size), index)):
            yield f"some {words.item}s were never {what}: {problem}", hint
    if what == "written":
        yield from crossed_index(done, grid, words)
    for (ny, nx, first), missing in zip((
            (by, bx, f"only {words.block} 0's {words.item}s were {what}"),
            (grid.height, bx, f"only columns 0 to {bx - 1} were {what}"),
            (by, grid.width, f"only rows 0 to {by - 1} were {what}")), words.forgot):
        if (ny < grid.height or nx < grid.width) and np.array_equal(done, (y < ny) & (x < nx)):
            yield (f"{first}: every {words.block} did the work of the first one",
                   f"{missing.format(col=words.col, row=words.row)}: {words.index_hint}")
    if what == "written":
        yield from crossed_block(done, grid, words)


def diagonal(grid: Grid, n: int) -> np.ndarray:
    """(height, width) mask of the elements reached when the column and the row both take one
    thread index t < n: (blockIdx.x * bx + t, blockIdx.y * by + t), inside the output."""
    (bx, by), (gx, gy), t = grid.block[:2], grid.grid, np.arange(n)
    x, y = np.broadcast_arrays(np.arange(gx)[:, None, None] * bx + t,
                               np.arange(gy)[None, :, None] * by + t)
    keep = (x < grid.width) & (y < grid.height)
    mask = np.zeros((grid.height, grid.width), bool)
    mask[y[keep], x[keep]] = True
    return mask


def crossed_index(done, grid: Grid, words: Words, both=None):
    """The column and the row computed from one thread index (``both``: "threadIdx.x" or
    "threadIdx.y", where the caller knows it, from a race's two threads; where the block's sides
    differ, the elements reached tell): one diagonal line of each block was written."""
    (bx, by), item, col, row = grid.block[:2], words.item, words.col, words.row
    fits = {"threadIdx.x": np.array_equal(done, diagonal(grid, bx)),
            "threadIdx.y": np.array_equal(done, diagonal(grid, by))}
    if done.all() or not any(fits.values()):
        return
    if both is None and bx != by:
        both = "threadIdx.x" if fits["threadIdx.x"] else "threadIdx.y"
    lead = (f"only {int(done.sum())} of {done.size} {item}s were written, one diagonal line in "
            f"each {words.block}")
    if fits.get(both) and both == "threadIdx.x":
        yield (f"{lead}: {row} took threadIdx.x where it takes threadIdx.y, so {row} moves with "
               f"{col}, and the threads that differ only in threadIdx.y drew the same {item}",
               f"{row} = blockIdx.y * blockDim.y + threadIdx.y")
    elif fits.get(both):
        yield (f"{lead}: {col} took threadIdx.y where it takes threadIdx.x, so {col} moves with "
               f"{row}, and the threads that differ only in threadIdx.x drew the same {item}",
               f"{col} = blockIdx.x * blockDim.x + threadIdx.x")
    else:
        yield (f"{lead}: {col} and {row} took the same thread index (threadIdx.x in both, or "
               f"threadIdx.y in both), so they move together", f"each takes its own: {col} = "
               f"blockIdx.x * blockDim.x + threadIdx.x, {row} = blockIdx.y * blockDim.y + "
               "threadIdx.y")


def crossed_block(done, grid: Grid, words: Words, both=None):
    """The column and the row computed from one block index (``both``: "blockIdx.x" or
    "blockIdx.y", where the caller knows it, from a race between two blocks that differ only in
    the other): only the blocks on the grid's diagonal, block k's elements at column k *
    blockDim.x + threadIdx.x and row k * blockDim.y + threadIdx.y, were written (the same
    elements whichever block index both took: each block of the diagonal's row, or column, of
    blocks drew them)."""
    (bx, by), (gx, gy), item = grid.block[:2], grid.grid, words.item
    y, x = np.indices(done.shape)
    if min(gx, gy) < 2 or done.all() or not np.array_equal(done, x // bx == y // by):
        return
    col, row = words.col, words.row
    lead = (f"only {int(done.sum())} of {done.size} {item}s were written, those of the "
            f"{words.block}s on the grid's diagonal ({col} / blockDim.x == {row} / blockDim.y)")
    if both == "blockIdx.x":
        yield (f"{lead}: {row} took blockIdx.x where it takes blockIdx.y, so {row} moves with "
               f"{col} from one {words.block} to the next, and the {words.block}s that differ "
               f"only in blockIdx.y drew the same {item}s",
               f"{row} = blockIdx.y * blockDim.y + threadIdx.y")
    elif both == "blockIdx.y":
        yield (f"{lead}: {col} took blockIdx.y where it takes blockIdx.x, so {col} moves with "
               f"{row} from one {words.block} to the next, and the {words.block}s that differ "
               f"only in blockIdx.x drew the same {item}s",
               f"{col} = blockIdx.x * blockDim.x + threadIdx.x")
    else:
        yield (f"{lead}: {col} and {row} took the same block index (blockIdx.x in both, or "
               f"blockIdx.y in both), so they move together from one {words.block} to the next",
               f"each takes its own: {col} = blockIdx.x * blockDim.x + threadIdx.x, {row} = "
               "blockIdx.y * blockDim.y + threadIdx.y")


def never_written(unwritten, words: Words):
    """Mistakes that leave elements unwritten: nothing at all, or the count and the first."""
    if not unwritten.any():
        return
    if unwritten.all():
        yield (f"nothing was written: {words.array} still holds the poison it was filled with",
               words.store_hint or f"each {words.thread} should store its result in "
               f"{words.array}[{words.row} * {words.cols} + {words.col}]")
    fy, fx = np.argwhere(unwritten)[0]
    yield (f"{int(unwritten.sum())} of {unwritten.size} {words.item}s were never written (the "
           f"first is {words.col} = {fx}, {words.row} = {fy})",
           f"every {words.item} needs a {words.thread}: {words.index_hint}; and the guard "
           f"{words.col} < {words.cols} && {words.row} < {words.rows} (not <=, and not "
           f"{words.cols} and {words.rows} mixed up)")


def coverage(past, unwritten, grid: Grid, words: Words, wild_hint: str):
    """past_the_end, then reached, then never_written: the usual order."""
    yield from past_the_end(past, grid, words, wild_hint, unwritten)
    if unwritten.any():
        yield from reached(~unwritten, grid, words)
    yield from never_written(unwritten, words)


def factors_swapped(done, grid: Grid, words: Words):
    """col = threadIdx.x * blockDim.x + blockIdx.x (or row's, or both): the thread and block
    indices swapped in the index's line, so thread t of block b took t * blockDim + b, and of
    each blockDim elements only the first gridDim (fewer) were reached. Named where the elements
    written are exactly those (the caller checks that they are right)."""
    if done.all() or not done.any():
        return
    axes = ((words.col, "columns", grid.width, grid.block[0], grid.grid[0], "x"),
            (words.row, "rows", grid.height, grid.block[1], grid.grid[1], "y"))
    for wrong in ((True, False), (False, True), (True, True)):
        if any(bad and blocks >= side for bad, (*_, side, blocks, _) in zip(wrong, axes)):
            continue   # as many blocks as threads a block: every element is reached
        reach = [np.isin(np.arange(n), (np.arange(side)[:, None] * side + np.arange(blocks))
                         if bad else np.arange(n)) for bad, (_, _, n, side, blocks, _) in
                 zip(wrong, axes)]
        if not np.array_equal(done, reach[1][:, None] & reach[0][None, :]):
            continue
        said = [f"{name} = threadIdx.{d} * blockDim.{d} + blockIdx.{d} has the thread and block "
                f"indices swapped: thread t of block b took {name} = t * {side} + b, so of every "
                f"{side} {lines} only the first {blocks} (one a block, gridDim.{d} = {blocks}) "
                f"were written, and {name} = {blocks} to {side - 1} never in each"
                for bad, (name, lines, _, side, blocks, d) in zip(wrong, axes) if bad]
        yield (f"{int((~done).sum())} of {done.size} {words.item}s were never written: "
               + "; and ".join(said), "the block's number times the block's width, plus the "
               "thread's place in the block: " + ", ".join(
                   f"{name} = blockIdx.{d} * blockDim.{d} + threadIdx.{d}"
                   for bad, (name, *_, d) in zip(wrong, axes) if bad))
        return
