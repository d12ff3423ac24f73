"""A loop of ``box_blur``'s tile load (``helpers.exercises.box_blur``) that makes one trip: each
thread loads only the tile row threadIdx.y (or column threadIdx.x), so the tile's last 2 RADIUS
rows (columns), past the block's, are never loaded (``one_trip``), told from the pixels that are
wrong and the loop's header in the kernel's text (``load_loop``); or NaN pixels no other mistake
explains (``never_loaded``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import kernel_words
from helpers.sim.compile.kernel_text import closing

AXES = (("y", "row", "rows", "ty", "BLOCK_Y", "TILE_Y", 1),
        ("x", "column", "columns", "tx", "BLOCK_X", "TILE_X", 0))


def load_loop(kernels, c):
    """(variable, bound, step) as written, of the first for loop of the kernel whose variable
    starts at threadIdx.c and runs while below a bound, stepped by +=; None where there is none
    or the text cannot be read."""
    source, tokens, words, body, end = kernel_words(kernels) or (None, None, [], 0, 0)
    for i in (i for i in range(body, end) if words[i:i + 2] == ["for", "("]):
        stop = closing(tokens, i + 1)
        semis = [j for j in range(i + 2, stop) if words[j] == ";"]
        if len(semis) != 2 or f"=threadIdx.{c}" not in "".join(words[i + 2:semis[0]]) or \
                "<" not in words[semis[0]:semis[1]] or words[semis[1] + 2:semis[1] + 3] != ["+="]:
            continue
        less, plus = words.index("<", semis[0]), semis[1] + 2
        text = [source[tokens[a].start:tokens[b].end] for a, b in
                ((less + 1, semis[1] - 1), (plus + 1, stop - 1))]
        return words[semis[1] + 1], *text
    return None


def _said(text, sides):
    """The loop's bound or step as written, with its value where it is one of ``sides``."""
    return f"{text} = {sides[text]}" if text in sides else text


def _value(text, sides):
    """The value of a loop's bound or step as written: a name of ``sides`` or a number."""
    return sides.get(text, int(text) if text.isdigit() else None)


def _why(kernels, axis, sides, nan):
    """Why each thread loaded only its own row (column) of the tile: its loop's step, its bound,
    or (the loop reading right, but the rows never loaded: NaN on the simulator) no more said."""
    c, what, _, _, step, bound, _ = axis
    found = load_loop(kernels, c)
    if found is not None and _value(found[2], sides) != sides[step]:
        var, _, by = found
        return (f"the loop over the tile's {what}s steps {var} by {_said(by, sides)}, so from "
                f"{var} = threadIdx.{c} it makes one trip")
    if found is not None and _value(found[1], sides) != sides[bound]:
        var, below, _ = found
        return (f"the loop over the tile's {what}s runs while {var} < {_said(below, sides)}, not "
                f"{bound} = {sides[bound]}, so from {var} = threadIdx.{c} it makes one trip")
    return f"the load made one trip over the tile's {what}s" if nan else None


def one_trip(got, want, kernels, block, radius):
    """The pixels wrong exactly where their windows reach the tile's rows (columns, or both) past
    the block's, BLOCK_Y to TILE_Y - 1, every one of them: each thread loaded only tile row
    threadIdx.y, its loop making one trip (its step or bound, read from the kernel's text)."""
    sides = {"BLOCK_X": block[0], "BLOCK_Y": block[1], "TILE_X": block[0] + 2 * radius,
             "TILE_Y": block[1] + 2 * radius, "blockDim.x": block[0], "blockDim.y": block[1]}
    lanes = np.indices(got.shape)[::-1]   # x, y: block[b]'s axis b
    for axes in ((AXES[0],), (AXES[1],), AXES):
        known = np.logical_and.reduce([lanes[b] % block[b] + 2 * radius < block[b]
                                       for *_, b in axes])
        if known.all() or not known.any() or \
                not np.array_equal(~np.isclose(got, want, rtol=1e-5, atol=1e-6), ~known):
            continue
        nan = bool(np.isnan(got[~known]).any())
        whys = [_why(kernels, axis, sides, nan) for axis in axes]
        if None in whys:
            return
        told = "; and ".join(
            f"{why}: each thread loaded only tile {what} threadIdx.{c}, and {lines} {block[b]} "
            f"to {block[b] + 2 * radius - 1} were never loaded"
            for why, (c, what, lines, *_, b) in zip(whys, axes))
        yield (f"{told}: {int((~known).sum())} pixels' windows read them" +
               " (NaN on the simulator, which fills shared memory with NaN)" * nan,
               "; ".join(f"the block has {step} = {block[b]} {lines} of threads, which between "
                         f"them load the tile's {bound} = {block[b] + 2 * radius} {lines}: step "
                         f"{v} by {step}, for (int {v} = threadIdx.{c}; {v} < {bound}; {v} += "
                         f"{step})" for c, _, lines, v, step, bound, b in axes))
        return


def never_loaded(got):
    """NaN pixels, no known mistake having named why: their windows read tile elements no thread
    loaded (the simulator fills shared memory with NaN)."""
    if np.isnan(got).any():
        yield (f"{int(np.isnan(got).sum())} pixels are NaN: their windows read tile elements no "
               "thread loaded (the simulator fills shared memory with NaN; a GPU leaves what was "
               "there)", "load every element of the tile: its loops run while ty < TILE_Y and "
               "tx < TILE_X, stepping by BLOCK_Y and BLOCK_X")
