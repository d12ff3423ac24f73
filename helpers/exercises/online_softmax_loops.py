"""The online_softmax checker's loops (helpers.exercises.online_softmax): a column loop that
steps by the block, by less than the warp's 32 lanes, or runs one past the row, and a merge's
loop that never ends."""

from __future__ import annotations

import numpy as np

from helpers.exercises.failure import LOOP_HINT
from helpers.exercises.kernel import Kernels
from helpers.exercises.microscope import stopped
from helpers.exercises.online_softmax_models import pairs


def steps_by_the_block(case, x, m, sums):
    """The column loop stepped by the block's threads (c += blockDim.x, a grid-stride habit), not
    the warp's 32: lane l read columns l, l + blockDim.x, ..., so each row's pair is that of the
    columns c % blockDim.x < 32 alone (those columns in order: lane j % 32 reads the j-th)."""
    step, cols = case[2], x.shape[1]
    kept = np.arange(cols) % step < 32
    if step == 32 or kept.all():
        return
    model_m, model_l = pairs(x[:, kept])
    if not np.allclose(m, model_m) or not np.allclose(sums, model_l, rtol=1e-3):
        return
    yield (f"each row's pair is that of its columns c % {step} < 32 alone (columns 0 to 31, "
           f"{step} to {step + 31}, ...; {int((~kept).sum())} of its {cols} columns never read): "
           f"each lane's column loop stepped by {step}, blockDim.x (the block's threads), not "
           "the warp's 32: one warp holds a row, so its 32 lanes cover the row 32 columns a step",
           "each lane of its warp takes every 32nd column: for (int c = lane; c < cols; c += 32)")


def _reads(cols, step):
    """How many of the 32 lanes read each column when lane l's loop reads l, l + ``step``, ...:
    the lanes l <= c with c - l a multiple of ``step``."""
    c, lanes = np.arange(cols)[:, None], np.arange(32)[None, :]
    return ((lanes <= c) & ((c - lanes) % step == 0)).sum(axis=1)


def steps_short_of_the_warp(x, sums):
    """The column loop stepped by less than the warp's 32 (c++, c += 16, ...): lane l + step
    starts at lane l's second column, so a column is read by several lanes and its exp(x - m)
    counted that many times in the row's sum (the max stays right)."""
    want_m, want_l = pairs(x)
    e = np.exp(x.astype(np.float64) - want_m[:, None])
    matched = [step for step in range(1, 32)
               if np.allclose(sums, (e * _reads(x.shape[1], step)).sum(axis=1), rtol=1e-3)]
    if len(matched) != 1:
        return
    step, cols, r = matched[0], x.shape[1], int(np.argmax(~np.isclose(sums, want_l, rtol=1e-3)))
    shown = f"row_sum[{r}] = {sums[r]:.6g}, where its {cols} columns give {want_l[r]:.6g}: "
    hint = ("the warp's 32 lanes share the row, each every 32nd column: for (int c = lane; c < "
            "cols; c += 32)")
    if step == 1:
        yield (f"{shown}each lane walked every column from its own to the end (its loop steps by "
               "1), so the lanes' columns overlap: column c was counted min(c + 1, 32) times", hint)
        return
    reads = _reads(cols, step)
    top, over = int(reads.max()), reads > 1
    which = (f"each column from {step} on was" if np.array_equal(over, np.arange(cols) >= step)
             else f"{int(over.sum())} of its {cols} columns were")
    yield (f"{shown}each lane's column loop stepped by {step}, not the warp's 32, so the lanes' "
           f"columns overlap: lane l + {step} starts at lane l's second column, and {which} read "
           f"by more than one lane, counted {'twice' if top == 2 else f'up to {top} times'} in "
           "the sum", hint)


def one_past_the_row(x, m, sums):
    """The column loop's bound c <= cols: lane cols % 32 also read in[cols], one past the row's
    end (the next row's first value; 0.0, the junk after x, for the last row)."""
    rows, cols = x.shape
    flat = np.append(x.ravel(), np.zeros(1, x.dtype)).astype(np.float64)
    model_m, model_l = pairs(flat[np.arange(rows)[:, None] * cols + np.arange(cols + 1)])
    if not np.allclose(m, model_m) or not np.allclose(sums, model_l, rtol=1e-3):
        return
    r = int(np.argmax(~np.isclose(sums, pairs(x)[1], rtol=1e-3)))
    yield (f"the column loop ran to c <= cols: lane {cols % 32} also read in[cols], one past the "
           f"row's end, the next row's first value (row {r}'s pair took in {flat[(r + 1) * cols]:g}"
           f", row_sum[{r}] = {sums[r]:.6g} where its {cols} columns give "
           f"{pairs(x)[1][r]:.6g})", "stop before cols: for (int c = lane; c < cols; c += 32); "
           "a row's columns are 0 to cols - 1")


def endless_merge(kernel, probe):
    """A launch stopped at the time limit that never ends even on a row of no columns
    (``probe``), where the column loop makes no turn: the loop that goes on for ever is the
    merge's (the simulator stops it, ``stopped``; only the simulator's launches stop)."""
    if stopped(Kernels(kernel, kernel), probe, key="no columns") is not None:
        yield ("the merge's loop never ends: the kernel did not finish even on a row of 0 "
               "columns, where the column loop makes no turn, so the butterfly's loop goes on for "
               "ever; with offset >= 0 as its condition it does: offset halves 16, 8, 4, 2, 1, "
               "then 0, and 0 / 2 is 0 again, still >= 0 (and a shuffle at offset 0 is a lane "
               "with itself)", "the butterfly stops after offset 1: for (int offset = 16; "
               "offset > 0; offset /= 2) (> 0, not >= 0); " + LOOP_HINT)
