"""The tile loop of notebook 14's tiled attention walked too few tiles, or scored no key in the
last ones: o is then the walk of fewer tiles, which a tile count short and a count of keys 0 or
less give alike. A launch on the simulator with n = 2 * TILE, whole tiles, tells them apart by the
tiles each block staged (its shared stores: Ks and Vs, a tile). A count of one tile written
n / TILE + (n % TILE) ? 1 : 0, whose ?: takes the whole sum as its condition, is named in the
kernel's own words."""

from __future__ import annotations

import numpy as np

from helpers.exercises.attention_tiles_models import D, TILE
from helpers.exercises.microscope import kernel_words, observe


def walked_too_few(kernels, n, got, inputs, model):
    """(problem, hint) of a walk of too few tiles, or of a last tile that scored no key
    (``model``: the checker's (launch, walk, close))."""
    yield from _last_tile_empty(kernels, n, got, inputs, model)
    yield from _one_tile_walked(kernels, n, got, inputs, model)


def _tiles_staged(kernels, model):
    """The tiles each block staged in a launch on the simulator with n = 2 * TILE, whole tiles,
    where o came out as the walk of the first tile alone; None where it did not."""
    launch, walk, close = model
    case = (2 * TILE, "observe")
    seen = observe(kernels, launch(case), key="whole tiles", racecheck=False)
    if seen.error is not None or not close(seen.outs[0].got.astype(np.float64),
                                           walk(*launch(case).model, tiles=1)):
        return None
    return seen.stats.shared_st.lanes / (seen.blocks * TILE * D * 2)


def _last_tile_empty(kernels, n, got, inputs, model):
    """The last tile skipped at this n, and at n = 2 * TILE too: not a tile count of n / TILE,
    which walks every whole tile, but the last tile's count of keys, 0 or less, taken with the
    number of tiles, not the tile's first key, where the launch staged both tiles, or a tile
    count one short, as (n - 1) / TILE gives, where it staged one."""
    whole, (_, walk, close) = n // TILE, model
    if not n % TILE or not close(got, walk(*inputs, tiles=whole)):
        return
    staged = _tiles_staged(kernels, model)
    if staged == 1:
        yield (f"the loop walked one tile too few, {whole} where the keys fill {whole + 1}: keys "
               f"{whole * TILE} to {n - 1} were never scored (and with n = {2 * TILE}, whole "
               f"tiles, keys {TILE} to {2 * TILE - 1} neither, one tile walked of 2), as a tile "
               "count of (n - 1) / TILE gives", "walk (n + TILE - 1) / TILE tiles, n / TILE "
               "rounded up: the + TILE - 1 reaches the next tile whenever n is not a multiple "
               "of TILE, and takes nothing off where it is")
    elif staged == 2:
        yield (f"the last tile scored no key: its count came out {n - (whole + 1) * TILE}, n - "
               f"tiles * TILE, where it holds the {n - whole * TILE} keys from its first, key "
               f"{whole * TILE}, on (with n = {2 * TILE}, whole tiles, the last scored none "
               "either, n - tiles * TILE being 0)", "every tile, the last too, counts the keys "
               "from its own first key: keys = min(TILE, n - tile * TILE)")


def _one_tile_walked(kernels, n, got, inputs, model):
    """The first tile's keys alone scored at this n and at n = 2 * TILE, where the launch staged
    one tile a block: the tile count came out 1 (not a count of keys 0 or less in the later
    tiles, which stages them all), named as a ?: that took the sum as its condition where the
    kernel has one."""
    _, walk, close = model
    if n <= TILE or not close(got, walk(*inputs, tiles=1)) or _tiles_staged(kernels, model) != 1:
        return
    walked = (f"the loop walked one tile, where the keys fill {-(-n // TILE)}: keys {TILE} to "
              f"{n - 1} were never scored")
    ternary = _sum_as_condition(kernels)
    if ternary is None:
        yield (f"{walked}: the tile count came out 1", "walk (n + TILE - 1) / TILE tiles, n / "
               "TILE rounded up")
        return
    name, condition, sides = ternary
    yield (f"{walked}: {name} = {condition} ? {sides} reads as {name} = ({condition}) ? {sides}, "
           f"as ?: binds more loosely than +: the whole sum is its condition, true for every n > "
           f"0, so {name} came out 1", "put the ?: in parentheses, n / TILE + (n % TILE ? 1 : "
           "0), or round up in integers: (n + TILE - 1) / TILE")


def _sum_as_condition(kernels):
    """(name, condition, "a : b") of the kernel body's first statement name = condition ? a : b
    whose ?: and a + before it stand outside every parenthesis (so the sum is its condition);
    None where there is none."""
    text = kernel_words(kernels)
    if text is None:
        return None
    source, tokens, words, body, end = text
    said = lambda a, b: " ".join(source[tokens[a].start:tokens[b].end].split())  # noqa: E731
    depth, eq, summed = 0, None, False
    for i in range(body + 1, end):
        word = words[i]
        depth += (word == "(") - (word == ")")
        if word in (";", "{", "}"):
            eq, summed = None, False
        elif depth == 0 and word == "=" and eq is None:
            eq = i
        elif depth == 0 and eq is not None and word == "+":
            summed = True
        elif depth == 0 and summed and word == "?":
            close = words.index(";", i, end)
            return words[eq - 1], said(eq + 1, i - 1), said(i + 1, close - 1)
    return None
