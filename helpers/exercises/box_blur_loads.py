"""Models of ``box_blur``'s tile loaded wrongly (``helpers.exercises.box_blur``), from what the
kernel gave: each block's tile of ``block`` plus a halo of ``radius`` pixels on every side, loaded
by the loops ``for (ty = threadIdx.y; ty < TILE_Y; ty += BLOCK_Y)`` and the same over tx (the
races of those loops that the race check finds: ``box_blur_models.tile_races``)."""

from __future__ import annotations

import itertools

import numpy as np


def _wrong(got, want):
    return ~np.isclose(got, want, rtol=1e-5, atol=1e-6)


def late_start(got, want, block, radius):
    """The pixels of each block's first k rows or columns wrong, and only they: the tile's first
    k rows or columns, which their windows alone reach, not loaded (the loop over ty or tx
    starting at threadIdx.y + k or threadIdx.x + k)."""
    wrong, (y, x) = _wrong(got, want), np.indices(got.shape)
    for k in range(1, radius + 1):
        for v, axis, lane, c, size, step in (
                ("tx", "columns", x % block[0], "x", "TILE_X", "BLOCK_X"),
                ("ty", "rows", y % block[1], "y", "TILE_Y", "BLOCK_Y")):
            if (wrong == (lane < k)).all():
                first = f"first {k} {axis}" if k > 1 else f"first {axis[:-1]}"
                yield (f"the tile's {first} {'were' if k > 1 else 'was'} not loaded: the pixels "
                       f"in the {first} of each block, whose windows alone reach "
                       f"{'them' if k > 1 else 'it'}, are wrong "
                       f"({wrong.sum()} of {wrong.size}), all others right", f"each thread "
                       f"starts at its own {axis[:-1]} of the tile: for (int {v} = threadIdx.{c}; "
                       f"{v} < {size}; {v} += {step})")


def own_slot_blur(image, block, radius):
    """The blur of a kernel that stores every load at its own slot, tile[threadIdx.y][threadIdx.x]
    (not the loop's tile[ty][tx]): that slot holds its thread's last load, (x0 + the last tx,
    y0 + the last ty), and the slots past the block's size are never stored (NaN here)."""
    (h, w), (bw, bh), side = image.shape, block[:2], 2 * radius + 1
    j, i = np.indices((bh, bw))
    last_y, last_x = (j + (bh + 2 * radius - 1 - j) // bh * bh,
                      i + (bw + 2 * radius - 1 - i) // bw * bw)
    out = np.zeros((-(-h // bh) * bh, -(-w // bw) * bw))
    for by, bx in itertools.product(range(out.shape[0] // bh), range(out.shape[1] // bw)):
        tile = np.full((bh + 2 * radius, bw + 2 * radius), np.nan)
        tile[j, i] = image[np.clip(by * bh - radius + last_y, 0, h - 1),
                           np.clip(bx * bw - radius + last_x, 0, w - 1)]
        out[by * bh:(by + 1) * bh, bx * bw:(bx + 1) * bw] = sum(
            tile[j + dy, i + dx] for dy in range(side) for dx in range(side))
    return (out[:h, :w] / side ** 2).astype(np.float32)


def stored_at_own_slot(image, got, want, block, radius):
    """The loads stored at tile[threadIdx.y][threadIdx.x]: every pixel whose window lies in the
    slots stored is that model's, and some of them wrong; the others read slots never stored
    (NaN on the simulator, what shared memory held on a GPU)."""
    model = own_slot_blur(image, block, radius)
    known = ~np.isnan(model)
    if not known.any() or _wrong(got[known], model[known]).any() or \
            not _wrong(model[known], want[known]).any():
        return
    nan = " (NaN on the simulator)" if np.isnan(got[~known]).any() else ""
    yield ("each thread stored every pixel it loaded at its own slot, tile[threadIdx.y]"
           "[threadIdx.x], not at the loop's tile[ty][tx]: that slot kept only its last load (a "
           "thread making two trips overwrote its first), and the tile's last 2 * RADIUS rows and "
           f"columns were never stored, so {int((~known).sum())} pixels' windows read elements no thread "
           f"loaded{nan}", "store each load where the loops say, tile[ty][tx] = in[...], with ty "
           "and tx the loops' indices (threadIdx.y and threadIdx.x are only where they start)")


def not_shared(kernels, launch, most_loads):
    """On the simulator (``launch``, the first image's, race-checked and traced): a kernel that
    never touched shared memory (its trace counted no shared load or store) though it loaded the
    image as a tile does (at most ``most_loads`` global load requests a warp, where a window
    read from global memory makes (2 RADIUS + 1)^2): the tile declared without ``__shared__``,
    an array of each thread's own, of which each thread loaded only its own elements."""
    from helpers.exercises.microscope import observe

    seen = observe(kernels, launch)
    stats, warps = seen.stats, seen.blocks * -(-int(np.prod(seen.block)) // 32)
    if stats is not None and not (stats.shared_ld.requests or stats.shared_st.requests) and \
            0 < stats.global_ld.requests <= most_loads * warps:
        yield ("the kernel never touched shared memory (the simulator's trace counted no shared "
               "load or store): tile, declared without __shared__, is an array of each thread's "
               "own, so each thread loaded only its own elements of its copy, and its window "
               "read elements that no thread had loaded into it", "declare it __shared__ float "
               "tile[TILE_Y][TILE_X]: one tile for the whole block, which its threads load "
               "between them and, after the __syncthreads(), all read")


def tiled(image, block, radius, x0=None, y0=None, window=None, offsets=None):
    """What a tiled blur (blocks of ``block``, a halo of ``radius``) gives whose tile[ty][tx] holds the pixel (x0 + tx, y0 + ty), clamped,
    x0 and y0 functions of (blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y) of the thread that
    loads it (the solution's by default), and whose thread reads its window from tile[wy + dy][wx
    + dx], (wx, wy) = window(the same of the thread; its own threadIdx.x, threadIdx.y by
    default), over the (dy, dx) of ``offsets`` (every pair by default); None where a window
    leaves the tile."""
    (h, w), (bw, bh), side = image.shape, block[:2], 2 * radius + 1
    x0 = x0 or (lambda bx, by, i, j: bx * bw - radius)
    y0 = y0 or (lambda bx, by, i, j: by * bh - radius)
    window = window or (lambda bx, by, i, j: (i, j))
    (ty, tx), (ly, lx) = np.indices((bh + 2 * radius, bw + 2 * radius)), np.indices((bh, bw))
    out = np.zeros((-(-h // bh) * bh, -(-w // bw) * bw))
    for by, bx in itertools.product(range(out.shape[0] // bh), range(out.shape[1] // bw)):
        tile = image[np.clip(y0(bx, by, tx % bw, ty % bh) + ty, 0, h - 1),
                     np.clip(x0(bx, by, tx % bw, ty % bh) + tx, 0, w - 1)].astype(np.float64)
        wx, wy = np.broadcast_arrays(*window(bx, by, lx, ly))
        if min(wx.min(), wy.min()) < 0 or wx.max() >= bw or wy.max() >= bh:
            return None
        out[by * bh:(by + 1) * bh, bx * bw:(bx + 1) * bw] = sum(
            tile[wy + dy, wx + dx] for dy, dx in offsets or itertools.product(range(side),
                                                                               repeat=2))
    return (out[:h, :w] / side ** 2).astype(np.float32)


def diagonal(image, block, radius):
    """(result, problem, hint) of a window whose row and column took the same offset,
    tile[threadIdx.y + dy][threadIdx.x + dy] (dy for dx; dx for dy gives the same): the
    2 * radius + 1 pixels of the tile's diagonal from the window's corner, each read
    2 * radius + 1 times."""
    side, right = 2 * radius + 1, tiled(image, block, radius)
    model = tiled(image, block, radius, offsets=[(d, d) for d in range(side) for _ in range(side)])
    yield (model, f"each pixel's window was the tile's diagonal from its corner, each of its "
           f"{side} pixels read {side} times: the row and the column took the same offset, "
           "tile[threadIdx.y + dy][threadIdx.x + dy] (dy where dx belongs; or dx in both), so "
           f"pixel (0, 0) came out {model[0, 0]:.4f}, its blur {right[0, 0]:.4f}",
           "the column's offset is dx: tile[threadIdx.y + dy][threadIdx.x + dx], dy and dx from "
           "0 to 2 * RADIUS")


def origin_shifted(image, block, radius):
    """(result, problem, hint) of a tile whose origin is shifted by (sx, sy) pixels: x0 =
    blockIdx.x * BLOCK_X - RADIUS + sx (sx = RADIUS: - RADIUS left out), each pixel the blur of
    the pixel at (x + sx, y + sy) (the model: the tiled kernel with that origin; sx = 2 * RADIUS:
    + RADIUS, its sign slipped)."""
    (bw, bh), origins = block[:2], {"x0": "blockIdx.x * BLOCK_X", "y0": "blockIdx.y * BLOCK_Y"}
    for sy, sx in ((0, 1), (1, 0), (1, 1), (0, -1), (-1, 0), (-1, -1), (0, radius), (radius, 0),
                   (radius, radius), (0, 2 * radius), (2 * radius, 0), (2 * radius, 2 * radius)):
        shifts = [(name, k) for name, k in (("x0", sx), ("y0", sy)) if k]
        said = " and ".join(f"{name} = {origins[name]}" + (
            "" if k == radius else " + RADIUS" if k == 2 * radius else
            f" - RADIUS {'+' if k > 0 else '-'} {abs(k)}") for name, k in shifts)
        left_out = (", - RADIUS left out" if all(k == radius for _, k in shifts) else
                    ", RADIUS added where it is subtracted" if all(k == 2 * radius for _, k
                                                                   in shifts) else "")
        yield (tiled(image, block, radius, x0=lambda bx, by, i, j, k=sx: bx * bw - radius + k,
                     y0=lambda bx, by, i, j, k=sy: by * bh - radius + k),
               f"each pixel got the blur of the pixel at (x{sx:+d}, y{sy:+d}): the tile's origin "
               f"was {said}{left_out}: the tile, and every window read from it, sits "
               f"{_moved(sx, sy)} of where it belongs",
               " and ".join(f"{name} = {origins[name]} - RADIUS" for name, _ in shifts) +
               ": tile[0][0] is the pixel RADIUS columns left of and RADIUS rows above the "
               "block's first, and this thread's own pixel is tile[threadIdx.y + RADIUS]"
               "[threadIdx.x + RADIUS]")


def _moved(sx, sy):
    """How far a pixel moved, in words: '2 right and 2 down'."""
    return " and ".join(f"{abs(k)} {(left, right)[k > 0]}" for k, left, right in
                        ((sx, "left", "right"), (sy, "up", "down")) if k)


def clamped_short(image, blur):
    """(result, problem, hint) of clamp_index given the last index, n - 1, for the rows and the
    columns, the columns only, or the rows only: that row or column of the image never loaded (``blur``:
    box_blur.reference, its ``clamps`` the n each is clamped to)."""
    (h, w), both = image.shape, "clamp_index(x0 + tx, width), clamp_index(y0 + ty, height)"
    yield (blur(image, clamps=(h - 1, w - 1)), "the image's last row and column were never "
           "loaded: the tile's pixels there came from the ones before (n - 2)",
           f"clamp_index's n is the size: {both}")
    for clamps, what, c, n, last in (((h, w - 1), "column", "x", "width", w - 1),
                                     ((h - 1, w), "row", "y", "height", h - 1)):
        yield (blur(image, clamps=clamps), f"the image's last {what} ({c} = {last}) was never "
               f"loaded: the tile was loaded with clamp_index({c}0 + t{c}, {n} - 1), which stops "
               f"at {n} - 2 = {last - 1}, so the windows that reach the {what} {c} = {last} read "
               f"the {what} before it", f"clamp_index's n is the size: clamp_index({c}0 + t{c}, "
               f"{n}) (it clamps to {n} - 1 itself)")


def flat_clamped(image, radius):
    """(result, problem, hint) of a tile whose pixel's flat index was clamped to the image's,
    clamp_index((y0 + ty) * width + (x0 + tx), width * height): a column outside the image wraps
    into the row before or after, only the rows before the first and past the last clamped."""
    (h, w), flat, side = image.shape, image.ravel().astype(np.float64), 2 * radius + 1
    y, x = np.indices(image.shape)
    total = sum(flat[np.clip((y + dy) * w + x + dx, 0, h * w - 1)]
                for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1))
    yield ((total / side ** 2).astype(np.float32), "the tile's pixels were clamped as one flat "
           "index, clamp_index((y0 + ty) * width + (x0 + tx), width * height): a column left or "
           "right of the image wraps into the neighbouring row (x = -1 of row y is read as x = "
           "width - 1 of row y - 1, x = width as x = 0 of row y + 1), and only the rows above "
           "and below the whole image are clamped", "clamp the row and the column each: "
           "in[clamp_index(y0 + ty, height) * width + clamp_index(x0 + tx, width)]")


def clamped_before_offset(image, block, radius, junk):
    """(result, problem, hint) of a tile whose origin was clamped before tx (or ty) was added,
    clamp_index(x0, width) + tx: the left (top) edge's tiles sit ``radius`` columns (rows) off,
    and the right (bottom) ones read past the row (the image) into the next row or the input's
    spare elements of ``junk`` after it."""
    (h, w), (bw, bh), side = image.shape, block[:2], 2 * radius + 1
    flat = np.concatenate([image.ravel(), np.full((bh + 2 * radius) * (w + 2 * radius), junk,
                                                  np.float32)]).astype(np.float64)
    ty, tx = np.indices((bh + 2 * radius, bw + 2 * radius))
    for axis, rows, cols, (n, t, size, b, length), far, edges in (
            ("columns", lambda y0: np.clip(y0 + ty, 0, h - 1), lambda x0: max(x0, 0) + tx,
             ("x0", "tx", "width", bw, w), "columns up to {} of a row of {}, past its end, into "
             "the next row (past the image, in the last row)", ("left", "right", "right")),
            ("rows", lambda y0: max(y0, 0) + ty, lambda x0: np.clip(x0 + tx, 0, w - 1),
             ("y0", "ty", "height", bh, h), "rows up to {} of an image of {}, past its end",
             ("top", "bottom", "below"))):
        out = np.zeros((-(-h // bh) * bh, -(-w // bw) * bw))
        for by, bx in itertools.product(range(out.shape[0] // bh), range(out.shape[1] // bw)):
            tile = flat[rows(by * bh - radius) * w + cols(bx * bw - radius)]
            out[by * bh:(by + 1) * bh, bx * bw:(bx + 1) * bw] = sum(
                tile[dy:dy + bh, dx:dx + bw] for dy, dx in itertools.product(range(side), repeat=2))
        model, right = (out[:h, :w] / side ** 2).astype(np.float32), tiled(image, block, radius)
        last = max(-(-length // b) * b - b - radius, 0) + b + 2 * radius - 1  # the last tile's end
        past = f", and the {edges[1]} edge's tiles read {far.format(last, length)}" * (last >= length)
        yield (model, f"the tile's {axis} were clamped before {t} was added, clamp_index({n}, "
               f"{size}) + {t}: the {edges[0]} edge's tiles ({n} = -{radius}, clamped to 0) sit "
               f"{radius} {axis} {edges[2]} of where they belong{past}: pixel (x=0, y=0) came "
               f"out {model[0, 0]:.4f}, its blur {right[0, 0]:.4f}", f"clamp the pixel's "
               f"{axis[:-1]}, after adding {t}: clamp_index({n} + {t}, {size})")


def tile_steps(image, block, radius):
    """(result, problem, hint) of a tile's origin that steps by another length than its block's
    side: the tile's side, blockIdx.x * TILE_X - RADIUS (or the same down the rows), where the
    blocks' pixels lie BLOCK_X apart; or the block's other side, blockIdx.y * BLOCK_X - RADIUS
    (blocks of ``block``, a halo of ``radius``)."""
    sides = {"BLOCK_X": block[0], "BLOCK_Y": block[1], "TILE_X": block[0] + 2 * radius,
             "TILE_Y": block[1] + 2 * radius}
    for name, step, side, what, lines in (("x0", "TILE_X", "BLOCK_X", "column", "columns"),
                                          ("y0", "TILE_Y", "BLOCK_Y", "row", "rows"),
                                          ("x0", "BLOCK_Y", "BLOCK_X", "column", "columns"),
                                          ("y0", "BLOCK_X", "BLOCK_Y", "row", "rows")):
        model = tiled(image, block, radius, **{name: lambda bx, by, i, j, k=sides[step]: (
            bx, by)[name == "y0"] * k - radius})
        right = f"{name} = blockIdx.{name[0]} * {side} - RADIUS"
        if step.startswith("TILE"):
            yield (model, f"the tile's origin {name} stepped by {step}, the tile's side, from "
                   f"block to block, where the blocks' pixels lie {side} apart: block b's pixels "
                   f"got the blur of the pixels 2 * RADIUS * b {lines} further on (right in the "
                   "first block only)", "the tiles overlap by their halos, but the blocks do "
                   f"not: {right}")
            continue
        apart, b = sides[step] - sides[side], f"blockIdx.{name[0]} = b"
        yield (model, f"the tile's {what} origin {name} was scaled by {step} ({sides[step]}) "
               f"where {side} ({sides[side]}) belongs: the tile of the blocks "
               f"with {b} starts {sides[step]} * b {lines} in while their pixels lie "
               f"{sides[side]} * b {lines} in, so they got the blur of the pixels {abs(apart)} * "
               f"b {lines} {'further on' if apart > 0 else 'back'} (clamped to the image; right "
               f"where b = 0 only)", f"a block is BLOCK_X wide and BLOCK_Y tall: {right}")


def halo_on_one_side(failure, block, radius):
    """An index into tile past a side of BLOCK + RADIUS: the tile declared with the halo on one
    side only (TILE_X = BLOCK_X + RADIUS), where the window reaches RADIUS past the block on
    both (BLOCK_X + 2 * RADIUS)."""
    err = failure.error
    if failure.kind != "array bounds" or err.thread is None or err.block is None:
        return
    for b, c, what, sides in ((0, "X", "column", "left and right"),
                              (1, "Y", "row", "above and below")):
        if err.length == block[b] + radius:
            size = ("'s rows are TILE_X", "floats long") if b == 0 else (" has TILE_Y", "rows")
            yield (f"tile{size[0]} = {err.length} {size[1]}, BLOCK_{c} + RADIUS: the halo "
                   f"counted on one side only, where the window reaches RADIUS past the block "
                   f"{sides}, BLOCK_{c} + 2 * RADIUS = {block[b] + 2 * radius}: thread "
                   f"{err.thread} of block {err.block} read tile {what} {err.element} at line "
                   f"{str(err.line).rsplit(':', 1)[-1]}", "the halo is RADIUS on every side: "
                   "#define TILE_X (BLOCK_X + 2 * RADIUS) and TILE_Y (BLOCK_Y + 2 * RADIUS)")


def _load_loops(kernels):
    """{the word a for loop steps by (its += operand): the word its condition's < compares with}
    over the kernel's text; {} where it cannot be read."""
    from helpers.exercises.microscope import kernel_words
    from helpers.sim.compile.kernel_text import closing

    _, tokens, words, body, end = kernel_words(kernels) or (None, None, [], 0, 0)
    headers = [words[i + 2:closing(tokens, i + 1)] for i in range(body, end)
               if words[i] == "for" and words[i + 1] == "("]
    return {h[h.index("+=") + 1]: h[h.index("<") + 1] for h in headers
            if "<" in h[:-1] and "+=" in h[:-1]}


def rows_past_the_tile(failure, block, radius):
    """An index into the tile's rows (its fields: TILE_Y rows declared) at threadIdx.y plus a
    whole number of BLOCK_Y steps, past the last row, where the loop stepping by BLOCK_Y runs
    while below another bound than TILE_Y (TILE_X: the two loops' bounds swapped)."""
    err, (tx, ty) = failure.error, (block[0] + 2 * radius, block[1] + 2 * radius)
    if failure.kind != "array bounds" or err.thread is None or err.length != ty or \
            not err.element >= ty or (err.element - err.thread[1]) % block[1] or \
            (bound := _load_loops(failure.kernel).get("BLOCK_Y", "TILE_Y")) == "TILE_Y":
        return
    swapped = _load_loops(failure.kernel).get("BLOCK_X") == "TILE_Y"
    yield (f"thread {err.thread} of block {err.block} reached tile row {err.element} at line "
           f"{str(err.line).rsplit(':', 1)[-1]}, past the tile's {ty} rows: the loop over the rows "
           f"(ty += BLOCK_Y) runs while ty < {bound}" + (
               f" ({tx}), and the one over the columns (tx += BLOCK_X) while tx < TILE_Y ({ty}): "
               f"the bounds swapped, so the load also leaves the tile's columns from {ty} on "
               "unloaded" if swapped else ", not TILE_Y"),
           "rows go to TILE_Y and columns to TILE_X: for (int ty = threadIdx.y; ty < TILE_Y; "
           "ty += BLOCK_Y) for (int tx = threadIdx.x; tx < TILE_X; tx += BLOCK_X)")


def sides_swapped(failure, block, radius):
    """An index into a tile row of TILE_Y floats (its fields: the innermost size declared, the
    index) at a column TILE_Y to TILE_X - 1: the tile declared [TILE_X][TILE_Y], its sides
    swapped, while it is indexed tile[row][column] with columns up to TILE_X - 1."""
    err, (tx, ty) = failure.error, (block[0] + 2 * radius, block[1] + 2 * radius)
    if failure.kind != "array bounds" or err.thread is None or err.block is None or \
            getattr(err, "declared", None) != f"float [{ty}]" or not ty <= err.element < tx:
        return
    yield (f"tile was declared with its sides swapped, [TILE_X][TILE_Y]: its rows are TILE_Y = "
           f"{ty} floats long, but it is indexed tile[row][column] with columns up to TILE_X - 1 "
           f"= {tx - 1}: thread {err.thread} of block {err.block} reached column {err.element} "
           f"at line {str(err.line).rsplit(':', 1)[-1]} (a column past {ty - 1} runs into the "
           f"next row: tile[0][{ty}] is tile[1][0], so the rows overlap)", "declare it rows "
           "first, as it is indexed: __shared__ float tile[TILE_Y][TILE_X] (TILE_Y rows of "
           "TILE_X floats)")


def _runs(values) -> str:
    """Sorted integers as runs, "32 to 35 and 68 to 71" (past three, the first three and "...")."""
    runs = np.split(values, np.flatnonzero(np.diff(values) != 1) + 1)
    said = [f"{r[0]} to {r[-1]}" if r.size > 1 else f"{r[0]}" for r in runs[:3]]
    if len(runs) > 3:
        return ", ".join(said) + ", ..."
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)


def steps_by_the_tile(got, want, written, grid, radius):
    """The output's column x = blockIdx.x * TILE_X + threadIdx.x (or its row with TILE_Y): it
    steps from block to block by the tile's side, the block and its halo, where the blocks'
    pixels lie BLOCK_X (BLOCK_Y) apart: the pixels ``written`` are exactly those it reaches. Said
    too where each holds the blur of the pixel the block's tile was loaded for (blockIdx * 2
    RADIUS before it)."""
    (bx, by), (gx, gy) = grid.block[:2], grid.grid
    axes = (("x", "X", "columns", "width", grid.width, bx, gx, "(1, 0)"),
            ("y", "Y", "rows", "height", grid.height, by, gy, "(0, 1)"))
    for steps in ((True, False), (False, True), (True, True)):
        to, said = [], []
        for step, (c, C, lines, side, n, b, g, second) in zip(steps, axes):
            place = np.arange(g)[:, None] * b + np.arange(b)
            moved = (place + np.arange(g)[:, None] * 2 * radius * step).ravel()
            keep = moved < n
            to.append((moved[keep], place.ravel()[keep]))
            missed = np.setdiff1d(np.arange(n), moved)
            if step and g > 1 and missed.size:
                said.append(f"block {second}'s pixels start at {c} = {b + 2 * radius}, not {b}: "
                            f"{c} = blockIdx.{c} * TILE_{C} + threadIdx.{c} steps from one block "
                            f"to the next by TILE_{C} = {b + 2 * radius}, the tile's {side} (the "
                            f"block and its halo), where it steps by BLOCK_{C} = {b}, the pixels "
                            f"a block computes, so {lines} {_runs(missed)} got no thread")
        mask = np.zeros(written.shape, bool)
        mask[np.ix_(to[1][0], to[0][0])] = True
        if len(said) != sum(steps) or not np.array_equal(written, mask):
            continue
        blur = np.allclose(got[np.ix_(to[1][0], to[0][0])], want[np.ix_(to[1][1], to[0][1])],
                           rtol=1e-5, atol=1e-6)
        c, b = ("x", bx) if steps[0] else ("y", by)
        yield ("; and ".join(said) + (f"; and the pixels written hold the blur of others, from "
                                      "where their block's tile was loaded: the pixel written at "
                                      f"{c} = {b + 2 * radius} holds the blur of {c} = {b}") * blur,
               "a block computes BLOCK_X x BLOCK_Y pixels; its tile is wider and taller by the "
               "halo, but the blocks' pixels do not overlap: " + ", ".join(
                   f"{c} = blockIdx.{c} * BLOCK_{C} + threadIdx.{c}"
                   for step, (c, C, *_) in zip(steps, axes) if step))
        return
