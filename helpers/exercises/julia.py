"""Checker for the Julia-set exercise of notebook 03 (``cuda_src/exercises/julia.cu``): pixel
(x, y) starts at z = (x_min + x*dx) + i*(y_min + y*dy) and counts the steps of z = z*z + c until
|z|^2 > 4, at most max_iter, into iters[y*width + x]. A GPU contracts ``a*b + c`` into one fused
multiply-add, and near the set's edge a pixel may then escape a step earlier or later than in
NumPy: up to ``TOLERANCE`` of the pixels may differ (on an H200 the solution differs in 0.14% of
the first case's pixels and 0.007% of the second's; each known mistake changes at least 5%).
The last case runs on the simulator, race-checked (``helpers.exercises.microscope``), whatever the
backend: a kernel in which every thread computes every pixel gives the right image, but each
pixel is written by every thread (and on the simulator such a kernel runs out of time first:
``_detect``).
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Output
from helpers.exercises.coverage import (Grid, Words, coverage, crossed_block, crossed_index,
                                        factors_swapped)
from helpers.exercises.escape import escape_counts, pixel_grid
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.julia_models import (count_mistakes, escape_never_leaves, one_index,
                                            store_after_the_guard, stored_only_on_escape,
                                            wrong_loops)
from helpers.exercises.julia_starts import wrong_starts
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import accesses_of, observe, written_by_two, written_twice
from helpers.exercises.or_guard import return_guard_with_and
from helpers.exercises.verdict import matches

WORDS = Words(index_hint="x = blockIdx.x * blockDim.x + threadIdx.x, and the same for y",
              guard_hint="the grid is rounded up to whole blocks, so some threads fall outside "
                         "the image: add if (x >= width || y >= height) return; before writing",
              array="iters")
TOLERANCE = 0.01  # the largest fraction of pixels that may differ from NumPy's

# The cases the checker runs: image sides that are not multiples of the block, a non-square image
# both ways round, two values of c, two iteration limits; then a grid of eighths (every point
# exact in float32) through z = -2 and 2, where |z|^2 is 4 and the loop goes on ("exact"); last a
# small one on the simulator, race-checked.
CASES = [
    dict(width=203, height=141, block=(16, 16, 1), view=(-1.6, -1.0, 1.6, 1.0),
         c=(-0.8, 0.156), max_iter=100),
    dict(width=77, height=190, block=(32, 8, 1), view=(-1.2, -1.5, 1.2, 1.5),
         c=(0.285, 0.01), max_iter=60),
    dict(width=33, height=17, block=(16, 8, 1), view=(-2.0, -1.0, 2.125, 1.125),
         c=(-0.8, 0.156), max_iter=40, exact=True),
    dict(width=9, height=5, block=(4, 4, 1), view=(-1.6, -1.0, 1.6, 1.0), c=(-0.8, 0.156),
         max_iter=20, observe=True),
]
OWN_PIXEL = ("each thread computes only its own pixel: x = blockIdx.x * blockDim.x + threadIdx.x, "
             "and the same for y, then iters[y * width + x] = n; no loop over all the pixels")


def _draw(rng):
    """The grader's cases: the shipped views (the tolerance's) on other sides and blocks."""
    blocks = [case["block"] for case in CASES[:2]]
    return [dict(case, block=(block := pick(rng, blocks)), width=awkward(rng, block[0], 20, 260),
                 height=awkward(rng, block[1], 20, 260)) for case in CASES[:2]]


def julia_reference(width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter) -> np.ndarray:
    """NumPy reference of the ``julia`` kernel: int32 array of shape (height, width)."""
    return escape_counts(*pixel_grid(width, height, x_min, y_min, dx, dy), c_re, c_im, max_iter)


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal but for at most TOLERANCE of the elements (same shape required)."""
    return a.shape == b.shape and np.mean(a != b) <= TOLERANCE


def _args(case):
    """``julia``'s arguments after iters (width, height, ..., max_iter), from the case."""
    width, height = case["width"], case["height"]
    x_min, y_min, x_max, y_max = case["view"]
    return (width, height, x_min, y_min, (x_max - x_min) / width, (y_max - y_min) / height,
            *case["c"], case["max_iter"])


def _wrong_answers(case, ref):
    """Images that known mistakes produce, with the hint for each (checked in this order)."""
    width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter = _args(case)
    re, im = pixel_grid(width, height, x_min, y_min, dx, dy)
    swapped_re, swapped_im = (a.T for a in pixel_grid(height, width, x_min, y_min, dx, dy))
    yield (escape_counts(np.zeros_like(re), np.zeros_like(im), re, im, max_iter),
           "this is the Mandelbrot set (z starting at 0, c the pixel's point)",
           "in a Julia set z STARTS at the pixel's point, z = (x_min + x*dx) + i*(y_min + y*dy), "
           "and c = c_re + i*c_im is the same for every pixel")
    zero = escape_counts(np.zeros_like(re), np.zeros_like(im), c_re, c_im, max_iter)
    start = "set z_re = x_min + x*dx and z_im = y_min + y*dy before the loop"
    if (zero == max_iter).all():  # 0 never escapes for this c: a loop with no exit looks the same
        yield (zero, "every pixel has the same count: no pixel escaped, as when z starts at 0 "
               "(whose orbit never escapes for this c) or the loop never ends once |z|^2 > 4",
               f"{start}, and end the loop once |z|^2 > 4")
    yield (zero, "every pixel has the same count: z starts at 0 instead of at the pixel's point",
           start)
    yield (escape_counts(swapped_re, swapped_im, c_re, c_im, max_iter), "the image is computed "
           "with x and y swapped (z starts at (x_min + y*dx) + i*(y_min + x*dy))",
           "x (the column) goes with x_min and dx, y (the row) with y_min and dy")
    yield from one_index(*_args(case))
    yield (ref[::-1], "the image is upside down: row y started at the imaginary part of row "
           "height - 1 - y", "z_im = y_min + y*dy: row 0 is y_min, at the top of the array")
    yield (escape_counts(im, re, c_re, c_im, max_iter),
           "the real and imaginary parts of the starting point are swapped",
           "z_re = x_min + x*dx (x is the column), z_im = y_min + y*dy (y is the row)")
    for c, problem in (((c_im, c_re), "c_re and c_im are swapped"),
                       ((c_re, c_re), "z_im's update adds c_re where c_im belongs (z_im = "
                        "2*z_re*z_im + c_re)"),
                       ((c_im, c_im), "z_re's update adds c_im to the real part too: c_im twice")):
        yield (escape_counts(re, im, *c, max_iter), problem,
               "c = c_re + i*c_im: add c_re to the real part and c_im to the imaginary part")
    yield (escape_counts(re, im, re, im, max_iter), "each step adds the pixel's own point where c "
           "belongs (z = z*z + the point z started at, the Mandelbrot habit)", "in a Julia set c "
           "is the kernel's c_re + i*c_im, the same for every pixel: z_im = 2.0f * z_re * z_im + "
           "c_im; z_re = re2 - im2 + c_re")
    yield (escape_counts(re[:, np.arange(width) % case["block"][0]], im, c_re, c_im, max_iter),
           "z_re takes threadIdx.x where it takes x: each stretch of blockDim.x pixels of a row "
           "repeats the first's", "z_re = x_min + x*dx, with x = blockIdx.x * blockDim.x + "
           "threadIdx.x, the pixel's column")
    yield from wrong_starts(*_args(case))
    yield from wrong_loops(re, im, c_re, c_im, max_iter)
    yield from count_mistakes(ref, width, height, max_iter)


def _grid(case) -> Grid:
    return Grid(case["height"], case["width"], case["block"])


def _launch(case):
    """A guard zone of a block's worth of extra rows, where a kernel with no guard writes."""
    width, height, *floats, max_iter = _args(case)
    bx, by, _ = case["block"]
    return Launch((Output((height, width), np.int32, guard=by * width + bx), np.int32(width),
                   np.int32(height), *map(np.float32, floats), np.int32(max_iter)),
                  block=case["block"], grid=_grid(case).grid, model=julia_reference(*_args(case)))


def _mistakes(case, run):
    got, ref = run.out.got, run.model
    yield from _returned_in_the_loop(run.out.unwritten, ref < case["max_iter"])
    yield from stored_only_on_escape(run, ref < case["max_iter"], TOLERANCE)
    yield from _crossed(case, run)
    yield from _blocks_grid_dim_apart(case, run.out, ref)
    if run.out.unwritten.any() and np.mean((got != ref)[~run.out.unwritten]) <= TOLERANCE:
        yield from factors_swapped(~run.out.unwritten, _grid(case), WORDS)
    yield from store_after_the_guard(run.kernel, run.out.past, _grid(case))
    yield from return_guard_with_and(run.out.past, _grid(case), WORDS, run.kernel)
    yield from coverage(run.out.past, run.out.unwritten, _grid(case), WORDS, WORDS.guard_hint)
    yield from _wrapped(case, got, ref, run)
    re, im = pixel_grid(*_args(case)[:6])
    edge = (re * re + im * im == 4) & bool(case.get("exact"))
    if _close(got, ref) and (got[edge] == ref[edge]).all():
        return
    if _close(got, ref) and (got[edge] == 0).all():
        yield ("the pixels where |z|^2 starts at exactly 4 (z = -2 and 2) count 0: the loop "
               "stops at |z|^2 >= 4", "z escapes only once |z|^2 > 4: break at re2 + im2 > 4.0f "
               "(not >=), or loop while |z|^2 <= 4.0f (not <)")
    yield from _kept_in_ints(case, got)
    if (got == case["max_iter"]).all():
        yield from _z_never_changes(run.kernel)
    yield from matches(got, _wrong_answers(case, ref), _close)
    yield from near.misses("iters", got, ref, close=np.equal, slack=TOLERANCE)
    bad = got != ref
    y, x = np.argwhere(bad)[0]
    yield (f"{bad.mean():.1%} of the pixels differ from NumPy's, the first at (x={x}, y={y}): got "
           f"{got[y, x]}, expected {ref[y, x]}", "compare your loop with the Mandelbrot kernel's: "
           "the new z_re and z_im must both be computed from the old values, and n counts the "
           "steps taken")


def _crossed(case, run):
    """x and y from one thread index, or from one block index: which one, from the two threads
    of the race-checked launch that drew one pixel (they differ only in the other index)."""
    if not run.out.unwritten.any():
        return
    race = observe(run.kernel, _launch(CASES[-1])).race
    both = block = None
    if written_by_two(race):
        same = [a == b for a, b in zip(race.first.thread, race.second.thread)]
        both = {(True, False): "threadIdx.x", (False, True): "threadIdx.y"}.get(tuple(same[:2]))
        same = [a == b for a, b in zip(race.first.block, race.second.block)]
        block = {(True, False): "blockIdx.x", (False, True): "blockIdx.y"}.get(tuple(same[:2]))
    yield from crossed_index(~run.out.unwritten, _grid(case), WORDS, both)
    yield from crossed_block(~run.out.unwritten, _grid(case), WORDS, block)


def _blocks_grid_dim_apart(case, out, ref):
    """x = blockIdx.x * gridDim.x + threadIdx.x (or y's with gridDim.y, or both): the blocks'
    first pixels lie gridDim apart, where they lie blockDim apart. Named where the pixels drawn
    are exactly those such an index reaches, and right (a stride that is the other side of the
    block is ``coverage.reached``'s)."""
    grid, done = _grid(case), ~out.unwritten
    if done.all() or not done.any():
        return
    axes = (("x", "columns", "wide", grid.width, *grid.block[:2], grid.grid[0]),
            ("y", "rows", "tall", grid.height, *grid.block[1::-1], grid.grid[1]))
    for wrong in ((True, False), (False, True), (True, True)):
        if any(bad and blocks in (side, other) for bad, (*_, side, other, blocks) in
               zip(wrong, axes)):
            continue   # gridDim equals blockDim (nothing to see) or the block's other side
        reach = [np.isin(np.arange(axis[3]), np.arange(axis[6])[:, None] *
                         (axis[6] if bad else axis[4]) + np.arange(axis[4]))
                 for bad, axis in zip(wrong, axes)]
        if np.array_equal(done, reach[1][:, None] & reach[0][None, :]) and \
                np.mean(out.got[done] != ref[done]) <= TOLERANCE:
            bad = [(axis, reached) for flag, axis, reached in zip(wrong, axes, reach) if flag]
            yield (f"{int(out.unwritten.sum())} of {out.unwritten.size} pixels were never "
                   "written: " + "; and ".join(_apart(*each) for each in bad),
                   "blocks lie blockDim pixels apart (gridDim is how many blocks there are): "
                   + ", ".join(f"{n} = blockIdx.{n} * blockDim.{n} + threadIdx.{n}"
                               for n in (axis[0] for axis, _ in bad)))


def _apart(axis, reach):
    """The words for one index that took gridDim for blockDim, and what it left undrawn."""
    name, lines, size, length, side, _, blocks = axis
    missed = np.flatnonzero(~reach)
    where = (f"{lines} {missed[0]} to {length - 1} were never drawn" if
             np.array_equal(missed, np.arange(missed[0], length)) else
             f"{missed.size} {lines} were never drawn, the first {missed[0]}")
    return (f"{name} = blockIdx.{name} * gridDim.{name} + threadIdx.{name} starts block b's "
            f"{lines} at b * {blocks} (gridDim.{name}, the number of blocks), not b * {side} "
            f"(blockDim.{name}): the blocks, {side} {lines} {size}, "
            f"{'overlap' if blocks < side else 'leave gaps between them'}, and {where}")


def _wrapped(case, got, ref, run):
    """A guard on the flat index (y*width + x < width*height): the threads past a row's end
    (x >= width) draw their point, x_min + x*dx, into the first pixels of the next row; each
    pixel there holds that count or the right one (whichever thread drew last: the two race, and
    a GPU may keep the right one in most), and the others are right (up to TOLERANCE of them
    not, as a GPU's rounding may make them). Named where the wrapped count is in at least half
    of the pixels where the two differ, or, in fewer, where a trace of the launch on the
    simulator shows a thread with x >= width storing."""
    width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter = _args(case)
    over = _grid(case).threads[0] - width          # the threads past each row's end
    if over <= 0 or (got == ref).all():
        return
    past = escape_counts(*pixel_grid(width + over, height, x_min, y_min, dx, dy), c_re, c_im,
                         max_iter)[:-1, width:]    # thread (width + k, y) draws pixel (k, y + 1)
    wrapped = np.array(ref)
    wrapped[1:, :over] = past
    region = np.zeros(got.shape, bool)
    region[1:, :over] = True
    wrong, other = got != ref, got != wrapped   # other: not what a wrapped thread draws
    explained, differs = (wrong & ~other).sum(), (region & (wrapped != ref)).sum()
    if not explained or np.mean(wrong & (other | ~region)) > TOLERANCE or \
            2 * explained < differs and not _drew_past_the_edge(run, width):
        return
    yield ("the first pixels of some rows hold the counts of points past the right edge: "
           "threads with x >= width passed the guard on y*width + x and drew into the start of "
           "the next row", "guard x and y separately: if (x >= width || y >= height) return;")


def _drew_past_the_edge(run, width) -> bool:
    """Whether a thread with x >= width stored into iters, in a trace of ``run``'s launch on the
    simulator (each thread stores one count and loads nothing)."""
    launch = run.launch
    threads = int(np.prod(launch.block)) * int(np.prod(launch.grid))
    kept = accesses_of(run.kernel, launch, f"stores past the edge {launch.grid}", 2 * threads)
    if kept is None:
        return False
    stores = kept[kept["write"] & ~kept["shared"]]
    x = stores["block"] % launch.grid[0] * launch.block[0] + stores["thread"] % launch.block[0]
    return bool((x >= width).any())


def _observed(kernels, case):
    """The race check's launch on the simulator: two threads that store into one pixel."""
    return written_twice(kernels, _launch(case), OWN_PIXEL, did="drew the same pixel,",
                         items="pixels")


def _detect(kernels, case):
    """The case's launch and its mistakes. A kernel whose every thread computes every pixel runs
    width * height times the work, past the simulator's time limit: there the small
    race-checked launch names it, before the time limit's verdict."""
    from helpers.backend import drv

    try:
        run = yield from EXERCISE.run(kernels, _launch(case))
    except drv.Error as err:
        if getattr(err, "kind", None) != "time limit":
            raise
        yield from escape_never_leaves(kernels, _launch)
        race = observe(kernels, _launch(CASES[-1])).race
        if written_by_two(race):
            yield (f"the simulator stopped the kernel at its time limit, and in a small launch "
                   f"two threads drew the same pixel, {race.place}: every thread did the whole "
                   "loop, width * height times the work", OWN_PIXEL)
        raise
    if run is not None:
        yield from _mistakes(case, run)


def _z_never_changes(kernels):
    """A kernel whose escape test sees only each pixel's start point, either because z's squares
    are computed once, before the loop, or because the step's float z_re = ... declares new
    variables in the loop, which hide the z of before it (the counts cannot tell the two apart:
    the kernel writes nothing else): every pixel of a view where |z| <= 2 counts max_iter, as a
    z starting at 0 does; in the exact case's view, wider than |z| = 2, each pixel counts
    max_iter where |z|^2 <= 4 at its point and 0 elsewhere. Tells the two apart there."""
    probe = CASES[2]
    seen = observe(kernels, _launch(probe), key="z never changes")
    re, im = pixel_grid(*_args(probe)[:6])
    frozen = np.where(re * re + im * im <= 4, probe["max_iter"], 0)
    if seen.error is None and _close(seen.outs[0].got, frozen):
        yield ("the escape test only ever sees each pixel's start point: it counts max_iter "
               "where |z|^2 <= 4 there and 0 where z starts outside, so the squares it tests "
               "are never recomputed from a new z: either re2 = z_re * z_re and im2 = z_im * "
               "z_im were computed once, before the loop, or the loop's step declares new z "
               "variables (float z_re = ... in the loop) that hide the z of before it",
               "at the top of each turn, float re2 = z_re * z_re, im2 = z_im * z_im; then the "
               "step assigns the old variables, without float: z_im = 2.0f * z_re * z_im + "
               "c_im; z_re = re2 - im2 + c_re")


def _kept_in_ints(case, got):
    """z kept in ints (int z_re = x_min + x*dx): its start and every step's result lose their
    fraction. Named where the image is that model's (within TOLERANCE) and, on the pixels where
    it differs from a z starting at 0 (whose counts it shares in most of a view inside |z| < 1),
    that model's in at least half."""
    width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter = _args(case)
    re, im = pixel_grid(width, height, x_min, y_min, dx, dy)
    whole = escape_counts(re, im, c_re, c_im, max_iter, whole=True)
    tell = whole != escape_counts(np.zeros_like(re), np.zeros_like(im), c_re, c_im, max_iter)
    if tell.any() and _close(got, whole) and 2 * (got[tell] == whole[tell]).sum() >= tell.sum():
        yield ("z is kept in ints: its start and every step's result lost their fraction (the "
               "counts are those of z_re and z_im cut to whole numbers at each assignment, "
               "x_min + x*dx = -0.7 becoming 0), so the pixels' start points collapse onto a few "
               "whole points", "z has fractions: declare its parts float, float z_re = x_min + "
               "x*dx; float z_im = y_min + y*dy; (n, x and y stay int)")


def _returned_in_the_loop(unwritten, escaped):
    """Only the pixels that never escaped were written: the loop left the kernel (return)."""
    if unwritten.any() and np.mean(unwritten != escaped) <= TOLERANCE:
        yield ("only the pixels that never escaped were written: the escaping ones left the "
               "kernel inside the loop (return), before the store",
               "leave the loop with break, not return, so that iters[y*width + x] = n runs for "
               "every pixel")


EXERCISE = KernelExercise(
    stub="exercises/julia.cu", kernel="julia",
    signature=("int *iters, int width, int height, float x_min, float y_min, float dx, "
               "float dy, float c_re, float c_im, int max_iter"),
    cases=CASES, draw=_draw, detect=_detect,
    where=lambda c: (f"{c['width']}x{c['height']} image, block={c['block'][:2]}, grid="
                     f"{_grid(c).grid}, c={c['c'][0]}{c['c'][1]:+}i, max_iter={c['max_iter']}"),
    crash_hint="threads outside the image must not write: if (x >= width || y >= height) return;",
    simulated="runs the race check", observed=_observed,
    observed_as="race-checked",
    success=f"the Julia set matches NumPy ({len(CASES) - 1} images whose sides are not multiples "
            "of the block; nothing written outside the image; each pixel drawn by one thread)")

check_julia = EXERCISE.check_file          # (path="exercises/julia.cu")
check_julia_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
