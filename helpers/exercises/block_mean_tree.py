"""The models of a tree reduction in notebook 09's block mean (``helpers.exercises.block_mean``):
for (s = ...; s > 0; s /= 2) { if (t < s) tile[t] += tile[t + s]; __syncthreads(); }, which
leaves the block's sum in tile[0] and partial sums in the tile below the first s. A way a
speed-up by a tree goes wrong: y[i] taken from tile[t] after the tree had overwritten it
(``y_from_the_reduced_tile``)."""

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

