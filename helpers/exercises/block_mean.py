"""Checker for notebook 09's exercise, ``cuda_src/exercises/block_mean.cu``: a kernel with three
planted bugs. ``subtract_block_mean(x, y, means, n)`` stores in y[i] x[i] less the mean of its
block of 256 elements, and that mean in means[blockIdx.x]. Each planted bug is looked for on its
own on the simulator, whatever the backend, in a launch where the other two cannot show; a failure
that is none of them gets the hint for its kind. Once all three are fixed, the cases run on the
chosen backend and are compared with NumPy's (and with means of a sum kept in an int)."""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises import block_mean_loads as loads, block_mean_models as models
from helpers.exercises import block_mean_barriers as barriers, block_mean_y as y_models
from helpers.exercises import block_mean_tree as tree
from helpers.exercises import kernel as runner, near
from helpers.exercises.common import Output, is_poison, named_arrays
from helpers.exercises.failure import describe
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.verdict import Verdict, not_yet

KERNEL = "subtract_block_mean"
BLOCK = models.BLOCK
CASES = [1000, 1061, 768]  # last blocks of 232, 37 and 256 elements


def _draw(rng):
    """The grader's cases: several blocks and a partial last one, and a partial block alone."""
    return [awkward(rng, BLOCK, BLOCK + 1, 16 * BLOCK), int(rng.integers(1, BLOCK))]


@dataclasses.dataclass(frozen=True)
class PlantedBug:
    name: str    # how the verdict names it
    finder: str  # the check that finds it
    n: int       # the size of the launch that shows it
    check: str   # the simulator's setting that finds it ("": always on)
    kind: str    # the kind of the simulator's error (LaunchError.kind) that means this bug,
    space: str | None  # in this memory ("shared", "global"; None: either): a race on means,
    #                    say, is another mistake than bug 2's race on tile[]
    hint: str


# n = 1000: the last block's threads past n load x[i] beyond x's end, a guard page there. n = 1024
# (no thread past the end): thread 0 reads tile[k] with no barrier, a race; means, made by
# gpuarray.empty, added to before anything wrote it, a read of uninitialised memory.
PLANTED = (
    PlantedBug("bug 1 (the bounds guard)", "the bounds checks", 1000, "", "out of bounds", None,
               "in the last block the threads whose i is n or more still load x[i] into tile[]: "
               "guard that load (those threads can store 0.0f)"),
    PlantedBug("bug 2 (the barrier)", "the race check", 1024, "racecheck", "race", "shared",
               "thread 0 reads every tile[k] right after the other threads store them: a "
               "__syncthreads() must come between the stores and thread 0's loop, where every "
               "thread of the block reaches it"),
    PlantedBug("bug 3 (the sum)", "the init check", 1024, "initcheck", "uninitialised read",
               "global",
               "means[blockIdx.x] += ... adds to whatever the memory held (gpuarray.empty is not "
               "zeroed): add up in a local float that starts at 0.0f, then store the mean once"),
)
Y_HINT = ("store with =: y[i] = x[i] - means[blockIdx.x]; y holds garbage until the kernel "
          "writes it (gpuarray.empty is not zeroed)")


def reference(x: np.ndarray):
    """(y, means): NumPy's result for the kernel."""
    blocks = -(-x.size // BLOCK)
    means = np.array([x[b * BLOCK:(b + 1) * BLOCK].astype(np.float64).mean()
                      for b in range(blocks)], np.float32)
    return x - np.repeat(means, BLOCK)[:x.size], means


def _probe(sim_kernel, bug: PlantedBug, spare=0, extra=0):
    """("fixed" | "there" | "other" (another mistake's error), the error, it in words) of the
    launch that shows ``bug`` on the simulator, with its check on; x with ``spare`` elements
    after n and ``extra`` blocks more than n needs. On one worker, so that the blocks run in order and the error is the lowest block's
    (the detectors tell mistakes apart by the block that failed first)."""
    from helpers.sim import driver, gpuarray
    from helpers.sim.settings import settings

    blocks = -(-bug.n // BLOCK) + extra
    x = np.random.default_rng(bug.n).random(bug.n + spare, dtype=np.float32)
    checks = {bug.check: True} if bug.check else {}
    with settings.changed(time_limit=runner.time_limit(), workers=1, **checks):
        x_gpu, y = gpuarray.to_gpu(x), gpuarray.empty(bug.n, np.float32)
        means = gpuarray.empty(blocks, np.float32)
        try:
            sim_kernel(x_gpu, y, means, np.int32(bug.n), block=(BLOCK, 1, 1), grid=(blocks, 1))
        except (driver.Error, TypeError) as err:
            there = getattr(err, "kind", None) == bug.kind and not _reads_y(err) and not \
                models.zeroed_while_added(err) and not _mean_unstored(err) and \
                bug.space in (None, getattr(err, "space", None))
            arrays = named_arrays((x_gpu, y, means), ("x", "y", "means"))
            return ("there" if there else "other"), err, describe(err, arrays)
    return "fixed", None, ""


def _reads_y(err) -> bool:
    """The init check's read of y: the kernel read y before storing it (y[i] += ...), not the
    planted bug 3, whose += is on means."""
    return getattr(err, "kind", None) == "uninitialised read" and getattr(err, "array", None) == "y"


def _mean_unstored(err) -> bool:
    """A read of means[b], b > 0, by block b itself, the first such read of the launch: block 0
    stored its mean before it read it, block b stored none (the mean made under if (i == 0)).
    Not bug 3, whose += reads each block's mean before storing it, block 0's first."""
    block = tuple(getattr(err, "block", None) or (0,))[0]
    return getattr(err, "array", None) == "means" and getattr(err, "element", None) == block > 0


def _store_unguarded(sim_kernel, read):
    """Whether bug 1's error (a read past x, or a write past y) came from the line that stores y,
    not from the load into the tile: with room after x, the same line writes past y."""
    state, wrote, _ = _probe(sim_kernel, PLANTED[0], spare=BLOCK)
    return state == "there" and getattr(wrote, "is_write", False) and \
        getattr(read, "line", None) is not None and wrote.line == read.line


def planted_bugs(kernels) -> Verdict | None:
    """NOT YET naming the planted bugs still there (or a failure while looking); None when all
    three are fixed."""
    found = [(bug, *_probe(kernels.simulated, bug)) for bug in PLANTED]
    for bug, state, err, text in found:
        if _reads_y(err):
            return not_yet(f"the kernel reads y before writing it (y[i] += ... adds to whatever y "
                           f"held), found by the init check: {text}", Y_HINT)
        if steps := tree.last_warp_out_of_step(err):
            return not_yet(*steps)
        if state == "other" and (tile := _tile_by_index(kernels.simulated, err)):
            return not_yet(*tile)
        if state == "other" and (big := models.sum_past_tile(kernels.simulated, err, bug.n)):
            return not_yet(*big)
        if state == "other" and (named := models.thread_counted_twice(err) or models.mean_at_first(err)
                or models.mean_started_by_every_thread(err) or models.zeroed_while_added(err)
                or loads.mean_read_above_barrier(kernels, err) or barriers.barriers_apart(kernels, err)
                or barriers.barrier_skipped_by_the_reader(kernels, err)):
            return not_yet(*named)
        if state == "other":
            return not_yet(*EXERCISE.failure(
                f"the kernel failed in the launch that looks for {bug.name}, on a mistake that "
                f"is not one of the planted bugs: {text}", err, (BLOCK, 1, 1)))
    _, bounds, read, _ = found[0]
    if bounds == "there" and _store_unguarded(kernels.simulated, read):
        return _store_past_the_end(kernels.simulated, read)
    there = [(bug, text) for bug, state, _, text in found if state == "there"]
    if not there:
        return None
    hint = there[0][0].hint
    if bounds == "there" and (by_thread := _guard_on_the_thread(kernels.simulated, read)
                              or loads.clamped_to_n(kernels, PLANTED[0].n)):
        there[0], hint = (dataclasses.replace(PLANTED[0], finder=by_thread[0]), ""), by_thread[1]
    fixed = [bug.name for bug, state, *_ in found if state == "fixed"]
    done = f"{len(fixed)} of the 3 planted bugs fixed" + (f" ({', '.join(fixed)})" if fixed else "")
    still = "; ".join(f"{bug.name}, {bug.finder}" + (f": {text}" if text else "")
                      for bug, text in there)
    return not_yet(f"{done}; still there: {still}", hint)


def _store_past_the_end(sim_kernel, read) -> Verdict:
    """NOT YET for the store of y that writes y[i] past its end, and reads x[i] past x's where
    ``read`` (the bounds check's first error at its line) is a read: with no guard, or one that
    lets i = n through, or one on the thread's place in the block, t, which a launch of one block
    (where t is i) shows right."""
    past, n = models.stored_past_y(sim_kernel, PLANTED[0].n), PLANTED[0].n
    store, reads_x = f"the line that stores y ({read.line})", read.is_write is False
    if past is not None and len(past) > 1 and np.array_equal(past, np.arange(n, n + len(past))):
        wrote = (("read x[i] and write y[i] past both arrays" if reads_x else "write y[i] past "
                  "y's end") + f" (on the simulator, with room after x and y, y[{n}] to "
                 f"y[{past[-1]}] were written")
        first, one = n // BLOCK * BLOCK, dataclasses.replace(PLANTED[0], n=BLOCK // 2 - 28)
        if _probe(sim_kernel, one)[0] == "fixed":
            return not_yet(f"the load into tile[] is guarded, but {store} is guarded by the "
                           f"thread's place in its block, t (0 to {BLOCK - 1}), which is always "
                           f"below n = {n}, not by the element's index, i: threads {n - first} to "
                           f"{past[-1] - first} of the last block (i = {n} to {past[-1]}) pass "
                           f"it, {wrote}; with one block, n = {one.n}, where t is i, it held)",
                           "guard the store with the element's index, as the load is: if (i < "
                           "n) before the line that stores y[i], not t < n")
        return not_yet(f"the load into tile[] is guarded, but {store} has no guard: the last "
                       f"block's threads past the end, i = {n} to {past[-1]}, {wrote})",
                       "guard the store as the load is: if (i < n) before the line that stores "
                       "y[i], so the threads past the end store nothing")
    return not_yet(f"the load into tile[] is guarded, but {store} "
                   f"{'reads x[n] and writes' if reads_x else 'writes'} y[n]: "
                   "its guard lets i = n through", "store y[i] only where i < n: if (i < n), "
                   "not i <= n")


def _tile_by_index(sim_kernel, err):
    """(what happened, hint) where block b's thread t went past tile at element b * BLOCK + t,
    its element's index i, and a block past the end of x (n = BLOCK, a second block with no
    elements, whose sum loop adds nothing) does it too: the store into the tile, which every
    thread makes whatever its i, indexed it by i, not t. None otherwise."""
    block = tuple(getattr(err, "block", None) or (0,))[0]
    t = tuple(getattr(err, "thread", None) or (0,))[0]
    if getattr(err, "kind", None) != "array bounds" or not block or err.element != block * BLOCK + t:
        return None
    state, empty, _ = _probe(sim_kernel, dataclasses.replace(PLANTED[0], n=BLOCK), extra=1)
    if state == "fixed" or getattr(empty, "kind", None) != "array bounds" or \
            tuple(empty.block or (0,))[0] != 1 or empty.element != BLOCK + empty.thread[0]:
        return None
    return (f"block {block}'s thread {t} stored into tile[{err.element}] at {err.line}, past "
            f"its {BLOCK} elements: the tile was indexed by i, the element's place in the whole "
            f"array, not the thread's place in its block (a block with no element of x, n = "
            f"{BLOCK} on 2 blocks, still went past tile, and its sum adds nothing)",
            "tile holds the block's own elements, one for each thread: tile[t] = i < n ? x[i] "
            ": 0.0f, t = threadIdx.x")


def _guard_on_the_thread(sim_kernel, read):
    """(what happened, hint) where bug 1's load is guarded by the thread's place in the block, t,
    not the element's index, i: a launch of one block (where t is i) reads nothing past x, but
    with several blocks a thread of the last one whose t < n has i >= n (``read``, the bounds
    check's error) and reads past x's end. None otherwise."""
    block = tuple(getattr(read, "block", None) or (0,))[0]
    t = tuple(getattr(read, "thread", None) or (0,))[0]
    n, i = PLANTED[0].n, block * BLOCK + t
    if not block or not i >= n > t:
        return None
    one = dataclasses.replace(PLANTED[0], n=BLOCK // 2 - 28)
    if _probe(sim_kernel, one)[0] != "fixed":
        return None
    return (f"the load's guard compared the thread's place in the block, t, with n: with one "
            f"block (n = {one.n}) t is i and it held, but with n = {n} the last block's thread "
            f"{t} (block {block}) has t = {t} < n while its element, i = {i}, is past x's end, "
            "and it read x[i] (found by the bounds checks)",
            "compare the element's index with n: tile[t] = i < n ? x[i] : 0.0f")


def _refine(failure):
    """The exercise's hints for an overrun of its one declared array, and for a race on means
    between thread 0's store and the other threads' reads."""
    block = tuple(failure.error.block or (0,))[0] if failure.kind else 0
    if failure.kind == "array bounds" and block and failure.error.element == BLOCK * block:
        yield (f"block {block}'s thread 0 read tile[{BLOCK * block}], its first element counted "
               "over the whole array: tile holds the block's own elements, tile[k] = "
               "x[first + k], so k runs from 0 to count - 1")
    if getattr(failure.error, "declared", None) == f"float [{BLOCK}]":
        yield (f"tile is declared as it should be, tile[BLOCK], and an index into it ran to "
               f"{failure.error.element}: thread 0's sum reads tile[k] for k < count, and count "
               "is at most BLOCK: count = min(BLOCK, n - first), k < count (not <=)")
    if failure.kind == "array bounds":
        yield ("tile is indexed past the size it was declared with: it needs one element for "
               "each of the block's 256 threads, __shared__ float tile[BLOCK]")
    if failure.kind == "uninitialised read" and _mean_unstored(failure.error):
        yield (f"block {block} read its mean, means[{block}], which no thread had stored, and "
               "block 0 stored its own: only thread 0 of block 0 computed a mean. Thread 0 of "
               "every block computes its block's: if (t == 0), t = threadIdx.x")
    err = failure.error
    if (failure.kind == "race" and err.space == "global" and err.hazard == "write-after-write"
            and err.array == "means" and err.first.block == err.second.block and err.same_line
            and err.element == err.first.block[0]):
        yield (f"every thread of block {block} stored means[{err.element}], not thread 0 alone "
               "(the others their own sum, still 0): the sum and the store go inside thread 0's "
               "if (t == 0) { ... }, and the others only read the mean after the __syncthreads()")
    if (failure.kind == "race" and err.space == "global" and err.hazard == "write-after-write"
            and err.array == "means" and err.first.block != err.second.block and err.same_line
            and err.first.thread[0] == err.second.thread[0] == err.element):
        yield (f"thread {err.element} of each block stored its block's mean in means"
               f"[{err.element}], the index of the thread, not of the block: store block b's "
               "mean in means[b], means[blockIdx.x] = sum / count")
    if failure.kind == "race" and failure.error.space == "global" and not failure.update \
            and failure.error.hazard != "write-after-write":   # a store, then reads: not two stores
        yield ("thread 0 stores the block's mean in means[blockIdx.x] while the other threads "
               "read it for y[i]: put a __syncthreads() between the two, after thread 0's "
               "if (t == 0) { ... }, where every thread of the block reaches it")


def _where(n):
    return f"n = {n}, block = ({BLOCK}, 1, 1), grid = ({-(-n // BLOCK)}, 1)"


def _launch(n):
    x = np.random.default_rng(n).uniform(-4, 4, n).astype(np.float32)
    blocks = -(-n // BLOCK)
    return Launch((x, Output(n), Output(blocks), np.int32(n)), block=(BLOCK, 1, 1),
                  grid=(blocks, 1), model=x)


def _mistakes(n, run):
    """The mistakes one launch on the chosen backend shows."""
    x, (y, means) = run.model, run.outs
    want_y, want_means = reference(x)
    if y.past.size:
        yield "y was written past its end (y[n] and beyond)", "store y[i] only when i < n"
    yield from models.sum_unset(run.kernel, means.got, want_means)
    yield from _sums_for_means(means.got, y.got, x, n)
    yield from models.count_without_start(run.kernel.simulated, means.got, want_means, x, n)
    yield from loads.load_by_thread(run, means.got, x, n)
    yield from _wrong_means(run, means.got, want_means, x, n)
    if y.unwritten.any():
        yield (f"{int(y.unwritten.sum())} elements of y were never written",
               "every thread whose i < n stores y[i] = x[i] - means[blockIdx.x]")
    close = np.isclose(y.got, want_y, rtol=1e-4, atol=1e-5)
    if not close.all():
        yield from y_models.mean_of_thread_0_alone(x, y.got, want_y)
        yield from y_models.subtraction_reversed(x, y.got, want_means)
        yield from tree.y_from_the_reduced_tile(x, y.got, want_y, want_means)
        yield from near.misses("y", y.got, want_y, close=near.within(1e-4, 1e-5))
        first = int(np.argmax(~close))
        yield (f"y is wrong: y[{first}] = {y.got[first]}, NumPy's is {want_y[first]}",
               "y[i] = x[i] - means[blockIdx.x], after a barrier that every thread reaches")


def _sums_for_means(got, y, x, n):
    """means holds each block's sum, and y is right: the mean was stored undivided, and the
    subtraction divided it by count (y[i] = x[i] - means[blockIdx.x] / count)."""
    want_y, want = reference(x)
    counts = np.minimum(BLOCK, n - np.arange(len(want)) * BLOCK)
    sums = want.astype(np.float64) * counts
    if np.allclose(got, sums, rtol=1e-4, atol=1e-4) and not np.allclose(
            got, want, rtol=1e-4, atol=1e-5) and np.allclose(y, want_y, rtol=1e-4, atol=1e-5):
        yield (f"means[0] = {got[0]:.6g} is block 0's sum, {counts[0]} times its mean "
               f"{want[0]:.6g}: means holds each block's sum, not its mean (y is right: it "
               "divides by count when it subtracts, so the means stored are the sums)",
               "store the mean and subtract it as it is: means[blockIdx.x] = sum / count, and "
               "y[i] = x[i] - means[blockIdx.x], with no / count")


def _wrong_means(run, got, want, x, n):
    """Mistakes the block means show. A sum kept in an int: each += keeps the whole part, and sum
    / count, both ints, drops the fraction too (or not, where the learner divides as floats)."""
    close, blocks = np.isclose(got, want, rtol=1e-4, atol=1e-5), len(want)
    sums, tiles = np.zeros(blocks, np.float32), np.zeros((blocks, BLOCK), np.float32)
    tiles.flat[:n] = x   # the last block's tile padded with zeros, which leave its sum as it is
    for column in tiles.T:
        sums = np.trunc(sums + column)
    counts = np.minimum(BLOCK, n - np.arange(blocks) * BLOCK)
    last = counts[-1]
    if is_poison(got).any():
        yield (f"means[{int(np.argmax(is_poison(got)))}] was never written",
               "thread 0 of every block stores its block's mean in means[blockIdx.x]")
    yield from models.count_first_outside_the_min(got, want, x, n)
    yield from models.full_block_counted_0(got, want, n)
    yield from models.count_one_too_many(got, want, x, n)
    yield from models.divided_by_count_less_1(got, want, x, n)
    if blocks > 1 and np.allclose(got, want * counts / np.float32(n), rtol=1e-4, atol=1e-5):
        yield (f"each block's mean is its sum divided by n = {n}, the whole array's length, not "
               "by count, the block's own elements", "divide by count, the elements the block "
               "has: means[blockIdx.x] = sum / count")
    if models.divided_by_block(got, want, x, n):
        yield (f"the last block's mean is its sum divided by {BLOCK}, but it has only {last} "
               "elements", "divide by count, the elements the block has, not by BLOCK")
    if any(np.allclose(got, means, rtol=1e-4, atol=1e-5)
           for means in (np.trunc(sums / counts), sums / counts)):
        b = int(np.argmax(~close))
        yield (f"means[{b}] = {got[b]}, the mean of a sum kept in an int: adding tile[k] to an int "
               "keeps only its whole part", "declare the sum as a float: float sum = 0.0f")
    block_0 = np.array([x[:c].astype(np.float64).mean() for c in counts], np.float32)
    if blocks > 1 and np.allclose(got, block_0, rtol=1e-4, atol=1e-5):
        b = int(np.argmax(~close))
        yield (f"means[{b}] = {got[b]}, the mean of block 0's elements x[0] to x[{counts[b] - 1}]: "
               "the sum read x[k], not the block's own elements",
               "tile[k] holds the block's element x[first + k]: sum += tile[k]")
    if blocks > 1 and close[0] and not got[1:].any() and want[1:].any():
        yield (f"means[0] is right but means[1] to means[{blocks - 1}] are 0: the blocks after "
               "the first loaded only zeros into tile[], as if the load's guard compared i, the "
               "index over the whole array, with count, the block's own number of elements",
               "guard the load with the array's end: tile[t] = i < n ? x[i] : 0.0f")
    yield from models.tile_0_alone(got, close, x, counts)
    yield from models.own_element_count_times(got, close, x)
    yield from models.one_element_off(got, close, x, counts)
    yield from tree.tree_from_count_half(got, want, x, n)
    yield from models.tile_read_unstored(run, got, want, n)
    if not close.all():
        first = int(np.argmax(~close))
        yield (f"means[{first}] = {got[first]}, but the mean of that block is {want[first]}",
               "add up tile[0] to tile[count - 1] and divide by count")


EXERCISE = KernelExercise(
    stub="exercises/block_mean.cu", kernel=KERNEL,
    signature="const float *x, float *y, float *means, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint="read the error: it names the thread and the line", refine=_refine,
    simulated="looks for the planted bugs", before=planted_bugs,
    success=("all 3 planted bugs are fixed (the bounds checks, the race check and the init check "
             "find nothing), and y and means match NumPy for every size tried "
             f"({len(CASES)} launches, last blocks of 232, 37 and 256 elements)"))

check_block_mean = EXERCISE.check_file          # (path="exercises/block_mean.cu")
check_block_mean_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): simulated on a GPU
