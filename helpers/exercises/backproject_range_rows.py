"""The index mistakes of notebook 10's back-projection (``helpers.exercises.backproject_range``)
that the pixels reached show: the block's sides swapped, and v stepping by the block's width where
the case's image is too short for block row 1 to show it."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import observe


def block_sides_swapped(done, grid, index_hint):
    """The pixels a kernel reaches whose u steps by blockDim.y and v by blockDim.x."""
    (bx, by), (gx, gy) = grid.block[:2], grid.grid
    cols = np.isin(np.arange(grid.width), np.arange(gx)[:, None] * by + np.arange(bx))
    rows = np.isin(np.arange(grid.height), np.arange(gy)[:, None] * bx + np.arange(by))
    if bx != by and np.array_equal(done, rows[:, None] & cols[None, :]):
        yield ("the pixels written are those a kernel reaches whose u steps by blockDim.y from one "
               "block to the next and v by blockDim.x: blockDim.x and blockDim.y are swapped",
               "u goes with x, v with y: " + index_hint)


def _first_rows(done, by):
    """Whether ``done`` (a (height, width) mask) is every pixel of rows 0 to ``by`` - 1 alone."""
    rows = np.arange(done.shape[0]) < by
    return np.array_equal(done, np.broadcast_to(rows[:, None], done.shape))


def v_steps_by_the_width(done, case, kernels, launch, index_hint):
    """v = blockIdx.y * blockDim.x + threadIdx.y, where blockDim.x is wider than the block's
    height and than the image is tall: block row 1 begins at row blockDim.x, below the image, so
    only block row 0's rows were written, as with blockIdx.y left out of v (where every block row
    writes those). Told apart by the case launched again on the simulator (``launch``: the
    checker's, of a case) with an image 2 * blockDim.x rows tall, where such a v writes rows
    blockDim.x to blockDim.x + blockDim.y - 1 too, and no other."""
    (bx, by), height, width = case["block"][:2], case["height"], case["width"]
    if bx <= by or height > bx or not _first_rows(done, by):
        return
    seen = observe(kernels, launch(dict(case, height=2 * bx)), key=f"{width} x {2 * bx} image",
                   racecheck=False)
    if seen.error is not None:
        return
    tall = ~seen.outs[0].unwritten.any(axis=0)
    if not _first_rows(np.delete(tall, np.s_[bx:bx + by], axis=0), by) or not tall[bx:bx + by].all():
        return
    yield (f"only rows 0 to {by - 1} were written: v steps by blockDim.x = {bx}, the block's "
           f"width, from one block to the next, where blockDim.y = {by}, its height, belongs, so "
           f"block row 1 began at row {bx}, below the image's {height} rows, and rows {by} to "
           f"{height - 1} were never written (on the simulator, an image {2 * bx} rows tall got "
           f"rows 0 to {by - 1} and {bx} to {bx + by - 1} alone)",
           "v steps by the block's height, blockDim.y: " + index_hint)
