"""Which rows of y a matvec_warp kernel wrote (``helpers.exercises.matvec_warp``), read as the
mistakes that give them: the store at the warp's place in the block, every block on block 0's
rows, blocks counted the wrong number of rows apart, and only each block's first warp storing.
``traced`` gives the accesses a trace of 8 rows, 4 warps a block, kept on the simulator (None
where it kept none)."""

from __future__ import annotations

import numpy as np


def rows_written(case, out, want, traced):
    """The mistakes the rows of y written (``out.unwritten``) show, with several blocks."""
    yield from _stored_at_warp_in_block(case, out, traced)
    yield from _rows_of_block_0(case, out, want)
    yield from _rows_apart(case, out.unwritten)
    yield from _first_warp_only(case, out, want, traced)


def _stored_at_warp_in_block(case, out, traced):
    """Only y[0] to y[blockDim.y - 1] written, with several blocks, and in a trace (8 rows, 4
    warps a block) block 1's warps read A's rows 4 to 7 but stored y[threadIdx.y]: the store's
    index is the warp's place in the block, not its row (told from a row without its block term,
    whose warps read rows 0 to 3 in every block; the values, on a GPU, are whichever block's
    store landed last, so they are not looked at)."""
    rows, w = case[0], case[2]
    if -(-rows // w) < 2 or not np.array_equal(~out.unwritten, np.arange(rows) < w):
        return
    seen = traced()
    if seen is None:
        return
    mine = seen[(seen["block"] == 1) & ~seen["shared"]]
    stores, loads = mine[(mine["array"] == "y") & mine["write"]], mine[mine["array"] == "A"]
    if not len(stores) or not len(loads) or (stores["index"] != stores["warp"]).any() or \
            (loads["index"] // 40 != 4 + loads["warp"]).any():
        return
    yield (f"only y[0] to y[{w - 1}] were written, by every block: warp threadIdx.y of block b "
           f"summed A's row b * {w} + threadIdx.y but stored y[threadIdx.y] (in a trace with 4 "
           "warps a block, block 1's warps read rows 4 to 7 and stored y[0] to y[3]), so each "
           f"block's sums overwrote the others' and {int(out.unwritten.sum())} of the "
           f"{rows} elements of y were never written",
           "store at the warp's row of the matrix, not its place in the block: if (lane == 0) "
           "y[row] = v")


def _rows_of_block_0(case, out, want):
    """y written, right, at rows 0 to blockDim.y - 1 alone, with more than one block: every
    block's warps took block 0's rows, the block's term 0 (blockIdx.y in a 1-D grid, or none)."""
    rows, w = case[0], case[2]
    grid, written = -(-rows // w), ~out.unwritten
    if grid < 2 or not np.array_equal(written, np.arange(rows) < w) or \
            not np.allclose(out.got[written], want[written], rtol=1e-4, atol=1e-4):
        return
    yield (f"only y[0] to y[{w - 1}] were written (right), the rows of block 0, and {rows - w} of "
           f"the {rows} were never written: every block's warps took rows 0 to {w - 1}, as when the row's "
           f"block term is 0: blockIdx.y, which is 0 in this 1-D grid (grid = ({grid}, 1)), "
           "where the blocks are numbered by blockIdx.x (or no block term at all)",
           "number the rows by the block along x: row = blockIdx.x * blockDim.y + threadIdx.y")


def _rows_apart(case, unwritten):
    """The rows written are those of row = blockIdx.x * B + threadIdx.y for B other than the
    block's blockDim.y rows (1: blockIdx.x not multiplied; blockDim.x, the warp's 32, or
    gridDim.x): the blocks counted B rows
    apart, so rows between them were skipped (or, B smaller, written twice)."""
    rows, w = case[0], case[2]
    grid = -(-rows // w)
    if not unwritten.any():
        return
    for step, name in ((1, ""), (32, "blockDim.x"), (grid, "gridDim.x")):
        model = (np.arange(grid)[:, None] * step + np.arange(w)).ravel()
        written = np.zeros(rows, bool)
        written[model[model < rows]] = True
        if step == 1 and np.array_equal(written, ~unwritten):
            yield (f"row = blockIdx.x + threadIdx.y steps by 1 row from one block to the next: "
                   f"the block number was not multiplied by blockDim.y = {w}, the rows a block "
                   f"holds, so block b's warps took rows b to b + {w - 1}, over the next block's, "
                   f"and only y[0] to y[{grid + w - 2}] were written ({int(unwritten.sum())} of "
                   f"the {rows} never, the first y[{int(np.argmax(unwritten))}])",
                   "row = blockIdx.x * blockDim.y + threadIdx.y")
        elif step != w and np.array_equal(written, ~unwritten):
            yield (f"{int(unwritten.sum())} of the {rows} elements of y were never written (the "
                   f"first is y[{int(np.argmax(unwritten))}]): the blocks were counted {name} = "
                   f"{step} rows apart, but a block holds blockDim.y = {w} rows (one a warp), so "
                   + ("the rows between one block's and the next's had no warp" if step > w else
                      "the blocks' rows overlapped and the last rows had no warp"),
                   "row = blockIdx.x * blockDim.y + threadIdx.y")


def _first_warp_only(case, out, want, traced):
    """y written at the rows of each block's first warp alone (row % blockDim.y == 0), and the
    trace's stores into y (8 rows, 4 warps a block) all by the block's warp 0: by its lane 0
    alone, y right there, the store's condition let only the block's first thread through (lane
    == 0 && threadIdx.y == 0); by several of its lanes, it tested the warp's place in the block,
    threadIdx.y == 0, where lane == 0 belongs. Each warp's lane 0 holds its own row's sum. (A row
    without threadIdx.y writes the same rows, each by every warp's lane 0.)"""
    (rows, w), unwritten, got = (case[0], case[2]), out.unwritten, out.got
    if w < 2 or not np.array_equal(~unwritten, np.arange(rows) % w == 0):
        return
    seen = traced()
    if seen is None or not len(stores := seen[(seen["array"] == "y") & seen["write"]]) or \
            (stores["warp"] != 0).any():
        return
    never = (f"the rows of the warps threadIdx.y = 1 to {w - 1} never ({int(unwritten.sum())} of "
             f"the {rows} elements of y, the first y[{int(np.argmax(unwritten))}])")
    if (stores["lane"] != 0).any():
        yield (f"only the first warp of each block stored, with all its lanes: y[0], y[{w}], "
               f"y[{2 * w}], ... were written, {never}, and in the trace lanes 0 to "
               f"{int(stores['lane'].max())} of warp 0 each stored y[row]: the store's guard "
               "tests threadIdx.y == 0, the warp's place in the block, where it must test lane "
               "== 0, the thread's place in the warp (after warp_sum only lane 0 holds the sum)",
               "guard the store with the lane, not the warp: if (lane == 0) y[row] = v")
    elif np.allclose(got[~unwritten], want[~unwritten], rtol=1e-4, atol=1e-4):
        yield (f"only the first warp of each block (threadIdx.y == 0) stored its row: y[0], "
               f"y[{w}], y[{2 * w}], ... were written, and right, but {never}: the trace's "
               "stores into y were all by thread 0 of the block, as if (lane == 0 && threadIdx.y "
               "== 0) lets through, but each warp of the block has a row of its own, its sum in "
               "its lane 0", "every warp's lane 0 stores its own row, whatever its threadIdx.y: "
               "if (lane == 0) y[row] = v")
