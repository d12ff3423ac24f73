"""Checker for the grid-stride exercise of notebook 02: ``cuda_src/exercises/add_into.cu``.

The kernel ``add_into(const float *x, float *y, int n)`` must add ``x[i]`` into ``y[i]`` once for
every ``i < n``, on grids chosen without regard to n: far fewer threads than elements, and more.
Because y is added to, the output tells how many times each element was visited: x and y are
small whole numbers, so ``(y after - y before) / x`` counts the visits exactly, and a loop that
steps by the block instead of the grid (every element visited several times), a thread that does
one element only, or a loop that misses some, each show by that count. On the simulator the
counted launches run their blocks one after another (one worker): blocks run at once on two
workers that add into one element lose an addition now and then, and the count, and with it the
verdict, would change from one check to the next. The last case runs on the simulator,
race-checked, whatever the backend: on a GPU, threads that add into one element at once lose
some of their additions, and the count may hide that they met.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises.microscope import STOPPED_AFTER, observe, with_stopped, written_twice
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.add_into_models import (
    LOOP_HINT, after_a_barrier_in_the_loop, block_stride, body_indexes_the_start, first_added_twice,
    loop_test_against_step, overlaps, started_late, stepped_too_far, stopped_a_stride_early,
    tested_after, wrong_start)
from helpers.exercises.add_into_operands import wrong_operands
from helpers.exercises.add_into_vectors import float_vectors_without_tail
from helpers.exercises.add_into_passes import rounded_down, rounded_up
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.origin import Wrong
from helpers.exercises.unrolled import FACTORS, handled, no_tail
from helpers.exercises.unbraced import unbraced_loop

# (n, threads per block, blocks): fewer threads than n (twice), then more threads than n; last
# a small one on the simulator, race-checked, and one whose indexes pass 32767 there (a loop
# whose 16-bit index wraps negative never ends on a GPU, where nothing stops it)
CASES = [(1000, 32, 2), (777, 64, 3), (300, 128, 5), (50, 8, 2, "observe"),
         (40000, 32, 2, "observe")]


def _draw(rng):
    """The grader's cases: two grids with fewer threads than n, one with more."""
    drawn = []
    for _ in range(2):
        block, blocks = pick(rng, (32, 64, 128)), int(rng.integers(1, 5))
        drawn.append((awkward(rng, block, 2 * block * blocks + 1, 3000), block, blocks))
    block = pick(rng, (64, 128, 256))
    return [*drawn, (awkward(rng, block, 20, 2 * block), block, 3)]


def _where(case):
    n, block, blocks = case[:3]
    return (f"with n = {n}, block = ({block}, 1, 1), grid = ({blocks}, 1): {block * blocks} "
            "threads")


def _launch(case):
    n, block, blocks = case[:3]
    rng = np.random.default_rng(n)
    x = rng.integers(1, 9, n).astype(np.float32)
    y = rng.integers(-50, 50, n).astype(np.float32)
    # around y, a poison that an addition changes (NaN + x would still be NaN); a block's worth
    # before it too, where an index below 0 lands
    out = Output(n, start=y, guard=4 * n, poisons=(np.float32(-7777.0),), before=block)
    return Launch((Input(x, after=4 * n, junk=1.0, before=block), out, np.int32(n)),
                  block=(block, 1, 1), grid=(blocks, 1), model=(x, y))


def _observed(kernels, case):
    launch, key = _launch(case), f"observed {case[0]}"
    yield from _wrapped(observe(kernels, launch, key=key), case)
    yield from written_twice(kernels, launch, "each thread adds only into its own elements: "
                             + LOOP_HINT, did="added into", key=key,
                             hazards=("read-after-write", "write-after-read", "write-after-write"))


SHORT = 1 << 16
"""The values a 16-bit index (a short) holds: -32768 to 32767, then it wraps."""


def _wrapped(seen, case):
    """An access to x[i - 65536] or y[i - 65536], where i, past 32767, is the next index of the
    thread's loop (``seen``: the case's launch on the simulator): its index is 16 bits wide (a
    short) and wrapped negative."""
    n, block, blocks = case[:3]
    crash = seen.crash   # an access out of bounds, or into a freed allocation lying there
    if getattr(crash, "address", None) is None or crash.thread is None:
        return
    thread = crash.block[0] * block + crash.thread[0]
    for name, start in zip(("x", "y"), seen.starts):
        element = (crash.address - start) // 4
        meant = element + SHORT
        if 32767 < meant < n and (meant - thread) % (block * blocks) == 0:
            yield (f"the loop's index wrapped negative past 32767: thread {crash.thread} of "
                   f"block {crash.block}, whose next i was {meant}, "
                   f"{'wrote' if crash.is_write else 'read'} {name}[{element}], before {name}'s "
                   f"start (n = {n}): a short holds -32768 to 32767 only",
                   "declare the index int, which holds every i < n: " + LOOP_HINT)
            return


def _mistakes(case, run):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    n, block, blocks = case
    threads = block * blocks
    (x, y), got = run.model, run.out.got
    if run.out.ahead.size:
        ahead = [f"y[{i}]" for i in run.out.ahead[[0, -1]]]
        yield (f"{ahead[0]} to {ahead[1]} were written" if ahead[0] != ahead[1] else
               f"{ahead[0]} was written") + ", before y[0]: an index below 0", (
               "each i from blockIdx.x * blockDim.x + threadIdx.x (never negative) adds into "
               "y[i] itself: " + LOOP_HINT)
    if run.out.past.tolist() == [n] and np.array_equal(got[1:], y[1:] + x[:-1]):
        yield ("each x[i] was added into y[i + 1]: the store's index is one too far, the loop's "
               "bound is right", "y[i] += x[i]")
    yield from _stepped_first(run.out.past, (got - y) / x, n, threads)
    yield from tested_after(run.kernel, run.out.past, np.array_equal(got, y + x), n, threads)
    yield from rounded_up(run, np.array_equal(got, y + x), n, threads)
    if run.out.past.size:
        yield (f"y[{run.out.past[0]}] and beyond were written, past y[n - 1]",
               "the loop must stop at n: " + LOOP_HINT)
    if np.array_equal(got, y + x):
        return
    yield from wrong_operands(got, x, y)
    visits = (got - y) / x
    if (visits == -1).all():
        yield "x was subtracted from y", "add it: y[i] += x[i]"
    if not np.array_equal(visits, np.round(visits)):
        first = int(np.argmax(visits != np.round(visits)))
        yield (f"y[{first}] = {got[first]}, which is not y + k * x for any whole k "
               f"(expected {y[first] + x[first]})", "each element once: y[i] += x[i]")
    if (visits == threads).all():
        yield (f"each x[i] was added into y[i] {threads} times, once by each thread: every "
               "thread did the whole loop", "each thread adds only into its own elements: "
               + LOOP_HINT)
    yield from block_stride(run, visits, n, block, blocks)
    yield from wrong_start(run, visits, n, block, blocks)
    yield from started_late(run, visits, n, block, blocks)
    yield from body_indexes_the_start(visits, n, threads)
    yield from first_added_twice(run, visits, n, threads)
    yield from overlaps(visits, n, block, blocks, run.kernel)
    yield from _stride_past_n(run, visits, n, block, blocks)
    yield from _bound_by_the_stride(run, visits, n, block, blocks)
    if threads < n and (visits[:threads] == 1).all() and not visits[threads:].any():
        yield (f"only the first {threads} elements were added, one a thread: each thread did "
               "one element, not all of its elements", LOOP_HINT)
    yield from _unrolled_like_passes(run, visits, n, block, blocks)
    yield from rounded_down(run, visits, n, threads)
    yield from stepped_too_far(visits, n, threads, run.kernel)
    yield from stopped_a_stride_early(visits, n, threads)
    yield from _unrolled_no_tail(visits, n, threads)
    yield from float_vectors_without_tail(run.kernel, visits)
    missed = np.flatnonzero(visits == 0)
    if missed.size:
        yield (f"{missed.size} of {n} elements were never added to (the first is "
               f"y[{missed[0]}])", LOOP_HINT)
    yield from near.misses("y", got, y + x, close=np.equal, index_hint=LOOP_HINT)
    first = int(np.argmax(got != y + x))
    yield Wrong(f"{int((got != y + x).sum())} of {n} elements are wrong (the first is "
                f"y[{first}] = {got[first]}, expected {y[first] + x[first]})",
                "y[i] += x[i], once for each i < n", "y", first)


def _unrolled_no_tail(visits, n, threads):
    """Each element added to once, but the last few of each thread whose elements are not a
    multiple of k in number never: the loop unrolled by k with no tail (``unrolled``)."""
    for done, problem, hint in no_tail(n, threads, "elements were never added to", "y[{}]",
                                       "y[i] += x[i];"):
        if np.array_equal(visits, done):
            yield problem, hint
            return


def _unrolled_like_passes(run, visits, n, block, blocks):
    """The elements a loop unrolled by k with no tail leaves out, where they are also the last,
    partial pass (passes counted n / stride, rounded down): told apart by a launch of the same
    grid on the simulator with n2 elements, the first n2 past n where the two leave out others."""
    threads = block * blocks
    whole = np.arange(n) < threads * (n // threads)
    for done, problem, hint in no_tail(n, threads, "elements were never added to", "y[{}]",
                                       "y[i] += x[i];"):
        if not (np.array_equal(visits, done) and np.array_equal(done, whole)):
            continue
        k = next(k for k in FACTORS if np.array_equal(handled(n, threads, k), done))
        n2 = next((m for m in range(n + 1, n + k * threads + 1) if not np.array_equal(
            handled(m, threads, k), np.arange(m) < threads * (m // threads))), None)
        if n2 is None:
            return
        launch = _launch((n2, block, blocks))
        seen = observe(run.kernel, launch, key=f"unrolled or passes {n2}", racecheck=False)
        (x, y) = launch.model
        if seen.error is None and np.array_equal((seen.outs[0].got - y) / x,
                                                 handled(n2, threads, k)):
            yield problem, hint
        return


def _stride_past_n(run, visits, n, block, blocks):
    """Only the first threads elements added, one a thread, where a launch of the same grid on
    the simulator with n2 elements, more than a block's threads squared, adds those of i % s <
    threads, s > n: the loop steps by s, past n, so each thread's second element was already
    past the end (s = blockDim.x * blockDim.x: blockDim.x written for gridDim.x)."""
    threads = block * blocks
    if not threads < n or not (visits[:threads] == 1).all() or visits[threads:].any():
        return
    n2 = min(2 * block * max(block, blocks) + threads, 32000)
    launch = _launch((n2, block, blocks))
    seen = observe(run.kernel, launch, key=f"stride past n {n2, block, blocks}", racecheck=False)
    (x, y), i = launch.model, np.arange(n2)
    if seen.error is not None:
        return
    got = (seen.outs[0].got - y) / x
    step = int(np.argmax(got[threads:] != 0)) + threads if got[threads:].any() else 0
    if step <= n or not np.array_equal(got, i % step < threads):
        return
    said = {block * block: f" = blockDim.x * blockDim.x ({block} * {block})",
            blocks * blocks: f" = gridDim.x * gridDim.x ({blocks} * {blocks})"}.get(step, "")
    yield (f"only the first {threads} elements were added, one a thread: the loop steps by "
           f"{step}{said}, not by the grid's {threads} threads, and {step} is past n = {n}, so "
           f"each thread's second element was already past the end (with n = {n2} on the "
           f"simulator, the threads added y[0] to y[{threads - 1}], then y[{step}] to "
           f"y[{step + threads - 1}], ...)", "the stride is the number of threads in the grid, "
           "a block's threads times the number of blocks: int stride = blockDim.x * gridDim.x;")


def _bound_by_the_stride(run, visits, n, block, blocks):
    """Only the first threads elements added, one a thread, where a launch of the same grid on
    the simulator with fewer elements than threads adds each of them once and writes past n up
    to the last thread's element, and the loop's test compares i with what its step adds (i <
    stride): each thread stops after its first element, whatever n is."""
    threads = block * blocks
    if not threads < n or not (visits[:threads] == 1).all() or visits[threads:].any():
        return
    n2 = threads // 2
    launch = _launch((n2, block, blocks))
    seen = observe(run.kernel, launch, key=f"fewer than {threads}", racecheck=False)
    (x, y) = launch.model
    if seen.error is not None or not np.array_equal(seen.outs[0].got, y + x) or \
            not np.array_equal(seen.outs[0].past, np.arange(n2, threads)):
        return
    if (test := loop_test_against_step(run.kernel)) is not None:
        yield (f"only the first {threads} elements were added, one a thread: the loop's test "
               f"compares i with the stride, {test}, so each thread stops after its first "
               f"element (i + stride is never below the stride), and with n = {n2} on the "
               f"simulator threads past n added into y[{n2}] to y[{threads - 1}], past the end",
               "the loop runs while i < n: " + LOOP_HINT)


def _stepped_first(past, visits, n, threads):
    """A loop that steps i before it uses it (i += stride at the top of a while loop's body):
    each thread's first element, y[0] to y[threads - 1], never added to, the others once, and
    the last step of each thread past n, y[n] to y[n + threads - 1], written."""
    if threads >= n or not np.array_equal(past, np.arange(n, n + threads)) or \
            visits[:threads].any() or not (visits[threads:] == 1).all():
        return
    yield (f"y[0] to y[{threads - 1}], each thread's first element, were never added to, and "
           f"y[{n}] to y[{n + threads - 1}], past y[n - 1], were: the loop steps i before it "
           "uses it (i += stride at the top of the body), so each thread skips its first element, "
           "and after the test i < n passes for its last one it steps past n and adds there",
           "use i, then step: for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
           "stride) y[i] += x[i]; (in a while loop, y[i] += x[i]; then i += stride; at the end "
           "of the body)")


def _detect(kernels, case):
    """The case's mistakes, with the loop that never ended named first (``_endless``); its
    launches run one block at a time on the simulator (``_blocks_in_turn``)."""
    launch = _launch(case)
    run = yield from _crash_named(kernels, case, _blocks_in_turn(with_stopped(
        EXERCISE, kernels, launch, lambda seen, at: _endless(seen, at, kernels))))
    if run is not None:
        yield from traced_back(kernels, launch, _mistakes(case, run))


def _crash_named(kernels, case, launched):
    """``launched``'s mistakes (a generator that launches, and returns its ``Run``), with those
    ``_jumped_over_n`` names before the first (the crash's, or what an output that held its
    poison shows)."""
    try:
        first = next(launched)
    except StopIteration as done:
        return done.value
    yield from _jumped_over_n(kernels, case)
    yield first
    return (yield from launched)


def _jumped_over_n(kernels, case):
    """A loop whose test is i != n: on the simulator the case's launch crashes past the end of
    x or y at an element of a thread whose i stepped over n, never equal to it; the same kernel
    launched as one thread (stride 1: its i lands on n) comes out right."""
    n, block, blocks = case[:3]
    threads = block * blocks
    seen = observe(kernels, _launch(case), key=f"jumped over {n}", racecheck=False)
    crash = seen.crash
    if getattr(crash, "address", None) is None or crash.thread is None or threads == 1:
        return
    thread = crash.block[0] * block + crash.thread[0]
    elements = [(name, (crash.address - start) // 4) for name, start in zip("xy", seen.starts)]
    name, element = min(elements, key=lambda e: e[1] if e[1] >= n else np.inf)
    (x, y), alone = _launch((n, 1, 1)).model, observe(kernels, _launch((n, 1, 1)),
                                                       key=f"one thread, n = {n}", racecheck=False)
    if thread >= n or element < n or (element - thread) % threads or (n - thread) % threads == 0 \
            or alone.error is not None or not np.array_equal(alone.outs[0].got, y + x):
        return
    last = thread + (n - 1 - thread) // threads * threads
    steps = [thread, thread + threads, "...", last] if last > thread + threads else \
        sorted({thread, last})
    yield (f"the loop's test i != n never stopped thread {crash.thread} of block {crash.block}: "
           f"its i steps {', '.join(map(str, steps))}, {last + threads} by the stride {threads} and jumps over n = "
           f"{n}, never equal to it, so the loop ran on until it "
           f"{'wrote' if crash.is_write else 'read'} {name}[{element}], past the end (launched "
           "as one thread, whose stride 1 lands on n, the kernel came out right)",
           "stop once i reaches n or passes it, with i < n: " + LOOP_HINT)


def _blocks_in_turn(mistakes):
    """``mistakes`` (a generator that launches, and returns its ``Run``) run on one worker of
    the simulator, so that blocks never add into one element at once and lose an addition; the
    setting holds while it runs, not while its consumer holds a mistake it yielded."""
    from helpers.sim.settings import settings

    while True:
        with settings.changed(workers=1):
            try:
                found = next(mistakes)
            except StopIteration as done:
                return done.value
        yield found


def _endless(seen, launch, kernels=None):
    """A loop stopped at the time limit whose i never moved: one element added to, again and
    again (more times than n), and no other; in block 0 alone (``_stride_of_the_block``), or in
    every thread."""
    (x, y), got = launch.model, seen.outs[0].got
    visits = (got - y) / x
    moved = np.flatnonzero(visits)
    if moved.size == 1 and visits[moved[0]] > x.size:
        first = int(moved[0])
        yield from _stride_of_the_block(kernels, launch) if kernels is not None else ()
        yield from _step_outside(kernels, first) if kernels is not None else ()
        yield (f"the loop never ended: only y[{first}] was added to, again and again until the "
               "simulator stopped it, and no other element: the loop's i never moved",
               "i must move each time round: i += stride stores the next i in i (i + stride "
               "alone computes it and throws it away); " + LOOP_HINT)


def _step_outside(kernels, first):
    """The loop that never ended has no braces, and its step, indented under its one statement as
    if in it, runs after it (``unbraced_loop``): the loop repeats y[i] += x[i] on one i."""
    if (loop := unbraced_loop(kernels)) is None or not loop.stuck:
        return
    lines, run = (f"line {loop.after[0]}", "runs") if loop.after[0] == loop.after[1] else \
        (f"lines {loop.after[0]} to {loop.after[1]}", "run")
    yield (f"the loop never ended: the {loop.keyword} at line {loop.line} has no braces, so its "
           f"body is the one statement {loop.body} (line {loop.body_line}), and {lines}, "
           f"{loop.rest}, indented as if in the loop, {run} only after it: nothing in the loop "
           f"moves i, so only y[{first}] was added to, again and again until the simulator "
           "stopped it", "C does not go by indentation: wrap the loop's body in braces, "
           f"{loop.header} {{ {loop.body} {loop.rest} }}, or write " + LOOP_HINT)


def _stride_of_the_block(kernels, launch):
    """The launch stopped again on two workers, so that block 1 runs beside block 0: block 0
    stuck on one element, and every other block's elements added to once each, as a stride of
    blockIdx.x * blockDim.x gives (0 in block 0): the step moves i everywhere else."""
    from helpers.sim.settings import settings

    (x, y), (block, blocks) = launch.model, (launch.block[0], launch.grid[0])
    with settings.changed(workers=2, time_limit=STOPPED_AFTER):
        seen = observe(kernels, launch, key="stopped on two workers", racecheck=False)
    if getattr(seen.error, "kind", None) != "time limit" or blocks < 2:
        return
    visits, model = (seen.outs[0].got - y) / x, np.zeros(x.size)
    for b in range(1, blocks):
        for t in range(block):
            model[b * block + t::b * block] += 1
    if np.array_equal(visits[block:], model[block:]) and not visits[1:block].any() and \
            visits[0] > x.size:
        yield ("the loop never ended in block 0: the stride is blockIdx.x * blockDim.x = 0 there, "
               "so its i never moved (y[0] added to again and again), while block 1, whose stride "
               f"is {block}, ended: the stride took the block's number, blockIdx.x, where the "
               "number of blocks, gridDim.x, belongs", "the stride is the number of threads in "
               "the grid, the same in every block: int stride = gridDim.x * blockDim.x;")


EXERCISE = KernelExercise(
    stub="exercises/add_into.cu", kernel="add_into", signature="const float *x, float *y, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    detect=_detect,
    crash_hint="the loop must stop at n: " + LOOP_HINT, after=after_a_barrier_in_the_loop(*CASES[0]),
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"x added into y exactly once for every i < n on every grid tried ({len(CASES) - 1} "
            "grids, smaller and larger than n), by one thread each, and nothing written past n")

check_add_into = EXERCISE.check_file          # (path="exercises/add_into.cu")
check_add_into_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
