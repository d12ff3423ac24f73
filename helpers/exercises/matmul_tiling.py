"""Mistakes of the tiled matrix multiplies' phase loop (matmul_wide's, matmul_bt's). The phase
count taken from a side of C, N or M, where K, the length of the dot products, belongs: each sum
cut after the phases that side needs; on a case that count is often K's rounded down, so a launch
of ``PROBE`` tells them apart. The threads outside C that skip their loads and barriers: C right
in every whole tile, wrong in the tiles at its edges."""

from __future__ import annotations

import numpy as np

PROBE = (40, 100, 31)
"""(M, K, N) of the launch that tells the sides apart at a tile of 16 or 32: the phases of N = 31
sum the first 32 k, those of M = 40 the first 48 (64 at 32), K's rounded down the first 96."""


def phases_from_a_side(got, cut, sizes, tile, probe, tile_name):
    """(problem, hint) where the sums stop after the phases that N (or M) needs, fewer than K
    needs. ``got``: C on a case of ``sizes`` (M, K, N); ``cut(c)``: C on that case with only the
    products k < c summed; ``probe(m, k, n)``: (C, its ``cut``) on a launch of those sizes, None
    where the launch crashed; ``tile``: the depth of a phase, ``tile_name`` its name in the code."""
    m, k, n = sizes
    need, phases = -(-k // tile), {"N": -(-n // tile), "M": -(-m // tile)}
    sides = [name for name, p in phases.items()
             if p < need and np.allclose(got, cut(tile * p), rtol=1e-4, atol=1e-4)]
    seen = probe(*PROBE) if sides else None
    for name in sides if seen is not None else ():
        shown = tile * -(-{"N": PROBE[2], "M": PROBE[0]}[name] // tile)
        if np.allclose(seen[0], seen[1](shown), rtol=1e-4, atol=1e-4):
            side, p = {"N": n, "M": m}[name], phases[name]
            left = k - tile * p
            yield (f"the phase count came from {name} = {side} ({p} phase{'s' * (p > 1)}), not "
                   f"from K = {k}, the length of the dot products ({need} phases): each sum left "
                   f"out its last {left} product{'s' * (left > 1)} (a launch of M = {PROBE[0]}, "
                   f"K = {PROBE[1]}, N = {PROBE[2]} summed only the first {shown} of "
                   f"{PROBE[1]})", "the phases run along k, over K: phase < (K + "
                   f"{tile_name} - 1) / {tile_name}, rounded up")


def result_of(run):
    """C from ``run``, an exercise's run of one launch (a generator, as ``KernelExercise.run``):
    None where the launch showed a mistake of its own (a crash) before returning."""
    try:
        next(run)
    except StopIteration as stop:
        return None if stop.value is None else stop.value.out.got
    return None


def edge_threads_skipped_loads(bad, tile, other="B", unloaded=lambda: True):
    """(problem, hint) where C is right in every whole tile (``tile``: the rows and columns of C
    a block computes) and wrong (``bad``) only in the tiles at its edges, whose blocks have threads
    outside C: those threads skipped their loads and barriers. ``other``: the second matrix;
    ``unloaded()``: whether tile elements no thread loaded showed (asked only on such a C)."""
    rows, cols = tile
    whole = np.zeros(bad.shape, bool)
    whole[:bad.shape[0] // rows * rows, :bad.shape[1] // cols * cols] = True
    if whole.any() and bad.any() and not bad[whole].any() and unloaded():
        yield (f"C is right in every whole {rows} x {cols} tile and wrong in {int(bad.sum())} "
               "elements of the tiles at its edges, whose blocks have threads outside C (row >= M "
               "or col >= N): those threads skipped their loads into As and Bs and the "
               "__syncthreads() (a return before the phase loop, or the loop inside if (row < M "
               "&& col < N)), so the others read elements nobody loaded",
               f"every thread of the block loads its elements of both tiles (0.0f outside A or "
               f"{other}, as the loads' guards give) and reaches each __syncthreads(), even one "
               "outside C: guard only the store, if (row < M && col < N) C[row * N + col] = sum;")
