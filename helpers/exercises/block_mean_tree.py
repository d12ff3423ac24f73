"""The models of a tree reduction in notebook 09's block mean (``helpers.exercises.block_mean``):
for (s = ...; s > 0; s /= 2) { if (t < s) tile[t] += tile[t + s]; __syncthreads(); }, which
leaves the block's sum in tile[0] and partial sums in the tile below the first s. Two ways a
speed-up by a tree goes wrong: y[i] taken from tile[t] after the tree had overwritten it
(``y_from_the_reduced_tile``), a tree that starts at count / 2, not BLOCK / 2, which drops the
last element at every odd length (``tree_from_count_half``), and a tree whose last steps one warp
runs in shared memory with no barrier, as if its lanes were in step (``last_warp_out_of_step``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.block_mean_models import BLOCK


def _counts(n):
    """The elements each block of a launch of n elements has."""
    return np.minimum(BLOCK, n - np.arange(-(-n // BLOCK)) * BLOCK)


def _reduced_tile(x, first, count, start):
    """Block's tile (its count elements of x from first, zeros after) after the tree from s =
    start down to 1, in float32 as the kernel adds."""
    tile = np.zeros(BLOCK, np.float32)
    tile[:count] = x[first:first + count]
    s = start
    while s > 0:
        tile[:s] += tile[s:2 * s]
        s //= 2
    return tile


def y_from_the_reduced_tile(x, got, want_y, means):
    """y[i] = tile[t] - mean, with tile as the tree from BLOCK / 2 left it: y right in the
    threads whose tile[t] the tree never adds into (t >= BLOCK / 2), wrong below."""
    n = x.size
    tiles = [_reduced_tile(x, b * BLOCK, c, BLOCK // 2) for b, c in enumerate(_counts(n))]
    model = np.concatenate(tiles)[:n] - np.repeat(means, BLOCK)[:n]
    close = np.isclose(got, want_y, rtol=1e-4, atol=1e-5)
    if close.all() or not np.allclose(got, model, rtol=1e-4, atol=1e-5):
        return
    i = int(np.argmax(~close))
    yield (f"y[{i}] = {got[i]:.6g}, NumPy's is {want_y[i]:.6g}: y[i] = tile[t] - mean read the "
           "tile after the tree reduction had overwritten it with partial sums (tile[t] += "
           "tile[t + s] for each t < s): tile[0] holds the block's sum, tile[1] to tile"
           f"[{BLOCK // 2 - 1}] sums of several elements; only threads {BLOCK // 2} to "
           f"{BLOCK - 1} of each block, whose tile[t] the tree never adds into, came out right",
           "take y's element from x, not from the tile: y[i] = x[i] - mean (or keep it in a "
           "register before the tree, float v = tile[t], and subtract the mean from v); the "
           "tree for the mean can stay")


def _halvings(count):
    """The lengths a tree from s = count / 2 leaves, count first, down to 1."""
    lengths = [int(count)]
    while lengths[-1] > 1:
        lengths.append(lengths[-1] // 2)
    return lengths


def tree_from_count_half(got, want, x, n):
    """Every mean as a tree from s = count / 2 gives: right where count is a power of 2, but at
    each odd length L the step s = L / 2 adds tile[s] to tile[2s - 1] and leaves tile[L - 1]
    out."""
    counts = _counts(n)
    model = np.array([_reduced_tile(x, b * BLOCK, c, c // 2)[0] / np.float32(c)
                      for b, c in enumerate(counts)], np.float32)
    close = np.isclose(got, want, rtol=1e-4, atol=1e-5)
    if close.all() or not np.allclose(got, model, rtol=1e-4, atol=1e-5):
        return
    b = int(np.argmax(~close))
    lengths = _halvings(counts[b])
    odd = next(length for length in lengths if length % 2 and length > 1)
    names = [f"tile[{length - 1}]" for length in lengths if length % 2 and length > 1]
    lost = ", ".join(names[:-1]) + " and " * (len(names) > 1) + names[-1]
    yield (f"means[{b}] = {got[b]:.6g}, but the mean of that block is {want[b]:.6g}: the tree "
           f"started at s = count / 2 = {counts[b] // 2} (block {b} has count = {counts[b]}), and "
           f"each step halves what is left, {' -> '.join(map(str, lengths))}; at an odd length "
           f"the last element is added by no thread (from {odd}, s = {odd // 2} adds tile"
           f"[{odd // 2}] to tile[{odd - 2}] into tile[0] to tile[{odd // 2 - 1}], and tile"
           f"[{odd - 1}] is left out), so the partial sums in {lost} never reached tile[0]. A "
           "tree from count / 2 is right only where count is a power of 2 (the full blocks)",
           "start the tree at BLOCK / 2, a power of 2: for (int s = BLOCK / 2; s > 0; s /= 2); "
           "the tile past count holds 0.0f (tile[t] = i < n ? x[i] : 0.0f), which adds nothing")


def last_warp_out_of_step(err):
    """(what happened, hint) where the race check (``err``) found a race on the tile between two
    lanes of one warp, and every hazard of the launch lies within a warp (``within_warps``; the
    planted bug 2's thread 0 reads the other warps' elements too): the tree's last steps run by
    one warp in shared memory with no barrier between them. None otherwise."""
    if getattr(err, "kind", None) != "race" or err.space != "shared" or not err.within_warps \
            or err.first.block != err.second.block \
            or err.first.thread[0] // 32 != err.second.thread[0] // 32:
        return None
    store, load = sorted((err.first, err.second), key=lambda a: not a.writes)
    return (f"a data race on {err.array}[{err.element}] (shared memory) between two lanes of one "
            f"warp: {store.who} writes it at {store.line}, and {load.who} reads it at "
            f"{load.line}, with no barrier between them (every hazard the race check found lies "
            "within a warp): the tree's last steps, which one warp runs alone, add in shared "
            "memory \"warp-synchronously\", relying on the lanes of a warp running in lockstep, "
            "and they are not kept in step (not since Volta): a lane reads a partial sum before "
            "the lane that adds into it has, or after",
            "finish the last steps with shuffles, in registers, as notebook 07's reduction does: "
            "in the first warp, float v = tile[t] + tile[t + 32]; then for (int offset = 16; "
            "offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset); and lane 0 "
            "holds the block's sum (or run the tree's loop, with its __syncthreads(), down to s = "
            "1)")
