"""The models of matrix_index's mistakes (helpers.exercises.matrix_index): the output of a
guarded kernel whose row, col, index or block differ from the solution's (``model``), and how a
result is compared with one (``same``)."""

from __future__ import annotations

import numpy as np


def model(case, padded, swap=False, index=None, block=None, y_from_x=False,
           threads_swapped=False, one_d=False):
    """The output of a guarded kernel that takes row from x when ``swap`` (y's block from y, its
    thread from x when ``y_from_x``; each side's block from itself, its thread from the other
    when ``threads_swapped``; row and col from x's global index alone, t / cols and t % cols,
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
