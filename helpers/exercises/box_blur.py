"""Checker for the exercise in notebook 06: ``cuda_src/exercises/box_blur.cu``, the average of
the (2R + 1)^2 pixels around each pixel (R = ``RADIUS``, clamped to the image) through a shared
tile with a halo of R pixels around its 32 x 8 block. The first image also runs on the simulator,
race-checked and traced. Wrong pixels are matched with known mistakes, then with models of tiled
kernels whose tile's origin or window comes from another index (``_tiled``) or whose window spans
other rows or columns, then located."""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import box_blur_index, box_blur_models, flat_split, near, speed
from helpers.exercises.box_blur_one_trip import never_loaded, one_trip
from helpers.exercises.box_blur_loads import (clamped_before_offset, clamped_short, diagonal,
                                              flat_clamped, halo_on_one_side, late_start,
                                              not_shared, origin_shifted, rows_past_the_tile,
                                              sides_swapped, steps_by_the_tile, stored_at_own_slot,
                                              tile_steps, tiled)
from helpers.exercises.common import Input, Output, close
from helpers.exercises.coverage import (Grid, Words, column_guard_only, never_written,
                                        past_the_end, reached)
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import body_words, kernel_words, observe, race_mistake
from helpers.exercises.verdict import matches

RADIUS, BLOCK = 2, (32, 8, 1)
WINDOW = range(-RADIUS, RADIUS + 1)  # the offsets of the window's rows, and of its columns
TILE_Y, TILE_X = BLOCK[1] + 2 * RADIUS, BLOCK[0] + 2 * RADIUS  # the block and its halo
CASES = [Grid(45, 77, BLOCK), Grid(17, 40, BLOCK), Grid(2, 3, BLOCK)]
"""The images: odd sides, overhanging blocks, one image smaller than the window."""
JUNK = np.float32(1000.0)  # the spare rows around the input: far from any pixel (in [0, 1))
MAX_GLOBAL_LOADS_PER_WARP, MAX_CONFLICTS = (2 * RADIUS + 1) ** 2 / 2, 0.5
"""What FAST allows on the simulator: a warp of the tiled kernel makes about 3 global load requests,
one loading its window 25; one reading a tile row has no bank conflicts, down a column several."""
TARGET, BIG = 0.2, (4096, 8192)
"""The fraction of a copy's bandwidth FAST takes on a GPU (4 bytes read and 4 written a pixel of
the BIG image, 128 MiB). On an H200 (2026-12-02, three runs): the solution 25 to 26% (its 25
shared reads a pixel are the limit), the tile transposed 12%, the window read from global memory
28% (the L1 cache serves the rows a warp re-reads: events cannot tell it from the tiled kernel,
as with notebook 06's stencil; the simulator's trace can)."""

GUARD_HINT = ("the grid is rounded up to whole blocks, so some threads lie outside the image: "
              "they load their part of the tile, reach the barrier, and then return with "
              "if (x >= width || y >= height) return; before they store anything")
TILE_HINT = ("tile[ty][tx] holds the input pixel (x0 + tx, y0 + ty), with x0 = blockIdx.x * "
             "BLOCK_X - RADIUS and y0 = blockIdx.y * BLOCK_Y - RADIUS, and this thread's own pixel "
             "is tile[threadIdx.y + RADIUS][threadIdx.x + RADIUS]")
TILE_READ_HINT = ("load the tile into shared memory once (TODO 1), then read every pixel of the "
                  "window from the tile, tile[threadIdx.y + dy][threadIdx.x + dx] (TODO 4), so "
                  "that a warp's 32 threads read 32 neighbouring floats of one row of the tile")
WORDS = Words(index_hint="x = blockIdx.x * BLOCK_X + threadIdx.x, y = blockIdx.y * BLOCK_Y + "
                         "threadIdx.y", guard_hint=GUARD_HINT)
_RUNS = itertools.count()  # an image a run: tiles a wrong kernel never loaded hold an earlier one


def _refine(failure):
    """The exercise's hint for an overrun of its one declared array, the tile: an index below 0
    (the bounds check reads it unsigned: -2 is 4294967294), a flat load's split (its mistake, as
    well), its indices in the wrong order where it is declared as it should be, else its size."""
    element = getattr(failure.error, "element", None)
    if failure.kind == "array bounds" and element is not None and 2 ** 31 <= element < 2 ** 32:
        yield (f"an index into tile came out {element - 2 ** 32}, below 0 (the bounds check "
               f"read it unsigned, {element}): the window runs from -RADIUS to RADIUS around "
               "this thread's pixel, whose place in the tile is RADIUS further on, so the tile "
               "index is threadIdx.y + RADIUS + dy (and threadIdx.x + RADIUS + dx); or dy and "
               "dx run from 0 to 2 * RADIUS")
    yield from box_blur_models.extern_tile(failure, BLOCK, RADIUS)
    yield from _radius_twice(failure)
    yield from halo_on_one_side(failure, BLOCK, RADIUS)
    yield from sides_swapped(failure, BLOCK, RADIUS)
    yield from flat_split.mistakes(failure.error, BLOCK, (TILE_Y, TILE_X))
    yield from rows_past_the_tile(failure, BLOCK, RADIUS)
    if getattr(failure.error, "declared", None) in (f"float [{TILE_Y}][{TILE_X}]",
                                                    f"float [{TILE_X}]"):
        yield (f"tile is declared as it should be, [{TILE_Y}][{TILE_X}], and an index into it "
               f"ran past its {failure.error.length}: tile[row][column] takes the row first, "
               "tile[threadIdx.y + dy][threadIdx.x + dx]")
    if failure.kind == "array bounds":
        yield (f"tile needs TILE_Y x TILE_X = {TILE_Y} x {TILE_X} elements, the block and RADIUS "
               "more on every side (the halo): declare __shared__ float tile[TILE_Y][TILE_X]")


def _radius_twice(failure):
    """An index into tile past its side: at threadIdx + 3 RADIUS (RADIUS added to a window whose
    offsets already run from 0 to 2 RADIUS); at the image's coordinate plus the window's offset,
    in a block past the first (the window read at x + dx or y + dy)."""
    err = failure.error
    if failure.kind != "array bounds" or err.thread is None or err.block is None:
        return
    x, y = err.thread[:2]
    for side, own, c, d, what, b in ((TILE_X, x, "x", "dx", "column", 0), (TILE_Y, y, "y", "dy",
                                                                          "row", 1)):
        if err.length == side and err.element == own + 3 * RADIUS:
            yield (f"thread ({x}, {y}, 0) read tile {what} {err.element} = threadIdx.{c} + RADIUS "
                   f"+ {d} with {d} = 2 * RADIUS: with {d} from 0 to 2 * RADIUS, threadIdx.{c} + "
                   f"{d} already starts at the window's first pixel, RADIUS before this thread's, "
                   "and adding RADIUS too shifts the window past the tile's edge: "
                   "tile[threadIdx.y + dy][threadIdx.x + dx], no RADIUS added")
        if err.length == side and err.block[b] and \
                0 <= err.element - err.block[b] * BLOCK[b] - own <= 2 * RADIUS:
            yield (f"tile was read at {what} {err.element}, the image's {c} plus the window's "
                   "offset: tile holds the block's part of the image, indexed by the thread's "
                   f"place in the block, not the pixel's {c}: tile[threadIdx.y + dy][threadIdx.x "
                   "+ dx]")


def reference(image: np.ndarray, rows=WINDOW, cols=WINDOW, mode: str = "edge", row=None,
              past=0, clamps=None) -> np.ndarray:
    """NumPy box blur of a 2D float image: the sum over the window's row offsets ``rows`` and
    column offsets ``cols``, divided by (2 RADIUS + 1)^2, with pixels outside the image taken
    from its edge (``mode="edge"``) or as zeros (``"constant"``). The blur of a wrong kernel
    too: one that loads pixel (x, y) from in[y * row + x] (``row``: the width by default), its
    clamp_index(i, n) letting i up to n - 1 + ``past`` through, the rows clamped to n =
    ``clamps[0]`` and the columns to ``clamps[1]`` (the height and the width by default),
    reading the image as the flat rows it is, with JUNK after them (as _launch lays them out)."""
    h, w = image.shape
    row, (ny, nx) = row or w, clamps or (h, w)
    flat = np.concatenate([image.ravel(), np.full(h * row + w + 1, JUNK)]).astype(np.float64)
    y, x = np.indices(image.shape)
    total = 0
    for dy in rows:
        for dx in cols:
            ys, xs = y + dy, x + dx
            pixel = flat[np.clip(ys, 0, ny - 1 + past) * row + np.clip(xs, 0, nx - 1 + past)]
            outside = (ys < 0) | (ys >= h) | (xs < 0) | (xs >= w)
            total = total + np.where(outside & (mode == "constant"), 0, pixel)
    return (total / (2 * RADIUS + 1) ** 2).astype(np.float32)


def _launch(case):
    """A new image; the input with JUNK rows before and after it, for the overhang and more."""
    height, width = case.height, case.width
    image = np.random.default_rng([height, width, next(_RUNS)]).random((height, width), np.float32)
    margin = (RADIUS + BLOCK[1] + 1) * (width + 2 * RADIUS)
    return Launch((Input(image, margin, JUNK, before=margin),
                   Output((height, width), guard=BLOCK[1] * width + BLOCK[0]),
                   np.int32(width), np.int32(height)), block=BLOCK, grid=case.grid, model=image)


def _mistakes(case, run):
    """The mistakes one launch shows; on the first image, the simulator's launch's too."""
    yield from column_guard_only(run.out.past, case, WORDS, close(run.out.got, reference(run.model)),
                                 body_words(run.kernel))
    yield from past_the_end(run.out.past, case, WORDS, GUARD_HINT, run.out.unwritten)
    if run.out.unwritten.any():
        yield from reached(~run.out.unwritten, case, WORDS)
        yield from steps_by_the_tile(run.out.got, reference(run.model), ~run.out.unwritten, case,
                                     RADIUS)
    yield from never_written(run.out.unwritten, WORDS)
    if case == CASES[0]:
        seen = observe(run.kernel, run.launch)
        if seen.error:
            yield from box_blur_models.tile_races(seen.error, BLOCK, RADIUS, run)
            yield race_mistake(seen.error, "each thread stores only its own pixel, "
                                           "out[y * width + x]", block=BLOCK, refine=_refine)
            return
    want = reference(run.model)
    if not close(run.out.got, want):
        yield from stored_at_own_slot(run.model, run.out.got, want, BLOCK, RADIUS)
        yield from one_trip(run.out.got, want, run.kernel, BLOCK, RADIUS)
        yield from _divided_then_multiplied(run.kernel, run.out.got, want)
        yield from matches(run.out.got, _models(run.model), close)
        yield from late_start(run.out.got, want, BLOCK, RADIUS)
        yield from matches(run.out.got, _tiled_models(run.model),
                           lambda got, model: model is not None and close(got, model))
        yield from not_shared(run.kernel, _launch(CASES[0]), MAX_GLOBAL_LOADS_PER_WARP)
        yield from _located(run.out.got, want)


def _divided_then_multiplied(kernels, got, want):
    """The window's plain sum stored (the results 25 times too large), and the kernel's body
    divides by an operand and multiplies by the same one next, sum / A * A: / and * go left to
    right, so the multiplication undoes the division (the operand's words, from the source)."""
    text = kernel_words(kernels)
    if text is None or not close(got, want * np.float32(len(WINDOW) ** 2)):
        return
    source, tokens, words, body, end = text
    for k in (k for k in range(body + 1, end - 3) if words[k] == "/"):
        a = _operand_end(tokens, words, k + 1)
        if words[a + 1] != "*" or words[k + 1:a + 1] != \
                words[a + 2:_operand_end(tokens, words, a + 2) + 1]:
            continue
        left = words[k - 1] if words[k - 1].isidentifier() else "the sum"
        divisor = source[tokens[k + 1].start:tokens[a].end]
        yield (f"the results are 25 times too large, the window's plain sum: {left} / {divisor} "
               f"* {divisor} divides by {divisor} and then multiplies by {divisor} again: / and * "
               f"go left to right, so C reads it as ({left} / {divisor}) * {divisor}, and the "
               "multiplication undoes the division", "the divisor needs its own parentheses: "
               f"{left} / ((2 * RADIUS + 1) * (2 * RADIUS + 1)), the window's 25 pixels")
        return


def _operand_end(tokens, words, i):
    """The index of the last word of the operand that starts at word i: its ")" where it is
    in parentheses, else word i itself."""
    from helpers.sim.compile.kernel_text import closing

    return closing(tokens, i) if words[i] == "(" else i


def _models(image):
    """(result, problem, hint) of the known mistakes, most specific first."""
    short = range(-RADIUS, RADIUS)
    yield (image, "the output is the input image, unchanged: nothing is blurred yet",
           "follow the TODOs of the stub: fill the tile, wait, then average the window")
    yield (np.zeros_like(image), "every pixel is 0, which is what sum * (1 / 25) gives: 1 / 25 is "
           "an integer division (an int divided by an int drops the fraction), so it is 0; or the "
           "sum is an int, which drops each pixel's fraction", "make the factor a float, sum * "
           "(1.0f / 25), or sum / 25.0f; and keep the sum a float")
    for row, name, why in ((image.shape[0], "height", ""), (TILE_X, f"TILE_X = {TILE_X}", "TILE_X "
                           "is the tile's row length; the image's rows are width floats apart: ")):
        yield (reference(image, row=row), f"the tile was loaded with rows of {name} pixels: "
               f"in[row * {name.split()[0]} + column], where a row of the image holds width = "
               f"{image.shape[1]}", f"{why}load in[clamp_index(y0 + ty, height) * width + "
               "clamp_index(x0 + tx, width)]")
    yield from box_blur_index.mistakes(image, reference)
    yield (reference(image, past=1), "the window's pixels past the right edge come from the next "
           "row's first pixel, and past the bottom from beyond the image: the clamp lets index n "
           "through", "clamp to the last pixel, n - 1: min(max(i, 0), n - 1)")
    yield from clamped_short(image, reference)
    yield from clamped_before_offset(image, BLOCK, RADIUS, JUNK)
    yield from flat_clamped(image, RADIUS)
    yield (reference(image, clamps=image.shape[::-1]), "the tile's rows were clamped to the width "
           "and its columns to the height: clamp_index's n swapped", "a row lies in 0 .. height "
           "- 1, a column in 0 .. width - 1: in[clamp_index(y0 + ty, height) * width + "
           "clamp_index(x0 + tx, width)]")
    (h, w), last = image.shape, "the image's last row in memory"  # the row clamped to the width:
    yield (reference(image, clamps=(w, w)), "the tile's rows were clamped to the width, "
           "clamp_index(y0 + ty, width): " + (f"rows past height - 1 = {h - 1} went through, up "
           f"to width - 1 = {w - 1}, so the bottom rows' windows read what lies after {last}"
           if w > h else f"rows stopped at width - 1 = {w - 1}, before height - 1 = {h - 1}"),
           "clamp the row to the height: clamp_index(y0 + ty, height) (a row lies in 0 .. "
           "height - 1; the column, clamp_index(x0 + tx, width))")
    yield (reference(image).T.reshape(image.shape), "each pixel was stored at out[x * height + "
           "y]: the output is transposed, its pixels laid out column after column",
           "out holds the image row after row, as in does: store pixel (x, y) at "
           "out[y * width + x]")
    yield (reference(image, mode="constant"), "pixels near the image's edges are too dark: the "
           "pixels outside the image count as 0", "a window pixel outside the image takes the "
           "value of the nearest pixel inside: clamp its column and its row with clamp_index "
           "when the tile is loaded")
    yield from origin_shifted(image, BLOCK, RADIUS)
    for rows, cols in ((short, short), (WINDOW, short), (short, WINDOW)):
        yield (reference(image, rows=rows, cols=cols),
               f"the window is {len(cols)} x {len(rows)} pixels, not {len(WINDOW)} x {len(WINDOW)}",
               "the window has 2 * RADIUS + 1 pixels each way: dy and dx run from 0 to 2 * "
               "RADIUS, both included (<=)")
    for rows, cols, which, loop in (((RADIUS,), WINDOW, "row", "dy"), (WINDOW, (RADIUS,),
                                                                     "column", "dx")):
        yield (reference(image, rows=rows, cols=cols), f"each pixel is 1/{len(WINDOW) ** 2} of "
               f"its window's last {which} alone, the {len(WINDOW)} pixels of {which} "
               f"{_off(loop[1], RADIUS)}: the sum is "
               f"reset to 0 inside the {loop} loop, so it starts over for each {which}",
               "set the sum to 0 once, before both loops: float sum = 0.0f; then for dy, for dx: "
               "sum += tile[threadIdx.y + dy][threadIdx.x + dx]")
    for factor in ((2 * RADIUS + 1) ** 2, 2 * RADIUS + 1):
        yield (reference(image) * np.float32(factor), f"the results are {factor} times too large",
               f"divide the sum by the window's {(2 * RADIUS + 1) ** 2} pixels: multiply by "
               "1.0f / ((2 * RADIUS + 1) * (2 * RADIUS + 1))")


def _tiled(image, **how):
    """``box_blur_loads.tiled`` for this exercise's block and radius."""
    return tiled(image, BLOCK, RADIUS, **how)


def _off(name, k):
    return f"{name} + {k}" if k > 0 else f"{name} - {-k}" if k < 0 else name


def _tiled_models(image):
    """(result, problem, hint) of a tile whose origin came from another index, a window read
    from another place in the tile or over other rows or columns."""
    bw, bh = BLOCK[:2]
    origin = {"x0": ("column", "x0 = blockIdx.x * BLOCK_X - RADIUS"),
              "y0": ("row", "y0 = blockIdx.y * BLOCK_Y - RADIUS")}
    x0, y0 = (lambda bx, by, i, j: bx * bw + i - RADIUS), (lambda bx, by, i, j: by * bh + j
                                                             - RADIUS)
    for model, which in ((dict(x0=x0, y0=y0), "x0 = x - RADIUS and y0 = y - RADIUS"),
                         (dict(x0=x0), "x0 = x - RADIUS"), (dict(y0=y0), "y0 = y - RADIUS")):
        yield (_tiled(image, **model), f"the tile's origin was taken from each thread's own "
               f"pixel, {which}: each thread loaded its elements of the tile from a window "
               "around its own pixel, so the tile is a patchwork of shifted pieces", "the tile's "
               "origin is the block's, the same for every thread of it: x0 = blockIdx.x * "
               "BLOCK_X - RADIUS, y0 = blockIdx.y * BLOCK_Y - RADIUS")
    yield from tile_steps(image, BLOCK, RADIUS)
    for name, index, model in (
            ("x0", "blockIdx.y", dict(x0=lambda bx, by, i, j: by * bw - RADIUS)),
            ("x0", "threadIdx.x", dict(x0=lambda bx, by, i, j: i * bw - RADIUS)),
            ("y0", "blockIdx.x", dict(y0=lambda bx, by, i, j: bx * bh - RADIUS)),
            ("y0", "threadIdx.y", dict(y0=lambda bx, by, i, j: j * bh - RADIUS))):
        what, right = origin[name]
        yield (_tiled(image, **model), f"the tile's origin {name} was computed from {index}: "
               "the tile holds other pixels than the ones around the block", f"{name} is the "
               f"{what} of the input pixel that goes to tile[0][0], the same for every thread "
               f"of the block: {right}")
    for index, window in (("[threadIdx.y + dy][threadIdx.y + dx]", lambda bx, by, i, j: (j, j)),
                          ("[threadIdx.y + dy][blockIdx.x + dx]", lambda bx, by, i, j: (bx, j)),
                          ("[blockIdx.y + dy][threadIdx.x + dx]", lambda bx, by, i, j: (i, by))):
        yield (_tiled(image, window=window), f"each pixel's window was read from the wrong place "
               f"in the tile, tile{index}", "this thread's pixel is tile[threadIdx.y + "
               "RADIUS][threadIdx.x + RADIUS], and its window tile[threadIdx.y + dy][threadIdx.x "
               "+ dx], dy and dx from 0 to 2 * RADIUS")
    yield from diagonal(image, BLOCK, RADIUS)
    late, half = range(1 - RADIUS, RADIUS + 1), range(-RADIUS, 1)
    for rows, cols in itertools.product((WINDOW, late, half), repeat=2):
        spans = [(v, axis, span) for v, axis, span in (("dy", ("rows", "y"), rows),
                                                       ("dx", ("columns", "x"), cols))
                 if span != WINDOW]
        if spans:
            yield (reference(image, rows=rows, cols=cols), " and ".join(
                f"the window's {axis} run from {_off(c, span[0])} to {_off(c, span[-1])}, "
                f"{len(span)} {axis}, not the {len(WINDOW)} from {c} - RADIUS to {c} + RADIUS"
                for _, (axis, c), span in spans), "; ".join(
                f"{v} runs from 0 to 2 * RADIUS, both included: for (int {v} = 0; {v} <= 2 * "
                f"RADIUS; {v}++)" for v, _, _ in spans))


def _located(got, want):
    """Where the wrong pixels are: near the image's right or bottom edge (threads past it that
    returned before loading), near any of its edges, near their blocks' (the halo)."""
    wrong, (height, width) = ~np.isclose(got, want, rtol=1e-5, atol=1e-6), got.shape
    (y, x), (fy, fx) = np.indices(wrong.shape), np.argwhere(wrong)[0]
    first = (f"{wrong.sum()} of {wrong.size} pixels are wrong, the first at (x={fx}, y={fy}): "
             f"got {got[fy, fx]:.4f}, expected {want[fy, fx]:.4f}")
    if (width % BLOCK[0] or height % BLOCK[1]) and \
            (wrong <= (x >= width - 2 * RADIUS) | (y >= height - 2 * RADIUS)).all():
        yield (first + ", all near the right or bottom edge of the image", "the threads of the "
               "blocks that overhang the image must load their part of the tile (clamped) and "
               "reach __syncthreads() before they return: move the bounds guard after the barrier")
    edge = (x < RADIUS) | (y < RADIUS) | (x >= width - RADIUS) | (y >= height - RADIUS)
    if (wrong <= edge).all():
        yield (first + ", all within RADIUS of the edges of the image", "a window pixel outside "
               "the image takes the value of the nearest pixel inside: clamp its column to 0 .. "
               "width - 1 and its row to 0 .. height - 1 (clamp_index) when the tile is loaded")
    lx, ly = x % BLOCK[0], y % BLOCK[1]
    sides = {"left": lx < RADIUS, "right": lx >= BLOCK[0] - RADIUS, "top": ly < RADIUS,
             "bottom": ly >= BLOCK[1] - RADIUS}
    if (wrong <= np.logical_or.reduce(list(sides.values()))).all():
        alone = sum(sides.values()) == 1      # near one side only: a corner does not say which
        which = [side for side, mask in sides.items() if (wrong & mask & alone).any()] or \
            [side for side, mask in sides.items() if (wrong & mask).any()]
        yield (f"{first}, all within RADIUS of the {', '.join(which)} edge(s) of their block: the "
               "halo is not right", f"the tile is TILE_Y x TILE_X = {TILE_Y} x {TILE_X}: load "
               "every element of it, RADIUS rows and columns beyond the block on every side (the "
               "loops run while ty < TILE_Y and tx < TILE_X); " + TILE_HINT)
    yield from never_loaded(got)
    yield from near.misses("out", got, want, index_hint=TILE_HINT)
    yield first, "compare your kernel with the TODOs: " + TILE_HINT


def _traced(kernels):
    """On the simulator: the first image's global load requests a warp, bank conflicts a request."""
    stats = observe(kernels, _launch(CASES[0])).stats
    per_warp = stats.global_ld.requests / (np.prod(CASES[0].grid) * (BLOCK[0] * BLOCK[1] // 32))
    conflicts = stats.shared_ld.bank_conflicts / max(stats.shared_ld.requests, 1)
    if per_warp > MAX_GLOBAL_LOADS_PER_WARP:
        yield (f"on the simulator each warp makes {per_warp:.0f} load requests to global memory, "
               "where the tiled blur makes about 3: the window is read from global memory, not "
               "from the tile", TILE_READ_HINT)
    if conflicts > MAX_CONFLICTS:
        yield (f"on the simulator the tile's reads have {conflicts:.1f} bank conflicts a request "
               "(a warp's 32 floats fall in fewer than 32 banks), where reading along a row of the "
               "tile has none", TILE_READ_HINT)
    return (f"on the simulator each warp made {per_warp:.1f} global load requests and its "
            f"shared loads {conflicts:.1f} bank conflicts a request")


def _timed(kernel):
    """On a GPU: the bandwidth of the blur of a BIG image, against a copy's."""
    height, width = BIG
    image = np.random.default_rng(6).random(BIG, np.float32)
    launch = Launch((image, np.empty(BIG, np.float32), np.int32(width), np.int32(height)),
                    BLOCK, Grid(*BIG, BLOCK).grid)
    return (yield from speed.bandwidth(
        speed.launched(kernel, launch), 8 * height * width, TARGET, TILE_READ_HINT + "; every "
        "load of the tile is coalesced too: neighbouring threads load neighbouring pixels",
        f"4 bytes read and 4 written a pixel, on a {width} x {height} image"))


EXERCISE = KernelExercise(
    stub="exercises/box_blur.cu", kernel="box_blur",
    signature="const float *in, float *out, int width, int height", cases=CASES,
    # the grader's cases: several blocks with odd sides, and an image smaller than the window
    draw=lambda rng: [
        Grid(awkward(rng, BLOCK[1], BLOCK[1] + 1, 100), awkward(rng, BLOCK[0], BLOCK[0] + 1, 130),
             BLOCK),
        Grid(int(rng.integers(1, 2 * RADIUS + 1)), int(rng.integers(1, 2 * RADIUS + 1)), BLOCK)],
    where=lambda c: f"{c.width} x {c.height} image, block = {BLOCK}, grid = {c.grid}",
    launch=_launch, mistakes=_mistakes, refine=_refine,
    crash_hint=GUARD_HINT + "; and clamp every pixel the tile loads to the image",
    simulated="runs the race check and the trace", fast=speed.rule(_timed, _traced),
    success=f"the blur matches NumPy on {len(CASES)} images whose sides are not multiples of the "
            "block, with no race; nothing written outside the image")

check_box_blur = EXERCISE.check_file          # (path="exercises/box_blur.cu")
check_box_blur_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): on a compiled kernel
