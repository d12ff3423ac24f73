"""Checker for notebook 10's second exercise: the nearest and the farthest measured depth, with
atomicMin and atomicMax (``cuda_src/exercises/depth_range.cu``).

``depth_range(depth, n, range)`` leaves in range[0] the smallest non-zero depth and in range[1]
the largest; range starts at {UINT_MAX, 0}. The images have holes (0), their nearest and farthest
depths lie outside block 0 (the nearest at the last pixel, which a guard off by one leaves out;
in the third image a farther one still at pixel 0, which an index one too large leaves out,
past a signed short's 32767), and past their end lies ``JUNK`` (a depth farther than any), so
that a kernel that counts holes, reads past n or covers only block 0 gives a range that shows it. A
plain compare-and-store gives the right range by luck, often: the last case runs on the
simulator with its race check (``helpers.exercises.microscope``), whatever the backend; a range
too narrow without a race there is a pixel not looked at (an index), not a depth lost.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Input, Output
from helpers.exercises.depth_range_models import (STORED_BACK_HINT, block_0_only,
                                                  block_lost_with_thread_0, cut_to_a_byte, end_plus_1, first_threads_only,
                                                  guard_lets_n_through, holes_only,
                                                  one_atomic_a_depth, pointer_tested, rescaled,
                                                  reset_in_kernel, result_stored_back,
                                                  signed_short, stored_back, warp_lanes_missed)
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import accesses_of, observe, observed_mistakes

START = np.array([0xFFFFFFFF, 0], np.uint32)
POISONS = (0xDEADBEEF, 0)
"""range's guard holds each in turn (a launch each): an atomicMin past range[1] lowers the
first, an atomicMax raises the second, so that either shows."""
JUNK = 65000
FAR = 40000
"""The third image's farthest depth, past a signed short's 32767 (33 m and more in millimetres,
3.3 m in the 0.1 mm units some cameras give): a d declared short turns it negative."""
AHEAD = 2
"""Spare elements of range's buffer before it (poisoned as its guard is): a write at range[-1]
lands there, seen, on a GPU too."""
CASES = [dict(n=1000, block=128), dict(n=70_001, block=256), dict(n=300, block=64, far_first=True),
         dict(observe=True, n=2000, block=128)]

ATOMIC_HINT = ("a compare and a store are two steps, and another thread's depth can come in "
               "between: atomicMin(&range[0], d) and atomicMax(&range[1], d) do both in one")
GUARD_HINT = "threads past the end must do nothing: if (i >= n) return; first"
PAST_N = (f"the farthest depth came out {JUNK}, what lies past the end of depth: threads past n "
          "read it", GUARD_HINT)
LAST_LEFT_OUT = ("the last pixel (i = n - 1, the nearest depth) was not looked at: the bounds guard "
                 "is off by one, thread i = n - 1 returned with the threads past the end",
                 f"the last pixel is i = n - 1 and must go on: {GUARD_HINT}: the bound is n, not n - 1")
RESET_HINT = "range is set before the launch ({UINT_MAX, 0}): do not set it in the kernel"


def _draw(rng):
    """The grader's cases: a few blocks and many, on the shipped block sizes."""
    return [dict(n=awkward(rng, b, 2 * b + 1, 300 * b), block=b)
            for b in (pick(rng, [64, 128, 256]) for _ in "ab")]


def _where(case):
    n, block = case["n"], case["block"]
    return f"n = {n}, block = ({block}, 1, 1), grid = ({-(-n // block)}, 1)"


def depths(n, far_first=False, holes=True, nearest=None):
    """n depths in millimetres, 20% holes, the nearest (250, the last pixel or pixel
    ``nearest``) and the farthest (9000) past block 0; ``far_first``: a farther one still (FAR)
    at pixel 0; without ``holes``, the same image with a depth where its holes were."""
    rng = np.random.default_rng(n)
    depth = rng.integers(300, 8000, n)
    hole = rng.random(n) < 0.2
    depth[hole & holes] = 0
    depth[n - 1 if nearest is None else nearest], depth[n // 2 + 1] = 250, 9000
    if far_first:
        depth[0] = FAR
    return depth.astype(np.uint16)


def _launch(case):
    n, block = case["n"], case["block"]
    depth = depths(n, case.get("far_first", False), case.get("holes", True), case.get("nearest"))
    return Launch((Input(depth, after=block, junk=JUNK), np.int32(n),
                   Output(2, np.uint32, poisons=POISONS, start=case.get("start", START),
                          before=AHEAD)),
                  block=(block, 1, 1), grid=(-(-n // block), 1), model=depth)


def _refine(failure):
    if failure.kind == "race" and stored_back(failure.error):
        yield STORED_BACK_HINT
    if failure.kind == "race":
        yield RESET_HINT if reset_in_kernel(failure.error) else ATOMIC_HINT


def _observed(kernels, case):
    """The race check's launch: a hole's thread reading range with a plain load while another
    thread updates it atomically named first, then what else it found."""
    launch = _launch(case)
    seen = observe(kernels, launch)
    race = seen.race
    if race is not None and race.space == "global":
        reads = [a for a in (race.first, race.second) if a.reads]
        other = [a for a in (race.first, race.second) if a.atomic]
        pixel = reads[0].block[0] * case["block"] + reads[0].thread[0] if reads else -1
        if reads and other and 0 <= pixel < case["n"] and launch.model[pixel] == 0:
            yield (f"a hole reads range while other threads update it: {reads[0].who}, whose "
                   f"pixel {pixel} is a hole (depth 0), reads {race.place} at {reads[0].line}, "
                   f"and {other[0].who} updates it atomically at {other[0].line}, with nothing "
                   "between the two (a data race)",
                   "a hole is no measurement: skip it, return when d == 0, before touching range")
    yield from _plain_stores_left(kernels, race, "")
    yield from observed_mistakes(seen, _refine)


def _plain_stores_left(kernels, race, shown):
    """Plain stores range[k] = d left beside the atomics (the stub's lines): the race check finds
    two plain stores into range on one line, and a trace of a small image shows every measured
    pixel's thread storing into that element there and updating it on another line too."""
    if race is None or race.array != "range" or race.first.atomic or race.second.atomic \
            or not race.first.writes or not race.same_line:
        return
    lines = _stored_by_every_pixel(kernels)
    line = int(race.line.rsplit(":", 1)[-1])
    if lines is None or line not in lines[race.element] or len(lines[race.element]) < 2:
        return
    left = [f"range[{k}] = d;" for k in (0, 1) if len(lines[k]) > 1]
    yield (f"{shown}every measured pixel's thread stores its depth into range[{race.element}] "
           f"with a plain store at line {line}, besides updating it with an atomic on another "
           "line: whichever thread's store lands last overwrites what the atomics kept (the race "
           f"check: {race.first.who} and {race.second.who} both write {race.place} at line "
           f"{line})", f"delete the plain store{'s' * (len(left) > 1)} {' and '.join(left)}: atomicMin(&range[0], d) and "
           "atomicMax(&range[1], d) alone keep the nearest and the farthest")


def _stored_by_every_pixel(kernels, n=40, block=16):
    """For range[0] and range[1], the lines where a trace of a small image (n pixels) has every
    measured pixel's thread, and no other, write it; None where that launch failed."""
    kept = accesses_of(kernels, _launch(dict(n=n, block=block)), "plain stores", 4096)
    if kept is None:
        return None
    measured = set(np.flatnonzero(depths(n)).tolist())
    on = kept[kept["write"] & (kept["array"] == "range")]
    pixel = on["block"].astype(int) * block + on["thread"]
    return [{int(line) for line in set(on["line"].tolist())
             if set(pixel[(on["line"] == line) & (on["index"] == k)].tolist()) == measured}
            for k in (0, 1)]


def _max_into_range_0(run, case):
    """range[1] kept its start, 0, with no race; a trace of a small image has every measured
    pixel's thread update range[0] on two lines and range[1] on none, and range started at {0,
    0} rose: an atomicMax went into range[0], the nearest's slot (atomicMin never raises it)."""
    lines = _stored_by_every_pixel(run.kernel)
    if lines is None or len(lines[0]) != 2 or lines[1] or \
            observe(run.kernel, _launch(CASES[-1])).race is not None:
        return
    again = _run(run.kernel, dict(case, start=np.zeros(2, np.uint32)))
    if again is None or not again.out.got[0]:
        return
    first, second = sorted(lines[0])
    yield ("the atomicMax went into range[0], the nearest's slot, where it raises again what "
           f"atomicMin lowered: every measured pixel's thread updated range[0] at lines {first} "
           f"and {second} (a trace of a small image) and none range[1], which kept its start, 0; "
           f"started at {{0, 0}}, range[0] rose to {again.out.got[0]}, which atomicMin never does",
           "the farthest goes in range[1]: atomicMax(&range[1], d), beside atomicMin(&range[0], d)")


def _range(depth):
    """[nearest, farthest] of depth's measured (non-zero) pixels."""
    measured = depth[depth > 0]
    return [int(measured.min()), int(measured.max())]


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first (none when it is right)."""
    depth, (near, far), want = run.model, run.out.got.tolist(), _range(run.model)
    yield from _offset_in_bytes(run.out.past, [near, far])
    yield from _before_range(run.out.ahead, [near, far], want)
    if run.out.past.size:
        yield "the kernel wrote past range[1]", "range has two numbers: range[0] and range[1]"
    if [near, far] != want:
        yield from result_stored_back(run.kernel, _launch(CASES[-1]), [near, far])
    if [near, far] == START.tolist():
        yield from _slots_swapped(case, run, want)
        yield ("range is as it started, {4294967295, 0}: no depth made it nearer or farther",
               "keep the nearest with atomicMin(&range[0], d), the farthest with "
               "atomicMax(&range[1], d)")
    if near == START[0] and far == want[1]:
        yield ("range[0] never moved from its start, 4294967295, while range[1] came out right: "
               "no depth lowered it. atomicMin is missing, or it compared as an int (on "
               "(int *)&range[0]), and as an int 0xFFFFFFFF is -1, below every depth",
               "range holds unsigned ints: atomicMin(&range[0], d), with d an unsigned int and "
               "no cast to int *")
    yield from _index_kept(case, run, want)
    if [near, far] == [0, 0]:
        no_holes = _launch(dict(n=300, block=64, holes=False))
        yield from holes_only(run.kernel, no_holes)
    if near == 0 and far == want[1]:
        yield from pointer_tested(run.kernel)
    if near == 0:
        yield ("the nearest depth came out 0: holes (depth 0, no measurement) were counted",
               "a hole is no point: return when d == 0, before touching range")
    if far == 0 and near != START[0]:
        yield from _max_into_range_0(run, case)
        yield ("range[1] came out 0, the value it started with (or a hole's): no measured depth "
               "was kept as the farthest", "keep the farthest with atomicMax(&range[1], d), as "
               "the nearest with atomicMin(&range[0], d), and return when d == 0")
    if far == JUNK:
        yield from guard_lets_n_through(run.kernel, _launch(dict(n=40, block=16)), JUNK)
        yield PAST_N
    yield from block_0_only(case, depth, [near, far], lambda **kw: _run(run.kernel, dict(case, **kw)))
    if [near, far] == want:
        return
    yield from one_atomic_a_depth(run, _launch(dict(n=40, block=16)), want)
    yield from end_plus_1([near, far], want)
    yield from cut_to_a_byte(depth, [near, far], want)
    yield from signed_short(depth, [near, far], want)
    yield from rescaled(case, depth, [near, far], want)
    yield from first_threads_only(case, depth, [near, far], want)
    yield from block_lost_with_thread_0(case, depth, [near, far], want)
    yield from warp_lanes_missed(case, depth, [near, far], want,
                                 lambda **kw: _run(run.kernel, dict(case, **kw)))
    if [near, far] == _range(depth[1:]):
        yield ("the range is that of pixels 1 to n - 1: pixel 0 was not looked at",
               "i is one too many: i = blockIdx.x * blockDim.x + threadIdx.x, no + 1 (thread 0 "
               "of block 0 looks at pixel 0)")
    yield from _index_wrapped(case, run, want)
    if [near, far] == _range(depth[:-1]):
        yield LAST_LEFT_OUT
    yield from _hole_made_up(case, run, want)
    yield from _lost(run, [near, far], want)


WRAP = 1 << 16
"""An unsigned short index holds 0 to 65535: thread WRAP + k takes pixel k again."""


def _index_wrapped(case, run, want):
    """i declared unsigned short: i wraps at 65,536, so with n past that the pixels from 65,536 on
    are never looked at (their threads read pixels i - 65,536 again), and the range is that of
    pixels 0 to 65,535; the same image with its nearest at pixel 65,536 (not the last) misses it
    too, where a guard off by one would not."""
    n, got = case["n"], run.out.got.tolist()
    if n <= WRAP or got == want or got != _range(run.model[:WRAP]):
        return
    again = _run(run.kernel, dict(case, nearest=WRAP))
    if again is None or again.out.got.tolist() != _range(again.model[:WRAP]):
        return
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of "
           f"pixels 0 to {WRAP - 1} only, pixels {WRAP} to {n - 1} were never looked at: i is an "
           f"unsigned short, which wraps at 65,536 (it holds 0 to {WRAP - 1}), so thread {WRAP} "
           f"took pixel 0 again, thread {WRAP + 1} pixel 1, ... (the same image with its nearest "
           f"at pixel {WRAP}, not the last, misses it too)",
           "an index up to n needs an int: int i = blockIdx.x * blockDim.x + threadIdx.x; (an "
           "unsigned short is for the depths, 0 to 65535 mm)")


def _lost(run, got, want):
    """A range too narrow: pixels not looked at (no race), or depths lost (the race's kind)."""
    race = observe(run.kernel, _launch(CASES[-1])).race
    shown = f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}"
    if want[0] <= got[0] and got[1] <= want[1] and race is None:
        yield (f"{shown}, and the race check finds no race: not every pixel was looked at, or a "
               "depth went to the other end",
               "thread i = blockIdx.x * blockDim.x + threadIdx.x looks at depth[i], then "
               "atomicMin(&range[0], d) and atomicMax(&range[1], d)")
    yield from _plain_stores_left(run.kernel, race, f"{shown}: ")
    yield (f"{shown}: depths were lost", STORED_BACK_HINT if stored_back(race) else
           RESET_HINT if reset_in_kernel(race) else ATOMIC_HINT)


def _index_kept(case, run, want):
    """The pixel's index i given to an atomic where its depth d belongs: that end of range is
    the index of the first (atomicMin) or the last (atomicMax) measured pixel, the other end
    right or an index too; on the same image without holes, the same (an index, not a hole)."""
    def ends(depth, got):
        measured, right = np.flatnonzero(depth), _range(depth)
        index = [int(measured.min()), int(measured.max())]
        wrong = [k for k in (0, 1) if got[k] == index[k] != right[k]]
        return wrong if all(got[k] in (right[k], index[k]) for k in (0, 1)) else []

    found = ends(run.model, run.out.got.tolist())
    again = _run(run.kernel, dict(case, holes=False)) if found else None
    if again is None or ends(again.model, again.out.got.tolist()) != found:
        return
    got, names = run.out.got.tolist(), ("atomicMin", "atomicMax")
    yield (", and ".join(f"range[{k}] came out {got[k]}, the index of the "
                        f"{('first', 'last')[k]} measured pixel, not a depth" for k in found)
           + f" (expected {{{want[0]}, {want[1]}}}): {' and '.join(names[k] for k in found)} "
           "got i, the pixel's index, where its depth d belongs",
           "keep the depths: " + " and ".join(f"{names[k]}(&range[{k}], d)" for k in found)
           + ", d = depth[i]")


def _offset_in_bytes(past, got):
    """range[1] addressed as range + sizeof(unsigned int), a byte offset: the atomicMax went to
    range[4], past range's end, and range[1] kept its start."""
    size = START.itemsize
    if past.tolist() == [size] and got[1] == START[1]:
        yield (f"range[1] kept its start, 0, and range[{size}], past range's two numbers, was "
               f"written: range + sizeof(unsigned int) counts {size} elements, not {size} bytes "
               "(adding to a pointer steps by whole elements)",
               "&range[1] (or range + 1): atomicMax(&range[1], d)")


def _before_range(ahead, got, want):
    """range[-1] (NumPy's last element) for range[1] or range[0]: in C the element before range,
    written, while that end of range kept its start and the other came out right."""
    if ahead.tolist() != [-1]:
        return
    for k, name, other in ((0, "atomicMin", 1), (1, "atomicMax", 0)):
        if got[k] == START[k] and got[other] == want[other]:
            yield (f"range[{k}] kept its start, {START[k]}, and {name} wrote range[-1], the "
                   "element before range's start, outside it: in C an index counts from the "
                   "pointer, so range[-1] is the unsigned int just before range[0], not NumPy's "
                   "last element (C has no negative indices from the end)",
                   f"range has two numbers, range[0] and range[1]: {name}(&range[{k}], d)")


MIDDLE = 5000


def _slots_swapped(case, run, want):
    """atomicMax into range[0] and atomicMin into range[1]: from {UINT_MAX, 0} neither moves,
    and from a start between the depths, {MIDDLE, MIDDLE}, range[0] takes the farthest and
    range[1] the nearest."""
    again = _run(run.kernel, dict(case, start=np.array([MIDDLE, MIDDLE], np.uint32)))
    if again is None or again.out.got.tolist() != want[::-1]:
        return
    yield (f"range is as it started, {{4294967295, 0}}: range[0] got the atomicMax and range[1] "
           "the atomicMin, each other's slots: atomicMax can never lower 4294967295, nor atomicMin "
           f"raise 0 (a second launch with range started at {{{MIDDLE}, {MIDDLE}}} gave "
           f"{{{want[1]}, {want[0]}}}: the farthest in range[0], the nearest in range[1])",
           "range[0] is the nearest, range[1] the farthest: atomicMin(&range[0], d) and "
           "atomicMax(&range[1], d)")


def _hole_made_up(case, run, want):
    """Holes given a depth of their own (0xFFFFFFFF, "infinitely far"; 1, ...) that went through
    the atomics: one end right, the other a value no pixel holds, and the same image with a
    depth where its holes were gives the right range."""
    depth, (near, far) = run.model, run.out.got.tolist()
    foreign = (far if near == want[0] else near if far == want[1] else None)
    if foreign is None or foreign == JUNK or foreign in set(depth.tolist()) \
            or not (depth == 0).any():
        return
    again = _run(run.kernel, dict(case, holes=False))
    if again is None or again.out.got.tolist() != _range(again.model):
        return
    which = "range[1], the farthest" if foreign == far else "range[0], the nearest"
    yield (f"the holes (depth 0) were given a made-up depth, {foreign}, which the atomics kept "
           f"in {which}: range is {{{near}, {far}}}, expected {{{want[0]}, {want[1]}}}, and "
           f"{foreign} is no pixel's depth (the same image without holes gives the right range)",
           "a hole is no measurement, of any depth: skip it, return when d == 0 (continue, in a "
           "loop), before touching range")


def _run(kernel, case):
    """The ``Run`` of ``kernel`` launched on ``case``, or None where that launch crashed."""
    launched = EXERCISE.run(kernel, _launch(case))
    try:
        next(launched)
    except StopIteration as stop:
        return stop.value
    return None


EXERCISE = KernelExercise(
    stub="exercises/depth_range.cu", kernel="depth_range",
    signature="const unsigned short *depth, int n, unsigned int *range", cases=CASES,
    draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, refine=_refine,
    observed=lambda kernels, case: _observed(kernels, case),
    simulated="runs the race check", observed_as="race-checked", crash_hint=GUARD_HINT,
    success=f"range holds the nearest and the farthest measured depth ({len(CASES) - 1} images "
            "with holes, sizes not multiples of the block), and no race")

check_depth_range = EXERCISE.check_file          # (path="exercises/depth_range.cu")
check_depth_range_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same on a
# compiled kernel; on a GPU, simulated is the same source compiled by the simulator
