"""Checker for the first exercise of notebook 04: ``cuda_src/exercises/gray_coalesced.cu``.

``gray_coalesced(rgb, gray, width, height)`` converts one pixel a thread to grey on a flat grid
(blocks of 64 to 256 threads, rounded up): which pixel thread t takes is the exercise. Any
one-to-one choice gives the right image, so the checker names spare threads that write past the
end, choices that are not one-to-one (matched with the pixels they write), then wrong values (the
output poisoned twice and guarded, the input followed by junk). A right kernel is then rated (``_fast``): on the simulator by its trace (sectors a warp's
requests touch: 3 or 4 along a row, 32 down a column), on a GPU timed with events against a copy.
The last case runs on the simulator, race-checked (``helpers.exercises.microscope``), whatever the
backend: a kernel in which every thread converts every pixel gives the right image, but each
pixel is written by every thread.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises import sepia, speed
from helpers.exercises.common import Input, Output, one_further
from helpers.exercises.gray_coalesced_models import (blocks_of, bracket_slip, byte_of_a_neighbour,
                                                     byte_read_twice, channels_as_char,
                                                     char_conversion, guard_past_the_image,
                                                     one_weight_off, pixel_stride_left_out,
                                                     plain_average, planes_read,
                                                     read_before_the_guard, row_by_height)
from helpers.exercises.gray_coalesced_order import (SPLITS, column_by_a_mask, index_by_columns,
                                                    past_splits, split_by_the_block,
                                                    swapped_pixels)
from helpers.exercises.gray_coalesced_rounding import reference, rounded_wrong
from helpers.exercises.gray_coalesced_rows import row_zero
from helpers.exercises.gray_coalesced_staged import staged_without_a_barrier
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises import microscope
from helpers.exercises.microscope import traced, written_twice
from helpers.exercises.origin import Wrong

CASES = [(45, 7, 256), (256, 12, 256), (100, 37, 128), (7, 3, 64), (257, 19, 96),
         (9, 5, 32, "observe")]
"""(width, height, threads a block): spare threads more than a column (the first), sides with a
common factor (the second, also traced on the simulator), one block; last a small one on the
simulator, race-checked."""
TRACED, MAX_SECTORS, TARGET, BIG = CASES[1], 8, 0.2, (4096, 8192)
"""TARGET: the fraction of a copy's bandwidth FAST takes on a GPU: notebook 04 measured its 32 x 8
kernel (a warp along a row) at 32% of the copy on an H200, its 1 x 256 one (down a column) at 4%.
The timed image, BIG, is 96 MiB of RGB, larger than a GPU's L2 cache."""
GUARD_HINT = "the grid is rounded up to whole blocks: return first thing when t >= width * height"
ROW_HINT = ("take pixel t of the image read as one flat run of pixels: x = t % width, "
            "y = t / width, so that threadIdx.x runs along a row, and pixel (x, y) is i = y * "
            "width + x, the pixel after it in memory i + 1")
MAPPINGS = {"x = t % height and y = t / width": lambda t, w, h: (t % h, t // w),  # not one-to-
            "x = t % width and y = t % height": lambda t, w, h: (t % w, t % h)}  # one (CASES[1])


def _draw(rng):
    """The grader's cases: sides that are not multiples of anything, spare threads."""
    return [(awkward(rng, 32, 33, 300), awkward(rng, 8, 2, 40), pick(rng, (64, 96, 128, 256)))]


def _grid(case):  # a thread a pixel, rounded up to whole blocks
    return -(-case[0] * case[1] // case[2]), 1


def _weights_swapped(got, rgb, wrong):
    """Each grey value that of its pixel with two of bt601_gray's weights swapped (the model;
    red and blue swapped is the BGR read, named before)."""
    names, weights = ("red", "green", "blue"), (0.299, 0.587, 0.114)
    for a, b in ((0, 1), (1, 2)):
        swapped = list(weights)
        swapped[a], swapped[b] = weights[b], weights[a]
        if (np.abs(got.astype(int) - reference(rgb, swapped)) <= 1).all():
            yield (f"{wrong.size} of {got.size} grey values are wrong, each the grey of its pixel "
                   f"with the weights of {names[a]} and {names[b]} swapped: {names[a]} got "
                   f"{weights[b]} and {names[b]} {weights[a]}", "bt601_gray weighs red 0.299, "
                   "green 0.587 and blue 0.114: 0.299f * r + 0.587f * g + 0.114f * b")


def _launch(case):
    width, height, block = case[:3]
    rgb = np.random.default_rng([width, height]).integers(0, 256, (height, width, 3), np.uint8)
    return Launch((Input(rgb, 6 * block, sepia.JUNK),
                   Output((height, width), np.uint8, 2 * max(block, width * height),
                          poisons=sepia.POISONS),
                   np.int32(width), np.int32(height)), (block, 1, 1), _grid(case), rgb)


def _observed(kernels, case):
    """The race check's launch on the simulator: rgb staged in shared memory with no barrier,
    two threads that store into one pixel."""
    yield from staged_without_a_barrier(kernels, _launch(case), "race")
    yield from written_twice(kernels, _launch(case), "each thread converts only its own pixel, "
                             "t = blockIdx.x * blockDim.x + threadIdx.x: x = t % width, y = t / "
                             "width, then gray[y * width + x] = ...; no loop over all the pixels",
                             did="wrote the same pixel,", items="pixels", key="race")


def _mistakes(case, run):
    width, height, _ = case
    n, out, missing = width * height, run.out, np.flatnonzero(run.out.unwritten)
    yield from one_further("gray", "pixel", out.past, out.unwritten, "store pixel i at gray[i]")
    yield from _indexed_like_rgb(run, n, run.launch.args[1].guard)
    yield from row_by_height(missing, out.past, width, height)
    yield from _guard_off(out.past, missing, n, _grid(case)[0] * case[2])
    yield from past_splits(case, out.past, missing, run.launch.args[1].guard, run.kernel)
    if out.past.size and missing.size:  # a missing guard leaves no pixel of the image out
        yield (f"threads with a pixel (t < width * height) wrote past the end of gray (as far "
               f"as gray[{int(out.past.max())}]; it has {n} pixels), and {missing.size} pixels "
               "were never written: their split of t into x and y sends pixels outside the "
               "image", ROW_HINT)
    if out.past.size:
        yield from guard_past_the_image(run.kernel, out.past, n, _launch, _grid(case)[0] * case[2])
        yield (f"threads past the last pixel wrote past the end of gray (as far as gray"
               f"[{int(out.past.max())}]; it has {n} pixels)", GUARD_HINT)
    if missing.tolist() == [n - 1]:
        yield ("the last pixel was never written: the bounds guard is off by one",
               "only the threads with t >= width * height return")
    yield from row_zero(run.kernel, run.launch, missing, width, height)
    yield from _tail(missing, n, width)
    yield from _each_side(missing, n, width, height)
    yield from column_by_a_mask(missing, out.past, width, height)
    for how, mapping in MAPPINGS.items():
        x, y = mapping(np.arange(n), width, height)
        if missing.size and set(range(n)) - set(missing) == set((y * width + x).tolist()):
            yield f"thread t took {how}: some pixels got two threads and others none", ROW_HINT
    if missing.size == n:
        yield "nothing was written: gray still holds its poison", "store pixel i: gray[i] = ..."
    if missing.size and not out.past.size:
        for stride, name in ((width, "width"), (_grid(case)[0], "gridDim.x")):
            yield from blocks_of(case, out, missing, reference(run.model), stride, name)
        yield from _block_a_row(run.kernel, width, case[2])
    if missing.size:
        yield (f"{missing.size} of {n} pixels were never written (the first at x = "
               f"{missing[0] % width}, y = {missing[0] // width}): some pixels got two threads "
               "and others none", ROW_HINT)
    yield from rounded_wrong(out.got, run.model, run.kernel)
    wrong = np.flatnonzero(np.abs(out.got.astype(int) - reference(run.model)) > 1)
    if wrong.size and (np.abs(out.got.astype(int) - reference(run.model[..., ::-1])) <= 1).all():
        yield (f"{wrong.size} of {n} grey values are wrong, each the grey of its pixel with red "
               "and blue swapped: the bytes were passed as blue, green, red (OpenCV's BGR "
               "order), rgb[3 * i + 2] as red and rgb[3 * i] as blue, so red got blue's weight "
               "0.114 and blue red's 0.299", "rgb holds each pixel's red, green, blue in that "
               "order: bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])")
    if wrong.size:
        yield from staged_without_a_barrier(run.kernel, run.launch, f"race in {case}")
        yield from _weights_swapped(out.got, run.model, wrong)
        yield from plain_average(out.got, run.model, wrong)
        for model in (channels_as_char, pixel_stride_left_out, planes_read, bracket_slip,
                      byte_read_twice, byte_of_a_neighbour, one_weight_off):  # channels wrong
            yield from model(out.got, run.model, wrong, reference)
        yield from near.misses("gray", out.got.reshape(-1, width), reference(run.model).reshape(
            -1, width), close=lambda a, b: np.abs(a - b) <= 1, index_hint=ROW_HINT)
        yield Wrong(f"{wrong.size} of {n} grey values are wrong (the first at x = "
                    f"{wrong[0] % width}, y = {wrong[0] // width})", "keep the stub's last two "
                    "lines: they convert pixel i = y * width + x, the one this thread took",
                    "gray", wrong[0])
    yield from read_before_the_guard(case, run.kernel)


def _guard_off(past, missing, n, threads):
    """A bounds guard that stops the wrong spare threads, every pixel written: only gray[n]
    past the end (t > width * height), or every element past it but gray[n] (t == width *
    height: only thread n returns; ``threads``, the grid's)."""
    if past.tolist() == [n]:
        yield ("gray[n] was written, one pixel past the end: the bounds guard is off by one",
               "the last pixel is width * height - 1: return when t >= width * height")
    if not missing.size and threads > n + 1 and np.array_equal(past, np.arange(n + 1, threads)):
        yield (f"threads t = {n + 1} to {threads - 1} wrote past the end of gray (as far as "
               f"gray[{threads - 1}]; it has {n} pixels), where thread t = {n} returned: the "
               f"guard t == width * height returns only the thread at t = {n}, and every t "
               "above it still writes", "every spare thread must return: if (t >= width * "
               "height) return; (>=, not ==)")


def _indexed_like_rgb(run, n, guard):
    """gray[k * i] for gray[i] (k = 3: the output indexed like rgb's pixels): grey pixel i's
    value at gray[k * i], every k-th pixel of gray written, and the stores of the threads with
    k * i >= n past its end (those of the ``guard`` after it, which the launch can see)."""
    written = np.flatnonzero(~run.out.unwritten.ravel())
    k = int(written[1]) if written.size > 1 and written[0] == 0 else 0
    if k < 2:
        return
    stores = k * np.arange(n)
    past = stores[(stores >= n) & (stores < n + guard)]
    grey = reference(run.model).ravel().astype(int)
    if not np.array_equal(written, stores[stores < n]) or set(run.out.past.tolist()) != \
            set(past.tolist()) or np.abs(run.out.got.ravel()[written] - grey[:written.size]).max() > 1:
        return
    yield (f"grey pixel i was stored at gray[{k} * i], where gray[i] belongs, as if it were "
           f"{k} bytes like rgb's: only one pixel in {k} of gray was written (gray[0], gray[{k}], "
           f"...), and the threads from t = {-(-n // k)} on wrote past its end (as far as "
           f"gray[{k * (n - 1)}]; it has {n} pixels)", "a grey pixel is one byte, unlike rgb's "
           "three: store pixel i at gray[i] (rgb[3 * i] is where its red byte starts)")


def _refine(failure):
    """A read of rgb past its end by thread t < width * height (the crash's fields: the block,
    the thread, the byte read) at pixel i = y * width + x of a split in ``SPLITS``, or at pixel
    i = x * width + y of the right split (``swapped_pixels``, the kernel's text): the guard let
    it through, and its split of t (or its index) sent it outside the image."""
    err, launch = failure.error, failure.launch
    yield from char_conversion(failure)   # bt601_gray's channels taken as char
    if failure.kind != "out of bounds" or getattr(err, "is_write", None) is not False or \
            launch is None or err.block is None or err.thread is None:
        return
    spec, (width, height) = launch.args[0], (int(a) for a in launch.args[2:4])
    block = launch.block[0]
    byte = (err.offset or 0) - spec.before * spec.values.itemsize
    t = np.array([err.block[0] * block + err.thread[0]])
    if err.allocation is None or err.allocation[1] != spec.host().nbytes or \
            t[0] >= width * height:
        return
    said = (f"thread t = {t[0]} (below width * height = {width * height}: the guard let it "
            f"through) read rgb[{byte}], past the end of the image's {3 * width * height} bytes")
    swapped = swapped_pixels(failure.kernel, t, width, height)
    if swapped and byte // 3 == swapped[0][0]:
        yield f"{said}: {swapped[1]}", swapped[2]
        return
    for split, problem, hint in SPLITS:
        x, y = split(t, width, height, block)
        i = int((y * width + x)[0])
        if i >= width * height and byte // 3 == i:
            yield (f"{said}, at pixel i = y * width + x = {i} (x = {x[0]}, y = {y[0]}): "
                   f"{problem}", hint)
            return


ROWS = (100, 37, 128)
"""A case where a block is longer than a row: taking x = threadIdx.x and y = blockIdx.x leaves
pixels unwritten that taking pixel t = threadIdx.x (blockIdx.x left out) writes."""


def _block_a_row(kernels, width, block):
    """x = threadIdx.x, y = blockIdx.x (a block a row assumed): on ``ROWS``, on the simulator,
    the pixels of i = blockIdx.x * width + threadIdx.x, for the threads t < width * height (all
    inside the image there), hold their grey values and the others the poison; named as the
    kernel's text writes it where it splits t by blockDim.x (``split_by_the_block``: the case's
    ``width`` and ``block`` for the verdict)."""
    t, launch = np.arange(ROWS[0] * ROWS[1]), _launch(ROWS)   # the threads the guard keeps
    drawn = np.zeros(t.size, bool)
    drawn[t // ROWS[2] * ROWS[0] + t % ROWS[2]] = True
    want = np.where(drawn, reference(launch.model).ravel(), sepia.POISONS[0]).astype(int)
    seen = microscope.observe(kernels, launch, key="a block a row", racecheck=False)
    if seen.crash is None and not drawn.all() and \
            np.abs(seen.outs[0].got.ravel().astype(int) - want).max() <= 1:
        split = split_by_the_block(kernels)
        took, hint = ("x = threadIdx.x and y = blockIdx.x", ROW_HINT) if split is None else (
            f"{split[0]} and {split[1]}, splitting t by the block's size, blockDim.x = {block}, "
            f"where the row's length, width = {width}, belongs: x came out threadIdx.x and y "
            "blockIdx.x",
            "split t by the row's length, not the block's: " + ROW_HINT.split(": ", 1)[1])
        yield (f"thread t took {took}, one block a row, but the grid is flat: a block's threads "
               "run on past a row's end into the next row, which the next block writes too, and "
               "the pixels past the last block's run are never written", hint)


def _tail(missing, n, width):
    """The last pixels, whole rows of them, never written: a guard that returns too early."""
    rows, first = missing.size // width, n - missing.size
    if first and rows and missing.size % width == 0 and missing.tolist() == list(range(first, n)):
        which = ("the last row of the image (y = height - 1)" if rows == 1 else
                 f"the last {rows} rows of the image (from y = {first // width})")
        yield (f"{which} was never written: the bounds guard returns too early, from threads "
               "that still have a pixel", "only the spare threads in the last block return: "
               "return when t >= width * height (y >= height), the last pixel being t = width * "
               "height - 1")


def _each_side(missing, n, width, height):
    """Only the pixels t < min(width, height) written: the flat index compared with each side
    (if (t >= width || t >= height) return;)."""
    side = min(width, height)
    if side < n and missing.tolist() == list(range(side, n)):
        yield (f"only the first {side} pixels were written (t below {side}, the image's "
               f"{'height' if side == height else 'width'}): the guard compared the flat index t "
               "with width and with height, as if it were x and y", "t counts every pixel of the "
               "image: return when t >= width * height")


def _fast(kernels):
    """What keeps a right kernel from FAST: on a GPU its bandwidth, on the simulator its trace;
    an index written column by column named from the trace (``index_by_columns``)."""
    why, hint = index_by_columns(kernels, _launch(TRACED), *TRACED[:2]) or (
        "its threads' pixels are far apart", ROW_HINT)
    if speed.on_gpu():
        kernel = kernels.device
        from helpers.backend import gpuarray

        (height, width), n = BIG, np.int32
        rgb = gpuarray.to_gpu(np.random.default_rng(4).integers(0, 256, (*BIG, 3), np.uint8))
        gray, grid = gpuarray.empty(BIG, np.uint8), _grid((width, height, 256))
        return (yield from speed.bandwidth(
            lambda: kernel(rgb, gray, n(width), n(height), block=(256, 1, 1), grid=grid),
            4 * height * width, TARGET, hint, f"3 bytes read and 1 written a pixel, on a "
            f"{width} x {height} image"))
    stats = traced(kernels, _launch(TRACED))
    loads, stores = stats.global_ld.sectors_per_request, stats.global_st.sectors_per_request
    figures = f"a warp's loads touch {loads:.1f} sectors a request and its stores {stores:.1f}"
    if max(loads, stores) > MAX_SECTORS:
        yield (f"on the simulator {figures}, where a warp along a row touches 3 or 4 and 1 or 2: "
               f"{why}", hint)
    return f"on the simulator {figures}"


EXERCISE = KernelExercise(
    stub="exercises/gray_coalesced.cu", kernel="gray_coalesced",
    signature="const unsigned char *rgb, unsigned char *gray, int width, int height",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes, fast=_fast,
    where=lambda c: f"{c[0]} x {c[1]} image, block = ({c[2]}, 1, 1), grid = {_grid(c)}",
    refine=_refine, crash_hint=GUARD_HINT + "; and take x = t % width, y = t / width: another split of t can "
    "land outside the image", simulated="runs the race check and the trace", observed=_observed,
    observed_as="race-checked",
    success=f"every pixel's grey value is NumPy's on {len(CASES) - 1} images (a pixel a thread, "
            "spare threads in the last block), nothing written past the end, each pixel by one "
            "thread")

check_gray_coalesced = EXERCISE.check_file          # (path="exercises/gray_coalesced.cu")
check_gray_coalesced_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
