"""A tile loaded by a flat loop over the block's threads whose split of the flat index is wrong,
read from the index an overrun of the tile stopped at (``ArrayBoundsError``'s fields).

A block of BX x BY threads loads a TY x TX tile (larger than the block: it has a halo) with
``for (int k = threadIdx.y * BX + threadIdx.x; k < TX * TY; k += BX * BY)``, element k at
``tile[k / TX][k % TX]``. Split by another number (``k / BX``, the block's width where the
tile's belongs), k's row runs past the tile's last one before k reaches TX * TY. Thread (x, y)
stops at the first of its k whose row is past the tile: where the bounds check's index is that
row, and the thread's earlier k all stayed inside, the split is named.
"""

from __future__ import annotations

NAMES = ("BLOCK_X", "BLOCK_Y", "TILE_X", "TILE_Y")
"""What the exercise calls the block's width and height and the tile's, by default."""


def splits(block, tile, names):
    """(row of k, the split as the verdict writes it) of each wrong split: k over the block's
    width or height or the tile's height; ``names`` gives BX, BY, TX, TY as the exercise calls
    them. (Not k % TX for the row, row and column swapped: its thread (8, 0) stops at row 12,
    where a window read tile[x + dx][y + dy] stops too.)"""
    (bx, by), (ty, tx) = block[:2], tile
    for d, name in zip((bx, by, ty), (names[0], names[1], names[3])):
        if d != tx:
            yield (lambda k, d=d: k // d), f"ty = k / {name}, tx = k % {name}"


def overrun(err, block, tile, names=NAMES):
    """(k, the split) of the flat load whose first k past the tile's rows gives ``err``'s index
    (an overrun of the tile's rows by thread ``err.thread``), or None."""
    (bx, by), (ty, tx) = block[:2], tile
    if getattr(err, "kind", None) != "array bounds" or err.thread is None or err.length != ty:
        return None
    x, y = err.thread[:2]
    steps = range(y * bx + x, tx * ty, bx * by)
    for row, split in splits(block, tile, names):
        first = next((k for k in steps if row(k) >= ty), None)
        if first is not None and row(first) == err.element:
            return first, split
    return None


def mistakes(err, block, tile, names=NAMES):
    """(problem, hint) of a flat load loop whose split of k ran past the tile's rows (``err``)."""
    found = overrun(err, block, tile, names)
    if not found:
        return
    (k, split), (x, y), (ty, tx), (nbx, nby, ntx, nty) = found, err.thread[:2], tile, names
    yield (f"the flat loop that loads the tile splits its index as {split}: thread ({x}, {y}, 0)'s "
           f"k = {k} gave tile row {err.element}, past the tile's {ty} rows, before k reached "
           f"{ntx} * {nty} = {tx * ty}: a row of the tile is {ntx} = {tx} elements long",
           f"split the flat index by the tile's width: ty = k / {ntx}, tx = k % {ntx} (the loop "
           f"stays k < {ntx} * {nty}, k += {nbx} * {nby})")
