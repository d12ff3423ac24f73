"""Checker for notebook 10's first exercise: stream compaction's last step, each valid point to
the row its prefix sum gives it (``cuda_src/exercises/compact_points.cu``).

``compact_points(xyz, n, slot, points)`` gets an organized cloud (three planes, holes NaN in all
three) and ``slot``, the exclusive prefix sum of the valid flags; it writes valid pixel i's X, Y,
Z at row ``slot[i]`` of ``points``. The holes are a NaN whose bits are not the poison's (``HOLE``),
and the last pixel is one, so that a kernel that writes holes writes row count, one past the
list, where the guard zone shows it (but in the last case, whose last pixel is a point, which a
guard one pixel early, i >= n - 1, leaves out). Past the end of slot lie ``count + 5``, ``count + 6``, ...:
thread n + j, past n, writes row count + 5 + j, so the rows written tell how many got through.
The last case runs on the simulator, race-checked, whatever the backend.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Input, Output
from helpers.exercises.compact_points_models import (HOLE, HOLE_HINT, compared_with_nan,
                                                     coordinates_reordered, hole_from_the_next_slot,
                                                     hole_from_the_pixel_before,
                                                     models, negated_hole_test, plane_past_z,
                                                     read_at_the_row, read_from_another_plane,
                                                     read_next_to_x)
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import accesses_of, observe, written_twice

JUNK_ROW = 5     # slot past n holds count + JUNK_ROW
# (n, threads a block): never a multiple; a small one on the simulator, race-checked (a kernel
# in which every thread does the whole cloud writes the right rows, each many times); last, a
# cloud of more than 65536 points, where a row kept in 16 bits wraps (after the race check, which
# names a kernel whose every thread walks the whole cloud before it takes the simulator minutes);
# then a cloud whose last pixel is a point (LAST_A_POINT), that a guard one pixel early skips
LAST_A_POINT = "last pixel a point"
CASES = [(1000, 128), (4099, 256), (37, 64), (40, 16, "observe"), (96001, 256),
         (1001, 128, LAST_A_POINT)]
SLOT_HINT = "the point of valid pixel i is row slot[i] of points: int k = slot[i]"
GUARD_HINT = "threads past the end must do nothing: if (i >= n) return; first"
INDEX = "i = blockIdx.x * blockDim.x + threadIdx.x"
# (the index a thread took, its pixel from its thread t and block b of B threads in a grid of
# G blocks, why it misses pixels)
INDEXES = [("threadIdx.x", lambda t, b, B, G: t,
            "i = threadIdx.x leaves out blockIdx.x * blockDim.x: every block did block 0's pixels"),
           ("threadIdx.x * blockDim.x + blockIdx.x", lambda t, b, B, G: t * B + b,
            "blockIdx.x and threadIdx.x are swapped"),
           ("blockIdx.x * gridDim.x + threadIdx.x", lambda t, b, B, G: b * G + t,
            "block b's pixels start b * blockDim.x, blockDim.x apart, not gridDim.x")]


def _draw(rng):
    """The grader's cases: a few blocks and many, on the shipped block sizes."""
    return [(awkward(rng, b, 2, 20 * b), b) for b in (pick(rng, [64, 128, 256]) for _ in "ab")]


def _where(case):
    n, block = case[:2]
    return f"n = {n}, block = ({block}, 1, 1), grid = ({-(-n // block)}, 1)"


def cloud(n, last_hole=True):
    """An organized cloud of n pixels: random points, 30% holes (HOLE in all three planes), the
    last pixel a hole (its slot is count: a kernel that writes holes writes past the list), or,
    with ``last_hole`` false, a point."""
    rng = np.random.default_rng(n)
    xyz = rng.uniform(-2, 2, (3, n)).astype(np.float32)
    xyz[2] = rng.uniform(0.3, 5, n)
    hole = rng.random(n) < 0.3
    hole[n - 1] = last_hole
    xyz[:, hole] = HOLE
    return xyz


def _refine(failure):
    """The hints for a write before points' start (a row one short, or slot[i - 1]), and, from
    the failed launch's ``slot``, for a write at points[9 * slot[i]] and on (the row scaled by 3
    twice)."""
    if failure.launch is not None:
        yield from _scaled_twice(failure, failure.launch.args[2].host())
        yield from _signed_wrap(failure, failure.launch.args[2].host())
        yield from plane_past_z(failure, failure.launch.args[1])
    yield from _z_before_the_guard(failure)
    if failure.kind == "out of bounds" and failure.error.is_write and \
            -12 <= (failure.error.offset or 0) < 0:   # row -1: the first valid pixel's slot - 1
        yield ("slot is an exclusive sum: the first valid pixel's slot is 0, its row: "
               "k = slot[i], no - 1")
    elif failure.kind == "out of bounds" and failure.error.is_write and \
            (failure.error.offset or 0) < -12:   # a row read from before slot's start
        yield ("a row before the start of points is a negative k: slot[i - 1] reads before "
               "slot's start for i = 0; slot is an exclusive sum, so pixel i's own slot is its "
               "row: int k = slot[i]")


def _scaled_twice(failure, slot):
    """A write past the end of points at element 9 * slot[i] + c (c below 3) by the thread of
    pixel i (from the error's block and thread, the launch's block, its offset): k = 3 * slot[i],
    then points[3 * k + c]."""
    err, block = failure.error, failure.block
    if failure.kind != "out of bounds" or not err.is_write or not block or err.block is None \
            or err.thread is None or (err.offset or 0) <= 0:
        return
    i, element = err.block[0] * block[0] + err.thread[0], err.offset // 4
    if i < len(slot) and slot[i] > 0 and 0 <= element - 9 * slot[i] < 3:
        yield (f"pixel {i}'s point went to points[{element}], 9 * slot[{i}] + "
               f"{element - 9 * slot[i]}: the row was scaled to floats twice, k = 3 * slot[i] "
               "and then points[3 * k]; k is the row itself, and 3 * k its first float: "
               "int k = slot[i]")


def _z_before_the_guard(failure):
    """A read of xyz (3 * n floats) at 2 * n + i, past its end, by thread i past n: the hole test
    reads Z before the bounds guard sends the thread away (the cases' lists were right, no row
    written past the list: the guard is there; on the simulator, in the launch ``_observed``)."""
    err, block = failure.error, failure.block
    if failure.kind != "out of bounds" or err.is_write is not False or not block or \
            err.array != "xyz" or err.block is None or err.thread is None or \
            err.element is None or not err.length or err.length % 3:
        return
    n, i, element = err.length // 3, err.block[0] * block[0] + err.thread[0], err.element
    if i >= n and element == 2 * n + i:
        yield (f"thread i = {i}, past n = {n}, read xyz[2 * n + i] = xyz[{element}] in the hole "
               f"test, before the bounds guard sends it away: xyz holds 3 * n = {3 * n} floats, "
               "so a thread past n must not read Z", "put the bounds guard first: if (i >= n) "
               "return; before the hole test reads xyz[2 * n + i]")


def _signed_wrap(failure, slot):
    """A write outside points by the thread of pixel i (valid, from the error's block and
    thread) whose row slot[i] a signed 8- or 16-bit k cannot hold (2 ** (bits - 1) or more, and
    below 2 ** bits): k wrapped to a negative row. Smaller clouds, every row below that, passed."""
    err, block = failure.error, failure.block
    if failure.kind != "out of bounds" or not err.is_write or not block or err.block is None \
            or err.thread is None:
        return
    thread = err.block[0] * block[0] + err.thread[0]
    n = len(slot) - block[0]   # slot holds a block's worth of junk past n
    for bits, kind in ((8, "signed char"), (16, "short")):
        i = thread
        if bits == 16 and 0 <= i < n and slot[i] < 1 << 15:
            # a lower block failed first, on a slot that a wrapped row's write had landed in:
            # the first pixel whose row a short cannot hold
            wraps = np.flatnonzero((slot[:n] >= 1 << 15) & (slot[1:n + 1] > slot[:n]))
            i = int(wraps[0]) if wraps.size else -1
        if 0 <= i < n and 1 << (bits - 1) <= slot[i] < 1 << bits and slot[i] < slot[i + 1]:
            yield (f"pixel {i}'s point, row slot[{i}] = {slot[i]}, was written outside points: "
                   f"{slot[i]} is more than {'an' if bits == 8 else 'a'} {bits}-bit {kind} holds ({(1 << (bits - 1)) - 1} "
                   f"at most), so k wrapped to {slot[i]} - {1 << bits} = "
                   f"{slot[i] - (1 << bits)}, a row before points' start",
                   "keep it an int: int k = slot[i], as slot is")
            return


def _launch(case, xyz=None):
    n, block = case[:2]
    xyz = cloud(n, LAST_A_POINT not in case) if xyz is None else xyz
    valid = xyz[2] > 0
    count = int(valid.sum())
    slot = (np.cumsum(valid) - valid).astype(np.int32)
    past = count + JUNK_ROW + np.arange(block, dtype=np.int32)   # slot[n + j]: row count + 5 + j
    return Launch((Input(xyz, after=block, junk=np.float32(1)), np.int32(n),
                   Input(np.concatenate([slot, past])),
                   Output((count, 3), guard=3 * (n + JUNK_ROW + block))),
                  block=(block, 1, 1), grid=(-(-n // block), 1), model=xyz)


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), f"each thread moves its own pixel and no other: "
                         f"{INDEX}; no loop over the whole cloud", items="pixels",
                         refine=_refine)


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first (none when it is right)."""
    xyz, out = run.model, run.out
    want = xyz[:, xyz[2] > 0].T
    count = len(want)
    rows, junk = set((out.past // 3).tolist()), set(range(count + JUNK_ROW, count + JUNK_ROW + case[1]))
    yield from models(xyz, out, count)
    if rows - {count} - junk and max(rows) < case[0]:
        yield ("points were written at their pixel's row i, past the end of the list (which "
               f"has {count} rows for {case[0]} pixels)", SLOT_HINT)
    if count in rows and not out.unwritten[0].any():   # the first point's row was written too
        yield from hole_from_the_next_slot(run.kernel, _launch((40, 16)), count)
        yield from hole_from_the_pixel_before(run.kernel, _launch((40, 16)), xyz, out, count)
        yield from _nan_let_through(run.kernel, count)
        yield from _equal_to_nan(run.kernel, count)
        yield ("holes were written into the list: the last pixel, a hole, wrote row "
               f"{count}, one past the end (a hole's slot is the next point's row)", HOLE_HINT)
    if rows == {count + JUNK_ROW}:
        yield ("thread n, one past the last pixel, wrote a point past the end of the list: the "
               "guard lets i == n through (i > n, where i >= n is needed)", GUARD_HINT)
    if rows and rows <= junk:
        yield from _guard_past_n(run.kernel)
        yield ("threads past n wrote points past the end of the list: the bounds guard is "
               "missing", GUARD_HINT)
    if rows:
        yield f"the kernel wrote past the end of points ({count} rows)", SLOT_HINT
    if out.unwritten.all() and _every_pixel_returned(run.kernel):
        yield ("nothing was written: every thread returned before its stores, the valid pixels "
               "too (on the simulator no thread read more than its own Z, xyz[2 * n + i]): the "
               "hole test is true for every pixel",
               "return for the holes alone: if (!(xyz[2 * n + i] > 0.0f)) return; (in C, ! "
               "turns a test's 1 into 0; ~, NumPy's not for masks, flips every bit, and ~1 = -2 "
               "and ~0 = -1 are both true)")
    if out.unwritten.all():
        yield "nothing was written: points still holds the poison it was filled with", SLOT_HINT
    written = ~out.unwritten.ravel()
    if out.unwritten.any() and written[:count + 2].all() and not written[count + 2:].any():
        yield ("only the first floats of points were written, one a point: row k of points is "
               "three floats, and it starts at points[3 * k]",
               "points[3 * k] = X, points[3 * k + 1] = Y, points[3 * k + 2] = Z")
    if out.unwritten.any():
        yield from _wrapped(out.got, out.unwritten.any(axis=1), want)
        yield from _unwritten(case, xyz, out.unwritten.any(axis=1))
    yield from _wrong_points(out.got, want, xyz)


def _guard_past_n(kernels, n=10, block=64):
    """A guard at a multiple of n (i >= 3 * n, n taken for xyz's length): on the simulator, a
    cloud of n pixels in one block of more than 3 * n threads; thread n + j writes row count + 5
    + j, so the rows written tell which threads got through."""
    seen = observe(kernels, _launch((n, block)), key="guard past n", racecheck=False)
    if seen.error is not None:
        return
    out, count = seen.outs[0], int((cloud(n)[2] > 0).sum())
    through = sorted(set((out.past // 3).tolist()))
    passed = len(through)
    if not 0 < passed < block - n or (n + passed) % n or \
            through != list(range(count + JUNK_ROW, count + JUNK_ROW + passed)):
        return
    m = (n + passed) // n
    yield (f"threads past n wrote points past the end of the list: the guard is i >= {m} * n: "
           f"threads n to {m} * n - 1 pass it (with n = {n} and {block} threads, threads {n} to "
           f"{n + passed - 1} wrote rows past the list)" + ("; 3 * n is the length of xyz, three "
           "planes, but n counts the pixels" if m == 3 else ""), GUARD_HINT)


def _holes_at_0(n=40, block=16):
    """The launch of a cloud of n pixels whose holes' Z is 0 in place of NaN."""
    xyz = cloud(n)
    xyz[2, np.isnan(xyz[2])] = 0.0
    return _launch((n, block), xyz)


def _nan_let_through(kernels, count):
    """A hole test that NaN passes (z <= 0.0f, z == 0.0f, z < 0.0f: every comparison with NaN
    is false): on the simulator, the same kind of cloud with its holes' Z 0 in place of NaN
    gives the right list, so the kernel does test Z."""
    launch = _holes_at_0()
    xyz = launch.model
    seen = observe(kernels, launch, key="holes at 0", racecheck=False)
    if seen.error is not None or seen.outs[0].past.size or \
            not np.array_equal(seen.outs[0].got, xyz[:, xyz[2] > 0].T):
        return
    yield (f"holes were written into the list: the last pixel, a hole, wrote row {count}, one "
           "past the end, though the same cloud with its holes' Z = 0 in place of NaN came out "
           "right: the hole test lets NaN through, as xyz[2 * n + i] <= 0.0f does (or == 0.0f): "
           "every comparison with NaN is false, so a NaN Z is not <= 0 and the hole goes on",
           "test for a point, not for a hole: return when !(xyz[2 * n + i] > 0.0f), which is "
           "true for NaN and for Z <= 0 alike")


def _equal_to_nan(kernels, count):
    """Holes written as with no hole test at all, and the kernel's text compares a value with
    NAN by ==: never true, NaN equals nothing (the compiler drops such a test altogether)."""
    test = compared_with_nan(kernels)
    if test is not None:
        yield (f"holes were written into the list: the last pixel, a hole, wrote row {count}, "
               f"one past the end: the hole test compares with NAN, {test} == NAN, which is "
               "never true: NaN equals nothing, itself included (NumPy's x == np.nan is False "
               "too), so no hole returned", "test for NaN with isnan(xyz[2 * n + i]), or "
               "return for what is not a point: if (!(xyz[2 * n + i] > 0.0f)) return;")


def _not_on_z(kernels, record):
    """The exercise's words for a ! on a comparison's left side (the compiler's ``record``):
    the hole test's, where the simulator confirms it (``negated_hole_test``); else None."""
    if record.kind != "logical not":
        return None
    return negated_hole_test(kernels, record, _launch((40, 16)), _holes_at_0())


def _every_pixel_returned(kernels, n=40, block=16) -> bool:
    """Whether a launch on the simulator of ``n`` pixels, traced, stored nothing, and no thread
    loaded more than its own pixel's Z, xyz[2 * n + i] (a hole test that returns for every
    pixel; one true whatever Z is needs no load at all)."""
    kept = accesses_of(kernels, _launch((n, block)), "hole test", 4096)
    if kept is None or kept["write"].any():
        return False
    own = kept["index"] == 2 * n + kept["block"] * block + kept["thread"]
    return bool((own & ~kept["shared"]).all())


def _wrapped(got, missing, want):
    """The rows a k kept in 8 or 16 bits leaves: rows from 2 ** bits on never written, and each
    row r below them holding (float for float, as two threads' stores to one row race on a GPU)
    one of the points whose row is r plus a multiple of 2 ** bits."""
    count = len(want)
    for bits, kind in ((8, "unsigned char"), (16, "unsigned short")):
        wrap = 1 << bits
        if count <= wrap or not np.array_equal(missing, np.arange(count) >= wrap):
            continue
        fits = np.zeros((wrap, 3), bool)
        for start in range(0, count, wrap):
            alias = want[start:start + wrap]
            fits[:len(alias)] |= got[:len(alias)] == alias
        if fits.all():
            yield (f"rows {wrap} to {count - 1} of points were never written, and rows 0 to "
                   f"{min(count - wrap, wrap) - 1} were written more than once: k wrapped at "
                   f"{wrap}, as {'an' if bits == 8 else 'a'} {bits}-bit {kind} does, so the "
                   f"point of row {wrap} + r went to row r (this cloud has {count} points)",
                   "keep it an int: int k = slot[i], as slot is")


def _reached(index, n, block):
    """True for each of n pixels that some thread's index reaches."""
    grid = -(-n // block)
    i = index(np.arange(block)[:, None], np.arange(grid)[None, :], block, grid).ravel()
    return np.isin(np.arange(n), i)


def _unwritten(case, xyz, missing):
    """Mistakes that leave rows of points unwritten (``missing``, one a row), each named by the
    valid pixels it skips."""
    valid, count = xyz[2] > 0, int(missing.size)
    words = f"{int(missing.sum())} of {count} points were never written"
    for formula, index, why in INDEXES:
        if np.array_equal(missing, ~_reached(index, *case[:2])[valid]):
            yield (f"{words}, exactly those of the pixels i = {formula} never reaches",
                   f"{why}: {INDEX}")
    for plane, name in enumerate("XY"):
        if np.array_equal(missing, ~(xyz[plane][valid] > 0)):
            yield (f"{words}, exactly those whose {name} is not above 0: the hole test reads "
                   f"{name}, xyz[{'n + ' * plane}i]", "Z is xyz[2 * n + i]: return when "
                   "!(xyz[2 * n + i] > 0.0f)")
    if valid[-1] and np.array_equal(missing, np.arange(count) == count - 1):
        n = xyz.shape[1]
        yield (f"the last pixel, i = n - 1 = {n - 1}, a point, was never written: row "
               f"{count - 1} of points, the last, still holds the poison, and every other point "
               "is in its row: the bounds guard sends pixel n - 1 away too (as i >= n - 1 does); "
               "n - 1 is the last pixel, only i >= n is past the end",
               "send away only the threads past the last pixel: if (i >= n) return; (i = n - 1 "
               "goes on)")
    yield f"{words} (the first is row {int(np.argmax(missing))})", SLOT_HINT


def _wrong_points(got, want, xyz):
    """Mistakes the rows show once each was written."""
    if np.array_equal(got, want):
        return
    yield from coordinates_reordered(got, want)
    yield from read_at_the_row(xyz, got, want)
    yield from read_from_another_plane(xyz, got, want)
    yield from read_next_to_x(xyz, got, want)
    n = xyz.shape[1]
    index = np.flatnonzero(xyz[2] > 0)   # xyz's planes read as if they held x, y, z side by side
    if np.array_equal(got, xyz.ravel()[3 * index[:, None] + np.arange(3)], equal_nan=True):
        yield ("the coordinates were read as xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], but xyz "
               "holds three planes", f"X is xyz[i], Y xyz[n + i], Z xyz[2 * n + i] (n = {n})")
    bad = ~(got == want).all(axis=1)
    first = int(np.argmax(bad))
    yield (f"{int(bad.sum())} of {len(want)} points are wrong (the first is row {first}: got "
           f"{got[first].tolist()}, expected {want[first].tolist()})",
           "row slot[i] is X, Y, Z of pixel i: xyz[i], xyz[n + i], xyz[2 * n + i]")


EXERCISE = KernelExercise(
    stub="exercises/compact_points.cu", kernel="compact_points",
    signature="const float *xyz, int n, const int *slot, float *points",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, refine=_refine,
    crash_hint=GUARD_HINT + "; and " + SLOT_HINT,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    compared=_not_on_z,
    success=f"every valid point is in its row, in pixel order, and no hole ({len(CASES) - 1} "
            "clouds of sizes not multiples of the block; each point written by one thread, "
            "nothing written past the list)")

check_compact_points = EXERCISE.check_file          # (path="exercises/compact_points.cu")
check_compact_points_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
