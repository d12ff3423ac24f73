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
from helpers.exercises.microscope import (STOPPED_AFTER, accesses_of, observe, with_stopped,
                                          written_twice)
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.origin import Wrong

# (n, threads per block, blocks): fewer threads than n (twice), then more threads than n; last
# a small one on the simulator, race-checked, and one whose indexes pass 32767 there (a loop
# whose 16-bit index wraps negative never ends on a GPU, where nothing stops it)
CASES = [(1000, 32, 2), (777, 64, 3), (300, 128, 5), (50, 8, 2, "observe"),
         (40000, 32, 2, "observe")]

LOOP_HINT = ("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride), with "
             "stride = gridDim.x * blockDim.x, the number of threads in the grid")


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
    if run.out.past.size:
        yield (f"y[{run.out.past[0]}] and beyond were written, past y[n - 1]",
               "the loop must stop at n: " + LOOP_HINT)
    if np.array_equal(got, y + x):
        return
    if np.allclose(got, x):
        yield "y holds x: y[i] = x[i] replaced y instead of adding to it", "y[i] += x[i]"
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
    for start, problem in _STARTS:   # (blocks adding into one element race: on a GPU some of
        if _like(visits, _visits(n, block, blocks, start)):  # their additions are lost)
            yield (f"the loop starts at {problem}, so the threads' walks overlap",
                   "the stride is right; start at i = blockIdx.x * blockDim.x + threadIdx.x, "
                   "the thread's global index")
    yield from _body_indexes_the_start(visits, n, threads)
    yield from _overlaps(visits, n, block, blocks)
    if threads < n and (visits[:threads] == 1).all() and not visits[threads:].any():
        yield (f"only the first {threads} elements were added, one a thread: each thread did "
               "one element, not all of its elements", LOOP_HINT)
    yield from _rounded_down(run, visits, n, threads)
    yield from _stepped_too_far(visits, n, threads)
    missed = np.flatnonzero(visits == 0)
    if missed.size:
        yield (f"{missed.size} of {n} elements were never added to (the first is "
               f"y[{missed[0]}])", LOOP_HINT)
    yield from near.misses("y", got, y + x, close=np.equal, index_hint=LOOP_HINT)
    first = int(np.argmax(got != y + x))
    yield Wrong(f"{int((got != y + x).sum())} of {n} elements are wrong (the first is "
                f"y[{first}] = {got[first]}, expected {y[first] + x[first]})",
                "y[i] += x[i], once for each i < n", "y", first)


def _rounded_down(run, visits, n, threads):
    """The first n - n % threads elements added to once, the rest never: n / threads rounded down,
    as the passes of a strided loop or as the length of each thread's chunk, told apart by which
    elements each thread stored into (a trace of the launch on the simulator)."""
    whole = threads * (n // threads)
    if whole == n or not np.array_equal(visits, np.arange(n) < whole):
        return
    split = _split(run, threads, n // threads)
    lost = f"the last {n - whole} elements (y[{whole}] on) were never added to: "
    if split == "strided":
        yield (lost + f"the loop made n / stride = {n} / {threads} = {n // threads} passes, "
               f"rounded down, so the last, partial pass (n % stride = {n - whole} elements) was "
               "never made", "let the loop's own test stop each thread at n, whatever the "
               "passes: " + LOOP_HINT + " (a count of passes would be (n + stride - 1) / stride, "
               "with i < n tested in each)")
    elif split == "chunks":
        yield (lost + "chunks of n / threads elements leave out the last n % threads", LOOP_HINT)


def _split(run, threads, per):
    """How the threads split y, from the stores a trace of ``run``'s launch on the simulator
    kept: "strided" (thread t's elements t, t + threads, ...), "chunks" (t * per to
    t * per + per - 1), or None."""
    kept = accesses_of(run.kernel, run.launch, f"split {run.launch.grid}", 4 * threads * per)
    if kept is None:
        return None
    stores = kept[kept["write"] & ~kept["shared"]]
    if not len(stores):
        return None
    t = stores["block"] * run.launch.block[0] + stores["thread"]
    element = stores["index"] - stores["index"].min()
    if ((element - t) % threads == 0).all():
        return "strided"
    return "chunks" if (element // per == t).all() else None


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


def _stepped_too_far(visits, n, threads):
    """A loop that steps by k times the grid's threads, k = 2 to 8: element i added to once where
    i % (k * threads) < threads, else never (k = 4: the stride times sizeof(float), in bytes)."""
    i = np.arange(n)
    for k in range(2, 9):
        if (visits == 0).any() and np.array_equal(visits, (i % (k * threads) < threads)):
            bytes_ = (" (4 is sizeof(float): a stride in bytes, as a NumPy stride counts them; "
                      "in C an index counts elements, and the compiler multiplies by the "
                      "element's size itself)") if k == 4 else ""
            yield (f"{int((visits == 0).sum())} of {n} elements were never added to (the first "
                   f"is y[{threads}]): the loop steps by {k * threads}, {k} times the grid's "
                   f"{threads} threads, so each thread adds only every "
                   f"{ {2: 'second', 3: 'third'}.get(k, f'{k}th')} of its elements{bytes_}", "step by the number of threads in the whole grid: "
                   "stride = gridDim.x * blockDim.x, with nothing multiplied")
            return


def _overlaps(visits, n, block, blocks):
    """Elements visited more than once, with the loop's step named where a model of it (each
    thread from its global index, stepping by s, for every s below the grid's thread count)
    gives the counts exactly; else (on a GPU, threads adding into one element at once lose some
    additions) the model with the fewest visits that covers them."""
    if not (visits > 1).any():
        return
    first, threads = int(np.argmax(visits > 1)), block * blocks
    models = {s: _stepped(n, threads, s) for s in range(1, threads)}
    exact = [s for s, model in models.items() if np.array_equal(visits, model)]
    covering = [(model.sum(), s) for s, model in models.items() if _like(visits, model)]
    step = exact[0] if exact else min(covering)[1] if covering else None
    words = {1: "1 (i++), so each thread walks over the elements of the threads after it too",
             block: "blockDim.x, a block's threads, not the grid's",
             blocks: "gridDim.x, the number of blocks, not of threads"}
    per = n // threads
    words.setdefault(per, f"n / (gridDim.x * blockDim.x) = {per}, the elements per thread, "
                          f"not the grid's thread count ({threads}): thread t adds t, t + {per}, "
                          f"t + {2 * per}, ..., over the elements of the threads after it")
    said = words.get(step, f"{step}, not by the grid's {threads} threads")
    yield (f"y[{first}] got x[{first}] added {int(visits[first])} times: threads visit the same "
           "elements" + (f": the loop steps by {said}" if step else ""),
           "step by the number of threads in the whole grid, gridDim.x * blockDim.x"
           + (": the loop's step is how far apart a thread's elements lie, not how many it "
              "gets" if step == per else ""))


def _stepped(n, threads, step):
    """How many times each element is visited by threads 0 to threads - 1 that each start at
    their global index and step by ``step``: the threads t <= i with (i - t) % step == 0."""
    i = np.arange(n)
    return ((np.minimum(i, threads - 1) - i % step) // step + 1).astype(float)


def _body_indexes_the_start(visits, n, threads):
    """A loop that steps its own variable while its body adds into y[i], the thread's start:
    element i < threads is visited once a pass, ceil((n - i) / threads) times, the rest never."""
    own = np.arange(n)
    if (visits > 1).any() and np.array_equal(visits, np.where(
            own < threads, -(-(n - own) // threads), 0)):
        yield (f"only the first {threads} elements were added to, each once a pass of its "
               "thread's loop: the loop steps one variable and the body indexes another, the "
               "thread's start i", "index with the loop's own variable: "
               + LOOP_HINT + ", and y[i] += x[i] in its body")


_STARTS = [(lambda b, t, block, blocks: 0, "0 for every thread"),
           (lambda b, t, block, blocks: t, "threadIdx.x: every block starts at element 0"),
           (lambda b, t, block, blocks: b + t, "blockIdx.x + threadIdx.x: blockIdx.x is not "
            "multiplied by blockDim.x"),
           (lambda b, t, block, blocks: b * blocks + t, "blockIdx.x * gridDim.x + threadIdx.x: "
            "blockIdx.x is multiplied by the number of blocks, not by blockDim.x, a block's "
            "threads"),
           (lambda b, t, block, blocks: t * block + b, "threadIdx.x * blockDim.x + blockIdx.x: "
            "blockIdx.x and threadIdx.x swapped places")]
"""(a wrong loop's start from block b and thread t of a grid of blocks of block threads, the words
for it)"""


def _visits(n, block, blocks, start):
    """How many times each element is visited by a loop that starts at ``start`` and steps by
    the grid's threads."""
    visits = np.zeros(n)
    for b in range(blocks):
        for t in range(block):
            np.add.at(visits, np.arange(start(b, t, block, blocks), n, block * blocks), 1)
    return visits


def _like(visits, model) -> bool:
    """The visits a model gives, or fewer where threads added into one element at once (on a GPU
    some of their additions are lost), never none where the model has some."""
    return np.array_equal(visits > 0, model > 0) and bool((visits <= model).all())


def _detect(kernels, case):
    """The case's mistakes, with the loop that never ended named first (``_endless``); its
    launches run one block at a time on the simulator (``_blocks_in_turn``)."""
    launch = _launch(case)
    run = yield from _blocks_in_turn(with_stopped(EXERCISE, kernels, launch,
                                                  lambda seen, at: _endless(seen, at, kernels)))
    if run is not None:
        yield from traced_back(kernels, launch, _mistakes(case, run))


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
        yield (f"the loop never ended: only y[{first}] was added to, again and again until the "
               "simulator stopped it, and no other element: the loop's i never moved",
               "i must move each time round: i += stride stores the next i in i (i + stride "
               "alone computes it and throws it away); " + LOOP_HINT)


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
    crash_hint="the loop must stop at n: " + LOOP_HINT,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"x added into y exactly once for every i < n on every grid tried ({len(CASES) - 1} "
            "grids, smaller and larger than n), by one thread each, and nothing written past n")

check_add_into = EXERCISE.check_file          # (path="exercises/add_into.cu")
check_add_into_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
