"""The races of ``box_blur``'s tile loads (``helpers.exercises.box_blur``) that the race check
finds, named from its fields and a trace of the tile's stores (``tile_races``); the tile declared
``extern __shared__`` (``extern_tile``)."""

from __future__ import annotations

from helpers.exercises.failure import extern_without_bytes
from helpers.exercises.microscope import observe


def extern_tile(failure, block, radius):
    """The tile declared ``extern __shared__ float tile[]``, whose size is the launch's dynamic
    shared memory, where the exercise's launch gives none: its first store lies outside it (blocks
    of ``block``, a halo of ``radius``)."""
    if extern_without_bytes(failure):
        err, side = failure.error, (block[1] + 2 * radius, block[0] + 2 * radius)
        yield ("the tile is declared extern __shared__ (extern __shared__ float tile[]): the size "
               "of such an array is the bytes of dynamic shared memory the launch gives, and this "
               "exercise's launch gives no bytes of dynamic shared memory, so the tile has no room "
               f"at all: thread {err.thread} of block {err.block} "
               f"{'wrote' if err.is_write else 'read'} outside it at {err.line}",
               "declare the tile with its size: __shared__ float tile[TILE_Y][TILE_X], "
               f"{side[0]} x {side[1]} floats, the block and RADIUS more on every side, and index "
               "it tile[ty][tx]")


def tile_races(error, block, radius, run):
    """Two threads of one row of the block, BLOCK_Y apart, that both stored one tile element: the
    loop over tx steps by BLOCK_Y. Two of one column, in different rows: the loop over ty started
    at 0 (``rows_from_0``). A tile row stored on the writer's second trip round the loop over ty,
    read by a thread that makes one: a barrier inside that loop (blocks of ``block``, a halo of
    ``radius``: the race check's ``error`` in ``run``, the case's launch)."""
    tile_x, tile_y = block[0] + 2 * radius, block[1] + 2 * radius
    if (error.kind, error.space, error.array) != ("race", "shared", "tile") or \
            error.first.block != error.second.block:
        return
    yield from rows_from_0(error, block, radius, run)
    (x1, y1, _), (x2, y2, _) = error.first.thread, error.second.thread
    if error.hazard == "write-after-write" and y1 == y2 and (x1 - x2) % block[1] == 0:
        yield (f"{error.summary}: threads {abs(x1 - x2)} apart in a row of the block stored the "
               "same tile element, so the loop over tx steps by BLOCK_Y",
               "a row of the block has BLOCK_X threads, which between them load BLOCK_X "
               "neighbouring columns of the tile: step tx by BLOCK_X (tx += BLOCK_X), and ty by "
               "BLOCK_Y")
    row = error.element // tile_x
    if error.hazard == "read-after-write" and row == y1 + block[1] and y2 + block[1] >= tile_y:
        yield (f"{error.summary}: tile row {row} was stored on thread ({x1}, {y1}, 0)'s second "
               f"trip round the loop over ty, which thread ({x2}, {y2}, 0) never makes ({y2} + "
               "BLOCK_Y >= TILE_Y): threads making two trips and one pass a __syncthreads() "
               "inside that loop a different number of times, so it no longer holds the readers "
               "back", "put the __syncthreads() after both loops, where every thread reaches it "
               "once, when the whole tile is loaded")


def rows_from_0(error, block, radius, run):
    """Two threads of one column of the block, in different rows, that both stored one tile
    element, where a trace of block 0 shows every row of threads storing the same tile rows, 0,
    BLOCK_Y, ...: the loop over the tile's rows, ty, started at 0, not at threadIdx.y."""
    (x1, y1, _), (x2, y2, _) = error.first.thread, error.second.thread
    tile_x, tile_y = block[0] + 2 * radius, block[1] + 2 * radius
    if error.hazard != "write-after-write" or x1 != x2 or y1 == y2:
        return
    kept = observe(run.kernel, run.launch, key="tile stores", accesses=4096,
                   racecheck=False).accesses
    if kept is None:
        return
    mine = kept[(kept["array"] == "tile") & kept["write"] & (kept["block"] == 0)]
    loaded = list(range(0, tile_y, block[1]))
    if any(set((mine["index"][mine["thread"] // block[0] == y] // tile_x).tolist()) != set(loaded)
           for y in range(block[1])):
        return
    never = " and ".join(f"{a + 1} to {b - 1}" if b - a > 2 else f"{a + 1}"
                         for a, b in zip(loaded, [*loaded[1:], tile_y]) if b - a > 1)
    rows = ", ".join(map(str, loaded[:-1])) + f" and {loaded[-1]}"
    yield (f"{error.summary}: every row of threads stored the same rows of the tile, {rows} "
           f"(thread ({x1}, {y1}, 0) and thread ({x2}, {y2}, 0), of one column, both stored tile "
           f"row {error.element // tile_x}, and a trace of block 0 shows every thread, whatever "
           "its threadIdx.y, storing those rows): the loop over ty starts at 0, not at "
           f"threadIdx.y, so tile rows {never} are never loaded",
           "start the loop over the tile's rows at the thread's row, as the loop over tx starts "
           "at its column: for (int ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)")
