"""Checker for the row-per-block exercise of notebook 03: ``cuda_src/exercises/mandelbrot_rows.cu``.

The kernel ``mandelbrot_rows`` draws the chapter's Mandelbrot image with one block a row
(``grid = (height, 1)``): block b draws row b, its threads striding along the row by
``blockDim.x``, and the blocks have fewer threads than a row has pixels. Its one idea is the
layout: which pixels a block and a thread own. The image is compared with NumPy's (the loop of
``helpers.exercises.escape``, with c rounded as a GPU or as NumPy does, up to julia's
``TOLERANCE`` of pixels that a GPU's fused multiply-adds may change: ``_unexplained``); which
pixels were drawn tells the layout's mistakes apart. The last case runs on the simulator, race-checked (``helpers.exercises.microscope``), whatever the backend: a loop
stepping by 1 draws each pixel the same, but several times.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises.barrier_if import after_a_strided_loop
from helpers.exercises.common import Output, one_further
from helpers.exercises.failure import shared_by_the_block
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.julia import TOLERANCE
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.mandelbrot_rows_edge import stops_at_4
from helpers.exercises.mandelbrot_rows_loop import (all_of_the_block_in_the_head, carried_over,
                                                    runs_of_neighbours, same_pixel_each_pass,
                                                    step_short_of_the_block)
from helpers.exercises.mandelbrot_rows_models import (args, escape_never_leaves, reference,
                                                      returned_on_escape, row_times_width,
                                                      store_swapped, stored_ahead, wrong_images)
from helpers.exercises.mandelbrot_rows_unrolled import unguarded_pixels_of_a_pass
from helpers.exercises.microscope import observe, stopped, with_stopped, written_by_two, written_twice

# (width, height, threads per block, max_iter): rows longer than a block, not a multiple of it;
# last a small one on the simulator, race-checked
CASES = [(203, 61, 64, 80), (150, 37, 32, 60), (70, 3, 64, 20, "observe")]
GUARD_ROWS = 2                      # the rows of iters past the image that catch stray writes
ROW = (80, 1, 32, 2)                # one row on the simulator, traced: which thread drew which pixel

LOOP_HINT = ("for (int x = threadIdx.x; x < width; x += blockDim.x): the block's threads walk "
             "along the row together")
ROW_HINT = ("one block a row: y = blockIdx.x (the grid is (height, 1)); y = blockIdx.x * "
            "blockDim.x + threadIdx.x gives thread t of block b row b * blockDim.x + t, past the "
            "image's last row, and the row's pixels are the threads' x")

BARRIER_HINT = ("the threads of this kernel share nothing, each drawing its own pixels: remove the "
                "__syncthreads() (a barrier is for threads that share memory, and every thread "
                "of the block must reach each one)")


def _draw(rng):
    """The grader's cases: two other images and blocks."""
    return [(awkward(rng, block, 2 * block + 1, 300), int(rng.integers(10, 80)), block,
             int(rng.integers(30, 100))) for block in (pick(rng, (32, 64)), pick(rng, (64, 96)))]


def _where(case):
    width, height, block, max_iter = case[:4]
    return (f"with a {width}x{height} image, block = ({block}, 1, 1), grid = ({height}, 1), "
            f"max_iter = {max_iter}")


def _launch(case):
    width, height, block, max_iter = case[:4]
    f32, i32 = np.float32, np.int32
    return Launch((Output((height, width), np.int32, guard=GUARD_ROWS * width), i32(width),
                   i32(height), *map(f32, args(case)), i32(max_iter)),
                  block=(block, 1, 1), grid=(height, 1))


def _refine(failure):
    """A write past iters where thread t of block b wrote its first pixel (x = t) on row
    b * blockDim.x + t, past the image: y = blockIdx.x * blockDim.x + threadIdx.x; a race on a
    pixel's value declared __shared__ (its counter n, say)."""
    yield from shared_by_the_block(failure)
    err = failure.error
    if failure.kind != "out of bounds" or not err.is_write or not failure.block:
        return
    (b, t), size = (err.block[0], err.thread[0]), err.allocation[1] // 4
    row, element = b * failure.block[0] + t, err.offset // 4
    width = (element - t) // row if row else 0
    if width and row * width + t == element and size % width == 0 and \
            b < size // width - GUARD_ROWS <= row:
        yield ROW_HINT
    yield from row_times_width(b, t, element, size, GUARD_ROWS)
    yield from store_swapped(failure, GUARD_ROWS)
    width = int(failure.launch.args[1]) if failure.launch is not None else 0
    if width and element // width == t and size // width - GUARD_ROWS <= t:
        x = "" if element % width % failure.launch.grid[0] != b else (
            f" at x = {element % width}, blockIdx.x in steps of gridDim.x: the block's and the "
            "thread's roles are swapped")
        yield (f"thread {t} of block {b} drew row {t}, its threadIdx.x, past the image's "
               f"{size // width - GUARD_ROWS} rows{x}; one block a row: y = blockIdx.x, and its "
               "threads walk along the row: " + LOOP_HINT)


def _observed(kernels, case):
    """The race check's launch on the simulator: two threads that store into one pixel, named
    by the loop's step where it is short of the block."""
    yield from step_short_of_the_block(kernels, _launch(case))
    yield from written_twice(kernels, _launch(case), "step x by blockDim.x: " + LOOP_HINT,
                         did="drew the same pixel,", items="pixels", refine=_refine)


def _strides(case, got, drawn):
    """Two strides the chapter's gridDim stands for: x stepped by gridDim.x (the rows), which
    draws x only where x % height < blockDim.x; rows stored height pixels apart (iters[y * height
    + x]), which draws the flat pixels y * height + x and leaves the rest. The drawn pixels' values
    are checked where one thread drew them (the blocks race where rows overlap)."""
    width, height, block = case[:3]
    if drawn.all():
        return
    ref, x = reference(case), np.arange(width)
    if np.array_equal(drawn, np.broadcast_to(x % height < block, drawn.shape)) \
            and np.mean(got[drawn] != ref[drawn]) <= TOLERANCE:
        yield (f"{int((~drawn).sum())} of {got.size} pixels were never drawn, those with "
               f"x % {height} >= {block}: the loop stepped x by gridDim.x = {height}, the number "
               f"of rows, not blockDim.x = {block}", LOOP_HINT)
    for length, name in ((height, "height"), (block, "blockDim.x")):
        yield from _row_length(case, got, drawn, length, name)


def _row_length(case, got, drawn, length, name):
    """Rows stored ``length`` pixels apart (iters[y * length + x]): the flat pixels y * length +
    x drawn and the rest not, the values right where one thread drew them."""
    width, height = case[:2]
    ref, x = reference(case), np.arange(width)
    flat = (np.arange(height)[:, None] * length + x).ravel()
    spots, writers = np.unique(flat, return_counts=True)
    alone = np.isin(flat, spots[writers == 1])   # (y, x), row-major: drew a pixel no other did
    if np.array_equal(np.flatnonzero(drawn), spots) and \
            np.mean(got.flat[flat[alone]] != ref.ravel()[alone]) <= TOLERANCE:
        yield (f"{int((~drawn).sum())} of {got.size} pixels were never drawn: the store put the "
               f"rows {name} = {length} pixels apart (iters[y * {name} + x]), but a row is "
               f"width = {width} pixels long", "row-major, as a NumPy array of shape (height, "
               "width): iters[y * width + x]")


def _whole_rows(case, got, drawn):
    """Some rows drawn whole, right there, the others not at all: blocks drew the same rows. When
    the rows drawn are b * blockDim.x / width's, each block took for its row the one its first
    thread's place in the grid, blockIdx.x * blockDim.x, falls in in a flat image."""
    width, height, block = case[:3]
    rows = drawn.all(axis=1)
    if rows.all() or not rows.any() or not np.array_equal(drawn, np.broadcast_to(
            rows[:, None], drawn.shape)) or np.mean(got[drawn] != reference(case)[drawn]) > TOLERANCE:
        return
    ys = np.flatnonzero(rows)
    drew = f"only rows {_spans(ys)} of {height} were drawn, each whole"
    if np.array_equal(ys, np.unique(np.arange(height) * block // width)):
        yield (f"{drew}: block b drew row b * blockDim.x / width = b * {block} / {width} "
               "(where pixel b * blockDim.x of a flat image lies), so neighbouring blocks drew "
               f"the same row and rows {ys[-1] + 1} to {height - 1} were never drawn", "one "
               "block a row: y = blockIdx.x (the grid is (height, 1)), its threads walking "
               "along the row")
    yield (f"{drew}: several blocks drew the same row and the others none", "one block a row: "
           "y = blockIdx.x (the grid is (height, 1))")


def _spans(ys):
    """Sorted row numbers as spans: 0 to 19, 23."""
    cuts = np.flatnonzero(np.diff(ys) != 1) + 1
    parts = [(int(p[0]), int(p[-1])) for p in np.split(ys, cuts)]
    return ", ".join(f"{a} to {b}" if b > a else f"{a}" for a, b in parts)


def _late_start(case, got, drawn):
    """Row y drawn only from x = y * blockDim.x on: the loop started at the thread's place in the
    grid, blockIdx.x * blockDim.x + threadIdx.x (the grid-stride habit); every row drawn only
    from x = blockDim.x on, right there: it started at threadIdx.x + blockDim.x."""
    width, height, block = case[:3]
    y, x = np.indices((height, width))
    if block < width and np.array_equal(drawn, x >= block) and \
            np.mean(got[drawn] != reference(case)[drawn]) <= TOLERANCE:
        yield (f"{int((~drawn).sum())} of {drawn.size} pixels were never drawn, x = 0 to "
               f"{block - 1} in every row: the loop along the row started at x = threadIdx.x + "
               f"blockDim.x, one pass of the block ({block} pixels) late, so the first pass was "
               "never made", "start at x = threadIdx.x, with nothing added: " + LOOP_HINT)
    if not drawn.all() and np.array_equal(drawn, x >= y * block):
        yield (f"{int((~drawn).sum())} of {drawn.size} pixels were never drawn: row y was drawn "
               f"only from x = y * {block} on, so the loop along the row started at the "
               "thread's place in the whole grid, blockIdx.x * blockDim.x + threadIdx.x, where "
               "each block has a row of its own", LOOP_HINT)


def _last_pass_cut(case, got, drawn, kernels):
    """Every row drawn, right, below x = (width / blockDim.x) * blockDim.x alone (the bound rounded
    down to whole passes of the block: the last pass cut off, or the row cut into runs of
    width / blockDim.x pixels, one a thread, told apart on the simulator by ``kernels``' stores),
    or below width - 1 (x < width - 1)."""
    width, _, block = case[:3]
    cut, x = width // block * block, np.arange(width)
    for end in {cut, width - 1}:
        if end >= width or not np.array_equal(drawn, np.broadcast_to(x < end, drawn.shape)) or \
                np.mean(got[drawn] != reference(case)[drawn]) > TOLERANCE:
            continue
        never = f"{int((~drawn).sum())} of {drawn.size} pixels were never drawn"
        if end == cut:  # (first: where width - 1 is cut too, the rounding is the likelier)
            said = f"{never}, x = {cut} to {width - 1} in every row"
            yield from runs_of_neighbours(kernels, _launch(ROW), case, said)
            yield from all_of_the_block_in_the_head(kernels, case, said)
            yield (f"{said}: the last pass along the row, where only {width - cut} of the "
                   f"{block} threads have a pixel, was cut off: the loop's bound was rounded down "
                   f"to whole passes of the block, (width / blockDim.x) * blockDim.x = {cut}",
                   "loop while x < width: for (int x = threadIdx.x; x < width; x += blockDim.x), "
                   "and in the last, partial pass the threads past the row's end just leave the loop")
            continue
        yield (f"{never}, x = {width - 1} in every row, the row's last pixel: the loop stopped "
               f"at x < width - 1 = {width - 1}, which leaves out x = width - 1, the last column",
               "loop while x < width, which stops after the last column, width - 1: " + LOOP_HINT)


def _first_warp_only(case, got, drawn, kernels):
    """Every row drawn where x % blockDim.x < 32 alone, right there: each pass along the row
    drew only its first 32 pixels; where the race check's launch on the simulator finds two
    threads of one block a multiple of 32 apart drawing one pixel, the loop started at the lane,
    threadIdx.x % 32, and the warps past the first drew warp 0's pixels again."""
    width, _, block = case[:3]
    x = np.arange(width)
    if block <= 32 or not np.array_equal(drawn, np.broadcast_to(x % block < 32, drawn.shape)) \
            or np.mean(got[drawn] != reference(case)[drawn]) > TOLERANCE:
        return
    never = (f"{int((~drawn).sum())} of {drawn.size} pixels were never drawn, x = 32 to "
             f"{block - 1}, {block + 32} to {2 * block - 1}, ... in every row: each pass along "
             "the row drew only its first 32 pixels")
    race = observe(kernels, _launch(CASES[-1])).race
    apart = race.second.thread[0] - race.first.thread[0] if race else 0
    if written_by_two(race) and race.first.block == race.second.block and apart and \
            apart % 32 == 0:
        yield (f"{never}: x started at the thread's lane, threadIdx.x % 32, not its place in "
               "the block, so the block's warps past the first started where warp 0 did and "
               f"drew its pixels again (on the simulator {race.first.who} and "
               f"{race.second.who} both drew {race.array}[{race.element}])",
               "start at the thread's place in the block: " + LOOP_HINT)
    yield (f"{never}, warp 0's: the block's other warps drew none of their own", LOOP_HINT)


def _bounded_by_the_block(case, run):
    """Each thread drew its first pixel alone, where a row shorter than the block, launched on
    the simulator, is drawn right and its threads past the row's end drew past it too: x is
    bounded by blockDim.x, not width (x < blockDim.x), which x passes after the first pixel."""
    width, block = case[0], case[2]
    short = (block - 8, 1, block, 20)
    if block <= 8:
        return
    seen = observe(run.kernel, _launch(short), key="a row shorter than the block", racecheck=False)
    out = seen.outs[0] if seen.error is None else None
    if out is None or out.unwritten.any() or not np.array_equal(
            out.past, np.arange(short[0], block)) or np.mean(out.got != reference(short)) > TOLERANCE:
        return
    yield (f"only the first {block} pixels of each row were drawn, one a thread: x stopped below "
           f"blockDim.x = {block}, not width = {width}, so after its first pixel, x = threadIdx.x, "
           f"each thread's next x was past the bound (with a row of {short[0]} pixels on the "
           f"simulator, shorter than the block, threads {short[0]} to {block - 1} drew past its "
           f"end, iters[{short[0]}] to iters[{block - 1}]: the loop along the row is bounded by "
           "the block's threads, x < blockDim.x)", "bound x by the row's width, not the block's "
           "threads: for (int x = threadIdx.x; x < width; x += blockDim.x)")


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first."""
    width, height, block = case[:3]
    got, drawn = run.out.got, ~run.out.unwritten
    yield from one_further("iters", "pixel", run.out.past, run.out.unwritten,
                           "store n in iters[y * width + x]")
    yield from _rows_from_the_bottom(case, run)
    yield from stored_ahead(case, run, reference(case), TOLERANCE)
    yield from unguarded_pixels_of_a_pass(case, run, _launch)
    if run.out.past.size:
        yield ("iters was written past its end: some thread's x reached width",
               "stop the loop while x < width: " + LOOP_HINT)
    if not drawn.any():
        yield "nothing was drawn: iters still holds its poison", "store n in iters[y * width + x]"
    if drawn[0].any() and not drawn[1:].any():
        yield ("only row 0 was drawn: every block drew the same row",
               "y = blockIdx.x: block number b draws row b (the grid is (height, 1))")
    if drawn[:, :block].all() and not drawn[:, block:].any():
        last = [t + block * ((width - 1 - t) // block) for t in range(min(block, width))]
        if np.mean(got[:, :len(last)] != reference(case)[:, last]) <= TOLERANCE:
            yield (f"only the first {block} pixels of each row were drawn, each holding the last "
                   "pixel its thread computed: the store's index uses threadIdx.x where x "
                   "belongs", "store n in iters[y * width + x]")
        yield from _bounded_by_the_block(case, run)
        yield from same_pixel_each_pass(run.kernel, _launch(ROW), block)
        yield (f"only the first {block} pixels of each row were drawn: each thread drew one "
               "pixel", LOOP_HINT)
    yield from _whole_rows(case, got, drawn)
    yield from _strides(case, got, drawn)
    yield from _late_start(case, got, drawn)
    yield from _last_pass_cut(case, got, drawn, run.kernel)
    yield from _bounded_by_height(case, got, drawn)
    yield from _first_warp_only(case, got, drawn, run.kernel)
    yield from returned_on_escape(case, reference(case), got, drawn, TOLERANCE)
    if not drawn.all():
        rows, cols = np.nonzero(~drawn)
        yield (f"{int((~drawn).sum())} of {got.size} pixels were never drawn (the first at "
               f"x = {cols[0]}, y = {rows[0]})", LOOP_HINT)
    ref = reference(case)
    if _unexplained(case, got) <= TOLERANCE:
        yield from stops_at_4(run.kernel, case[3])
        return
    if np.mean(got != ref.T.reshape(height, width)) <= TOLERANCE:
        yield ("the pixels are stored transposed (iters[x * height + y])",
               "row-major, as a NumPy array of shape (height, width): iters[y * width + x]")
    for model, problem, hint in wrong_images(case, run.kernel):
        if np.mean(got != model) <= TOLERANCE:
            if problem.startswith("c's real part") and carried_over(run.kernel, block):
                yield (f"each pixel holds the count of its thread's first pixel in the row (x "
                       f"% {block}): z and n were not set back to 0 for the thread's next pixel, "
                       "so its loop stopped at once (z had escaped, or n had reached max_iter)",
                       "declare z_re, z_im and n inside the loop along the row, so that each "
                       "pixel starts from z = 0 and n = 0")
            yield problem, hint
    yield from near.misses("iters", got, ref, close=np.equal, slack=TOLERANCE)
    rows, cols = np.nonzero(got != ref)
    yield (f"{np.mean(got != ref):.1%} of the pixels differ from NumPy's, the first at "
           f"(x = {cols[0]}, y = {rows[0]}): got {got[rows[0], cols[0]]}, expected "
           f"{ref[rows[0], cols[0]]}", "keep the stub's loop: only the layout changes")


def _unexplained(case, got):
    """The fraction of pixels unlike NumPy's image with c rounded either way (``reference``):
    where c_im is about 0, c_im's last bit decides which points of -2 to -1.4 escape, a row's
    worth (a tenth of an image of 10 rows), and a GPU's fused multiply-add rounds c once."""
    return np.mean((got != reference(case)) & (got != reference(case, fused=True)))


def _bounded_by_height(case, got, drawn):
    """x = height to width - 1 never drawn in any row, the rest right: the loop along the row
    stopped at x < height."""
    width, height = case[:2]
    if height < width and np.array_equal(drawn, np.broadcast_to(np.arange(width) < height,
                                                                 drawn.shape)) \
            and np.mean(got[drawn] != reference(case)[drawn]) <= TOLERANCE:
        yield (f"{int((~drawn).sum())} of {got.size} pixels were never drawn, x = {height} to "
               f"{width - 1} in every row: the loop along the row stopped at x < height = "
               f"{height}, the number of rows, but a row is width = {width} pixels long",
               LOOP_HINT)


def _rows_from_the_bottom(case, run):
    """Row 0 never drawn, the row just past the image drawn and rows 1 on right: where the
    simulator's trace of the small case shows block b storing into row height - b, the rows
    were counted from the bottom, y = gridDim.x - blockIdx.x (block 0's row is height)."""
    width, height = case[:2]
    drawn, size = ~run.out.unwritten, width * height
    if not np.array_equal(run.out.past, np.arange(size, size + width)) or drawn[0].any() or \
            not drawn[1:].all() or np.mean(run.out.got[1:] != reference(case)[1:]) > TOLERANCE:
        return
    small = CASES[-1]
    kept = observe(run.kernel, _launch(small), key="rows' blocks", racecheck=False,
                   accesses=8192).accesses
    stores = kept[kept["write"]] if kept is not None else None
    if stores is not None and len(stores) and \
            (stores["index"] // small[0] == small[1] - stores["block"]).all():
        yield (f"row 0 was never drawn, and block 0 drew row {height}, one past the image's "
               f"last (row {height - 1}): block b drew row height - b, the rows counted from "
               "the bottom (y = gridDim.x - blockIdx.x), which runs from height down to 1",
               "y = blockIdx.x: block b draws row b, 0 to height - 1, and row 0 (y_min) is the "
               "first row of iters (which way up the picture is shown is the plot's business)")
    yield (f"row 0 was never drawn, and row {height}, one past the image's last, was: each "
           "block drew the row after its own", "y = blockIdx.x: block b draws row b, 0 to "
           "height - 1 (the grid is (height, 1))")


def _detect(kernels, case):
    """The case's mistakes, with the loop that never ended named first (``_endless``)."""
    run = yield from with_stopped(EXERCISE, kernels, _launch(case),
                                  lambda seen, launch: _endless(kernels, case))
    if run is not None:
        yield from _mistakes(case, run)


def _endless(kernels, case):
    """A launch that ran into the time limit, and does so again with max_iter = 0, where the
    loop over a pixel's steps stops at once: the loop along the row is the one that never ends;
    or the loop over a pixel's steps, once the point escaped (``escape_never_leaves``)."""
    if stopped(kernels, _launch((*case[:3], 0)), key="max_iter = 0") is not None:
        yield ("the loop along the row never ended: the kernel ran into the simulator's time "
               "limit even with max_iter = 0, where each pixel's loop stops at once: a thread's "
               "x never moved on", "x must move on each time round, x += blockDim.x (at the end "
               "of a while loop's body): " + LOOP_HINT)
    yield from escape_never_leaves(kernels, _launch, case)


EXERCISE = KernelExercise(
    stub="exercises/mandelbrot_rows.cu", kernel="mandelbrot_rows",
    signature=("int *iters, int width, int height, float x_min, float y_min, float dx, "
               "float dy, int max_iter"),
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, detect=_detect,
    crash_hint="stop the loop while x < width: " + LOOP_HINT, refine=_refine,
    after=after_a_strided_loop(CASES[0][0], CASES[0][2], f"a row of {CASES[0][0]} pixels",
                               BARRIER_HINT),
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"the Mandelbrot image matches NumPy's with one block a row ({len(CASES) - 1} "
            "images, rows longer than a block and not a multiple of it), each pixel drawn by one "
            "thread")

check_mandelbrot_rows = EXERCISE.check_file          # (path="exercises/mandelbrot_rows.cu")
check_mandelbrot_rows_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
