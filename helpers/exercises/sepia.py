"""Checker for the exercise in notebook 04: ``cuda_src/exercises/sepia.cu``.

``sepia(rgb, out, width, height)`` writes each pixel of an interleaved RGB image (bytes ``3*i``
to ``3*i + 2`` of pixel ``i = y * width + x``) through the ``SEPIA`` matrix, rounded and clamped
to 255, in the same layout. Any byte can be a right answer, so each case runs twice, the output
poisoned with a different byte each time (``POISONS``). The last case runs on the simulator,
race-checked (``helpers.exercises.microscope``), whatever the backend: a kernel in which every
thread converts every pixel gives the right image, but each pixel is written by every thread.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from helpers.exercises import near as near_miss
from helpers.exercises.common import Input, Output, one_further
from helpers.exercises.coverage import Grid, Words, coverage, past_the_end
from helpers.exercises.failure import shared_by_the_block
from helpers.exercises.gray_coalesced_models import half_outside_the_cast
from helpers.exercises.hidden import grids
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import (kernel_words, observe, source_line, written_by_two,
                                          written_twice)
from helpers.exercises.origin import Wrong
from helpers.exercises.sepia_guard import read_before_the_guard
from helpers.exercises.sepia_models import (CHANNEL_NAMES, JUNK, SEPIA, _differs, _larger_kept,
                                            clamped_low, copied_channel, integer_weights,
                                            mixed_up, near, one_channel, reference)
from helpers.exercises.sepia_unset import read_unset

CASES = [Grid(37, 53, (16, 16)), Grid(71, 45, (32, 8))]  # odd sides, wide and tall, two blocks


OBSERVED = Grid(5, 7, (4, 4), observe=True)
"""The last case: a small image on the simulator alone, race-checked; not in CASES, which
OpenCL's port shares."""
POISONS = (0xEF, 0x10)
"""The output's fill before each of the two runs (a byte that holds each run's own was never
written)."""
INDEX_HINT = ("x = blockIdx.x * blockDim.x + threadIdx.x (the column), "
              "y = blockIdx.y * blockDim.y + threadIdx.y (the row), pixel i = y * width + x")
GUARD_HINT = ("the grid is rounded up to whole blocks, so some threads lie outside the image: "
              "start the kernel with if (x >= width || y >= height) return;")
WILD_HINT = (GUARD_HINT + "; and pixel (x, y) is i = y * width + x, its bytes 3*i to 3*i + 2")
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT,
              store_hint="each thread should store its three results in out[3*i], out[3*i + 1], "
                         "out[3*i + 2]")
LAYOUT_HINT = ("pixel i's red, green and blue are at 3*i, 3*i + 1 and 3*i + 2, in rgb and in out "
               "alike, and row c of the matrix gives output channel c: "
               "out[3*i] = 0.393f*r + 0.769f*g + 0.189f*b, and so on")


def draw(rng):
    """The grader's cases: two more images with odd sides, on the shipped blocks (OpenCL's too)."""
    return grids(rng, [case.block for case in CASES], 3, 120, 2)


def _launch(case):
    h, w = case.height, case.width
    rgb = np.random.default_rng(h * 1000 + w).integers(0, 256, (h, w, 3), dtype=np.uint8)
    span, size = 3 * case.span(), 3 * h * w
    return Launch((Input(rgb, span - size, JUNK), Output(
        (h, w, 3), np.uint8, span + 64 - size, poisons=POISONS), np.int32(w), np.int32(h)),
        **case.launch(), model=rgb)


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), "each thread converts only its own pixel: "
                         "x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y "
                         "+ threadIdx.y, i = y * width + x, then out[3*i], out[3*i + 1], "
                         "out[3*i + 2] = ...; no loop over all the pixels", items="pixels",
                         refine=shared_by_the_block)


SIGNED_HINT = ("the channels are unsigned char, 0 to 255, as rgb holds them: read them into "
               "float (or unsigned char): float r = rgb[3 * i], g = rgb[3 * i + 1], "
               "b = rgb[3 * i + 2]")


def signed_tone(rgb):
    """The sepia of channels read into a signed char (-128 to 127), as a GPU gives it: a sum
    below 0 converts to unsigned char as 0 (its conversion saturates)."""
    sums = rgb.view(np.int8).astype(np.float64) @ SEPIA.T
    return np.clip(np.floor(sums + 0.5), 0, 255).astype(np.uint8)


def _signed(rgb, got):
    """Channels read as signed chars: the bytes 128 and more made negative (a GPU's output)."""
    if (rgb >= 128).any() and near(got, signed_tone(rgb)) and not near(got, reference(rgb)):
        yield ("bytes of 128 and more became negative: the channels were read into a char, "
               "which holds -128 to 127, so 128 to 255 turned into -128 to -1 and the sums "
               "came out too small (below 0 stored as 0)", SIGNED_HINT)


TRIPLED = ("the index was multiplied by 3 twice: i = 3 * (y * width + x) is already the "
           "pixel's first byte, and the reads and stores multiply it by 3 again (9 * the pixel), "
           "so the {}s of the image's last two thirds went past its end")
TRIPLED_HINT = ("multiply by 3 once: i = y * width + x is the pixel's index, its bytes 3*i, "
                "3*i + 1 and 3*i + 2 (the 3 is in the reads' and stores' 3 * i already)")


def _tripled_crash(failure):
    """An access past the end of rgb or out by a thread inside the image, at byte 9 * i to
    9 * i + 2 of its pixel i = y * width + x: the index multiplied by 3 twice."""
    err, launch = failure.error, failure.launch
    rgb = getattr(launch, "model", None)
    if failure.kind != "out of bounds" or err.offset is None or rgb is None or \
            not err.thread or not err.block or not getattr(err, "allocation", None):
        return
    x, y = (err.block[k] * launch.block[k] + err.thread[k] for k in range(2))
    i = y * rgb.shape[1] + x
    if y < rgb.shape[0] and x < rgb.shape[1] and 0 <= err.offset - 9 * i < 3:
        did = "wrote" if err.is_write else "read"
        yield (f"the thread of pixel (x = {x}, y = {y}), inside the image, {did} byte "
               f"{err.offset} = 9 * {i} + {err.offset - 9 * i}, past the end of the image's "
               f"bytes: {TRIPLED.format('thread')}", TRIPLED_HINT)


def _tripled(rgb, out, thread="thread"):
    """Every third pixel of the image right (pixel 3k stored by the thread of pixel k) and the
    others never written, bytes past the end of out written: the index multiplied by 3 twice, on
    a GPU, where the reads and stores past the end do not stop the kernel."""
    pixels, unwritten = rgb.reshape(-1, 3), out.unwritten.reshape(-1, 3)
    third = np.arange(len(pixels)) % 3 == 0
    if out.past.size and (unwritten.all(axis=1) == ~third).all() and \
            near(out.got.reshape(-1, 3)[third], reference(rgb).reshape(-1, 3)[third]):
        yield (f"only every third pixel (0, 3, 6, ...) was written, each right, and bytes past "
               f"the end of out too: {TRIPLED.format(thread)}", TRIPLED_HINT)


def _refine(failure):
    """A conversion that stopped on a negative sum (its fields: the value, the type, the thread)
    which the thread's pixel gives with its channels read as signed chars."""
    err, launch = failure.error, failure.launch
    value, to_type = getattr(err, "value", None), getattr(err, "to_type", None) or ""
    rgb = getattr(launch, "model", None)
    yield from _tripled_crash(failure)
    if failure.kind != "conversion" or value is None or rgb is None or not getattr(
            err, "thread", None) or not to_type.startswith("unsigned"):
        return
    x, y = (err.block[k] * launch.block[k] + err.thread[k] for k in range(2))
    if not (y < rgb.shape[0] and x < rgb.shape[1] and rgb[y, x].max() >= 128):
        return
    sums = rgb[y, x].view(np.int8).astype(np.float64) @ SEPIA.T + 0.5
    if np.isclose(sums, value, atol=1e-2).any():
        yield (f"pixel (x = {x}, y = {y}) has channels {', '.join(map(str, rgb[y, x]))}, and its "
               f"sepia value (its sum + 0.5f) came out {value:g}, which bytes 0 to 255 never give: the channels were "
               "read into a char, which holds -128 to 127, so 128 to 255 turned into -128 to -1 "
               f"(the conversion of {value:g} to {to_type} stopped the kernel on the simulator; "
               "a GPU gives 0)", SIGNED_HINT)


def _mistakes(case, run):
    yield from _and_or_width(case, run)
    yield from _tripled(run.model, run.out)
    yield from _guard_on_the_thread(run)
    yield from _steps_by_the_grid(case, run.out)
    yield from written_mistakes(run.out, case, WORDS, WILD_HINT, WILD_HINT)
    yield from _signed(run.model, run.out.got)
    yield from _half_outside(run.model, run.out.got, run.kernel)
    yield from read_unset(run.kernel, run.model, run.out.got)
    yield from _wrong_values(run.model, run.out.got)
    yield from _read_before_the_guard(case, run.kernel)


def _half_outside(rgb, got, kernels):
    """Every wrong value one below NumPy's where the sum's fraction is .5 or more, and a store
    that adds the 0.5 after a closing parenthesis, out[3 * i] = (unsigned char)fminf(r2, 255.0f)
    + 0.5f (``half_outside_the_cast``, read in the kernel's text): the cast drops the fraction,
    the store into out the 0.5."""
    exact = rgb @ SEPIA.T
    wrong = _differs(got, reference(rgb), exact)
    if not wrong.any() or _differs(got, reference(rgb, half=0.0), exact, boundary=0.0).any():
        return
    if (statement := half_outside_the_cast(kernels)) is None:
        return
    wy, wx, wc = np.argwhere(wrong)[0]
    value = re.search(r"\(\s*(\w+)\s*,", statement)
    value = value.group(1) if value else "value"
    yield (f"{int(wrong.sum())} values are one below NumPy's, each where the sum's fraction is .5 "
           f"or more (x = {wx}, y = {wy}, {CHANNEL_NAMES[wc]}: the sum is "
           f"{exact[wy, wx, wc]:.3f}, got {got[wy, wx, wc]}): the + 0.5f is outside the cast: "
           f"{statement} converts {value} to unsigned char first, which drops its fraction, then "
           "adds 0.5 to the whole number, and the store into out drops that 0.5 again",
           "move the + 0.5f inside the cast, onto the float sum, before the clamp: "
           f"(unsigned char)fminf({value} + 0.5f, 255.0f), in each channel's store")


def _read_before_the_guard(case, kernels):
    """Every pixel right, but rgb read above the bounds guard in the kernel's text (its simulated
    twin's source): the threads outside the image read past rgb's end (``sepia_guard``)."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, _, _, end = text
    yield from read_before_the_guard(case, source[:tokens[end].end], kernels.simulated.name,
                                     functools.partial(source_line, source))


def _steps_by_the_grid(case, out):
    """x = blockIdx.x * gridDim.x + threadIdx.x, or y's line with gridDim.y, where the block's
    side belongs: the pixels written are exactly those whose column (row) is b * gridDim + t for
    a block b and a thread t of it, nothing past the end, the rest never written."""
    written = ~out.unwritten.all(axis=2)
    if out.past.size or written.all() or (out.unwritten.any(axis=2) & written).any():
        return
    y, x = np.indices(written.shape)
    for side, place, length, blocks, size, what in (
            ("y", y, case.height, case.grid[1], case.block[1], "height"),
            ("x", x, case.width, case.grid[0], case.block[0], "width")):
        reach = np.isin(place, np.arange(blocks)[:, None] * blocks + np.arange(size))
        if not np.array_equal(written, reach):
            continue
        kept = np.unique(place[reach])
        rows = "rows" if side == "y" else "columns"
        which, rest = ((f"{side} = {kept[0]} to {kept[-1]}", f"{side} = {kept[-1] + 1} to "
                        f"{length - 1}") if kept.size == kept[-1] + 1 else
                       (f"{kept.size} of the {length}", "the others"))
        gap = ("the blocks' " + rows + " overlap" if blocks < size else
               f"{blocks - size} {rows} are skipped between blocks")
        yield (f"only {rows} {which} were written, those {side} = "
               f"blockIdx.{side} * gridDim.{side} + threadIdx.{side} reaches: the "
               f"{'row' if side == 'y' else 'column'}'s line steps from one block to the next "
               f"by gridDim.{side} = {blocks}, the grid's number of blocks "
               f"{'down' if side == 'y' else 'across'}, where the block's {what} "
               f"blockDim.{side} = {size} belongs, so {gap} and {rest} got no thread",
               f"{side} = blockIdx.{side} * blockDim.{side} + threadIdx.{side}")


THREAD_PROBE = Grid(12, 10, (16, 16))
"""An image smaller than its block, launched with a spare block in x and in y: a guard on
threadIdx lets through the spare blocks' threads with threadIdx.x < width, threadIdx.y < height."""


def _guard_on_the_thread(run):
    """Stores past the end of out: a launch of THREAD_PROBE with a spare block in x and y shows a
    guard on threadIdx.x and threadIdx.y, where the pixel's x and y belong."""
    if not run.out.past.size:
        return
    (gx, gy), (bx, by) = THREAD_PROBE.grid, THREAD_PROBE.block
    w, h = THREAD_PROBE.width, THREAD_PROBE.height
    y, x = np.indices(((gy + 1) * by, (gx + 1) * bx))
    index = (y * w + x)[(x % bx < w) & (y % by < h)]
    rgb, room = np.zeros((h, w, 3), np.uint8) + 200, 3 * (int(index.max()) + 1) + 64 - 3 * w * h
    launched = EXERCISE.run(run.kernel, Launch(
        (Input(rgb, room, JUNK), Output((h, w, 3), np.uint8, room, poisons=POISONS),
         np.int32(w), np.int32(h)), block=(bx, by, 1), grid=(gx + 1, gy + 1), model=rgb))
    try:
        next(launched)
        return
    except StopIteration as stop:
        seen = stop.value
    if seen is not None and set((seen.out.past // 3).tolist()) == set(index[index >= w * h].tolist()):
        yield ("threads outside the image wrote past the end of out, though there is a guard: "
               "it tests threadIdx.x and threadIdx.y, the thread's place in its block, which "
               "stay below the block's size, where the pixel's x and y belong (an image of "
               f"{w} x {h} pixels launched with a spare block in x and in y: the spare blocks' "
               f"threads with threadIdx.x < {w} and threadIdx.y < {h} wrote past its end)",
               "guard the pixel, not the thread's place in its block: "
               "if (x >= width || y >= height) return;")


def _and_or_width(case, run):
    """A guard joined with && and one comparing y with width send the same stores past the end
    on an image wider than tall whose grid has no more rows of threads than it is wide: the race
    check on the simulator (OBSERVED) tells them apart, since with && the threads past the last
    column also write the next row's first pixels, which those pixels' own threads write."""
    w, h, past = case.width, case.height, set((run.out.past // 3).tolist())
    if not past or w <= h or not past == case.unguarded(
            through=lambda x, y: (x < w) | (y < h)) == case.unguarded(
            through=lambda x, y: (x < w) & (y < w)):
        return
    if written_by_two(observe(run.kernel, _launch(OBSERVED), key="guard").race):
        yield ("the guard stops only the threads outside in both x and y (&&): those outside in "
               "one of them wrote past the end of out, and (the race check on the simulator "
               "shows) into the next row's first pixels", "a thread outside in either must "
               "return (||): " + GUARD_HINT)
    yield ("the guard compares y with width: threads below the image wrote past the end of out",
           "x goes with width, y with height: " + GUARD_HINT)


def written_mistakes(out, case, words, wild_hint, guard_hint):
    """The mistakes of where a sepia kernel wrote, from its output's ``common.Result`` (two
    launches, two poisons), in the words of CUDA's exercise or OpenCL's port."""
    unwritten = out.unwritten
    yield from one_further("out", "byte", out.past, unwritten, "pixel i's R', G', B' are bytes "
                           "3*i, 3*i + 1 and 3*i + 2 of out: out[3*i] = ..., not out[3*i + 1]")
    yield from _stored_at_the_pixel_index(unwritten, words.thread)
    # A byte left unwritten is a poison in both runs, whatever other threads race to write:
    # on a GPU, a store into the next pixel's byte also makes the runs differ, a consequence.
    if (unwritten.any(axis=2) != unwritten.all(axis=2)).any():
        missing = [name for name, count in zip(CHANNEL_NAMES, unwritten.sum(axis=(0, 1))) if count]
        yield ("some pixels have only some of their three bytes written "
               f"({', '.join(missing)} missing in places)",
               "a pixel takes 3 bytes of out: write out[3*i], out[3*i + 1] and out[3*i + 2], "
               "with i = y * width + x the pixel's index (not the byte's)")
    if out.differs:
        yield ("two runs of the kernel on the same image wrote different values",
               "each output byte must depend only on its own pixel's input: "
               "read rgb[3*i ...], write out[3*i ...] for the same i")
    yield from past_the_end(out.past // 3, case, words, wild_hint)
    yield from coverage((), unwritten.all(axis=2), case, words, guard_hint)


def _stored_at_the_pixel_index(unwritten, thread):
    """Bytes 0 to n + 1 of out written, the rest never (n pixels): the three stores at i, i + 1
    and i + 2, the pixel's index for the byte's. (The stores overlap the next pixels', so their
    values race on a GPU; which bytes were written does not.)"""
    flat, n = unwritten.ravel(), unwritten.size // 3
    if n > 1 and np.array_equal(flat, np.arange(flat.size) >= n + 2):
        yield (f"only bytes 0 to {n + 1} of out were written ({n} pixels, {3 * n} bytes): the "
               "stores use the pixel's index i as the byte's: out[i], out[i + 1], out[i + 2] "
               f"(so {thread} i's three bytes overlap those of {thread}s i + 1 and i + 2)",
               "pixel i's bytes are 3*i, 3*i + 1 and 3*i + 2: store out[3*i], out[3*i + 1] and "
               "out[3*i + 2], with i = y * width + x (which counts pixels, not bytes)")


def _wrong_values(rgb, got, block=None, models=(), first_pixel=0):
    """The mistakes the values show, once every byte of out was written (none when right);
    ``block``, for the near misses (``helpers.exercises.near``): the values as one run, in blocks
    of (size, word), where the rows of the image are the default; ``models``, the mistakes an
    exercise's own models of wrong kernels find, before the generic verdict; ``first_pixel``,
    the pixel of out where ``got`` starts."""
    exact, want = rgb @ SEPIA.T, reference(rgb)
    wrong = _differs(got, want, exact)
    if not wrong.any():
        return
    wy, wx, wc = np.argwhere(wrong)[0]
    at = f"x = {wx}, y = {wy}, {CHANNEL_NAMES[wc]}"
    if (wrong <= (exact + 0.5 >= 256)).all() and (got[wrong] == 0).all():
        yield (f"{int(wrong.sum())} values are 0 where the sum goes past 255 ({at}: got 0, "
               f"expected 255, the sum is {exact[wy, wx, wc]:.1f}): the clamp lets 256 through "
               "(a ceiling of 256.0f where 255.0f belongs), and an unsigned char cannot hold "
               "256: 256 becomes 0", "clamp to 255, the largest unsigned char: (unsigned "
               "char)fminf(r2 + 0.5f, 255.0f), and so for g2 and b2")
    if (wrong <= (exact + 0.5 >= 256)).all():
        yield (f"{int(wrong.sum())} values are wrong, all where the sum goes past 255 "
               f"({at}: got {got[wy, wx, wc]}, expected {want[wy, wx, wc]}, the unclamped sum "
               f"is {exact[wy, wx, wc]:.1f})",
               "clamp before converting: a float above 255 turned into unsigned char wraps "
               "around (300 becomes 44). Use fminf(value + 0.5f, 255.0f)")
    yield from clamped_low(rgb, got, exact)
    if not _differs(got, reference(rgb, half=0.0), exact, boundary=0.0).any():
        yield (f"{int(wrong.sum())} values are one below NumPy's, each where the sum's fraction "
               f"is .5 or more ({at}: the sum is {exact[wy, wx, wc]:.3f}, got "
               f"{got[wy, wx, wc]}): the kernel truncates instead of rounding (no + 0.5f, or "
               "the fraction already lost before it)",
               "converting a float to unsigned char drops the fraction, and so does an integer "
               "division (an int / 1000 is an int): keep the sum a float (0.393f * r + ...), "
               "then (unsigned char)fminf(value + 0.5f, 255.0f)")
    if _larger_kept(exact, got):
        yield (f"{int(wrong.sum())} of {got.size} values are wrong, every value below 255 "
               "turned into 255: fmaxf keeps the larger of its two arguments",
               "clamp with fminf(value + 0.5f, 255.0f), which keeps the smaller")
    wrapped = _differs(got, (np.floor(exact) % 256).astype(np.uint8), exact, boundary=0.0)
    for c in np.flatnonzero(wrong.any(axis=(0, 1)) & ~wrapped.any(axis=(0, 1)))[:1]:
        yield (f"the {CHANNEL_NAMES[c]} values lost their fraction, and those past 255 wrapped "
               f"around: the {CHANNEL_NAMES[c]} sum was kept in an unsigned char",
               "keep each sum a float (float r2 = ...), then round and clamp it as you store it: "
               "(unsigned char)fminf(r2 + 0.5f, 255.0f)")
    yield from integer_weights(rgb, got, wrong)
    yield from copied_channel(rgb, got, exact)
    yield from mixed_up(rgb, got, LAYOUT_HINT)
    shape = (-1,) if block else (got.shape[0], -1)
    yield from near_miss.misses("out", got.reshape(shape), want.reshape(shape), block=block,
                           close=lambda a, b: np.abs(a - b) <= 1, index_hint=LAYOUT_HINT)
    yield from one_channel(rgb, got, exact)
    yield from models
    if not _differs(got, reference(rgb, half=1.0), exact, boundary=0.0).any():
        yield (f"{int(wrong.sum())} values are one above NumPy's, each where the sum's fraction "
               f"is below .5 ({at}: the sum is {exact[wy, wx, wc]:.3f}, got {got[wy, wx, wc]}): "
               "ceilf rounds every fraction up", "round to the nearest level with + 0.5f as you "
               "clamp: (unsigned char)fminf(value + 0.5f, 255.0f)")
    yield Wrong(f"{int(wrong.sum())} of {got.size} values are wrong (the first is {at}: got "
                f"{got[wy, wx, wc]}, expected {want[wy, wx, wc]})",
                LAYOUT_HINT + "; round with + 0.5f and clamp to 255", "out",
                3 * first_pixel + np.ravel_multi_index((wy, wx, wc), got.shape))


EXERCISE = KernelExercise(
    stub="exercises/sepia.cu", kernel="sepia",
    signature="const unsigned char *rgb, unsigned char *out, int width, int height",
    cases=[*CASES, OBSERVED], draw=draw, launch=_launch, mistakes=_mistakes,
    where=lambda c: c.where(), refine=_refine,
    crash_hint="a thread went outside the image: " + WILD_HINT,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success="every pixel matches NumPy's sepia, rounded and clamped, for every size tried "
            f"({len(CASES)} images with odd sides, two block shapes), "
            "nothing written outside the image, each pixel by one thread")

check_sepia = EXERCISE.check_file          # (path="exercises/sepia.cu")
check_sepia_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
