"""Checker for the exercise in notebook 01, ``cuda_src/exercises/scale_vector.cu``: y[i] = alpha *
x[i] for every i < n and nothing else, one thread an element, n not a multiple of the block.
Each case launches twice, y filled with NaN and then with FILL. The last case runs on the
simulator, race-checked, whatever the backend: a kernel in which every thread does the whole loop
writes the right values, but each element many times."""

from __future__ import annotations

import itertools
import re

import numpy as np

from helpers.exercises import near
from helpers.exercises import load_index
from helpers.exercises.microscope import (accesses_of, body_words, observe, with_stopped,
                                          written_by_two, written_twice)
from helpers.exercises.common import GUARD, Input, Output, one_further
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.multiply_vectors import (INDEXES, NO_GUARD, read_past_block_0,
                                                stored_at_thread)
from helpers.exercises.multiply_vectors_models import written_by
from helpers.exercises.origin import Wrong
from helpers.exercises.unset import line_text
from helpers.exercises.scale_vector_index import FLOAT_EXACT, index_type, narrow_index
from helpers.exercises.scale_vector_models import (ALPHA, FILL, a_factor_of_its_own,
                                                   blocks_from_1, bound_of_two, cut_to_ints,
                                                   divided_by_alpha, guard_after_the_store,
                                                   guard_in_bytes, multiplied_into, one_left_out,
                                                   one_past_the_end, read_above_the_guard,
                                                   second_element_unguarded,
                                                   unsigned_difference, while_for_if,
                                                   whole_blocks_alone)


# (n, threads per block, extra blocks beyond the ones needed). The first has several blocks
# (so "only block 0 is right" shows), the second one partial block, the third extra blocks
# whose threads all lie past n; a small one on the simulator, race-checked; last, once every
# other case passed, n past 2^24, where a float stops holding every whole number (an index kept in
# a float sends two threads to one element there).
SMALL = (20, 8, 0)   # the race-checked case, traced again to see a thread's stores
CASES = [(1000, 256, 0), (37, 64, 0), (5000, 128, 3), (*SMALL, "observe"),
         (FLOAT_EXACT + 37, 256, 0)]

BLOCKS = (32, 64, 128, 256, 512)
GUARD_HINT = "add a bounds guard, if (i < n), so that the threads past the end do nothing"


def _draw(rng):
    """The grader's cases, one of each kind the shipped cases have."""
    several, alone, extra = (pick(rng, BLOCKS) for _ in range(3))
    return [(awkward(rng, several, 2 * several + 1, 40 * several), several, 0),
            (int(rng.integers(1, alone)), alone, 0),
            (awkward(rng, extra, extra + 1, 20 * extra), extra, int(rng.integers(1, 4)))]


def _where(case):
    n, block, extra = case[:3]
    return f"with n = {n}, block = ({block}, 1, 1), grid = ({-(-n // block) + extra}, 1)"


def _launch(case):
    """x gets spare elements after n too, so that reading x[i] past n cannot crash, and x and y a
    block's room before their start (but for the big case), for blocks counted from 1."""
    n, block, extra = case[:3]
    x = np.random.default_rng(n).uniform(-10, 10, n).astype(np.float32)
    big = n > FLOAT_EXACT   # one launch, and no room before (a short index's offset shows)
    poisons, before = ((None,), 0) if big else ((None, FILL), block)
    return Launch((Input(x, after=64, junk=1.0, before=before),
                   Output(n, poisons=poisons, before=before), ALPHA, np.int32(n)),
                  block=(block, 1, 1), grid=(-(-n // block) + extra, 1), model=x)


def _detect(kernels, case):
    """The case's mistakes, with a guard written as a while named first (``while_for_if``)."""
    launch = _launch(case)
    run = yield from with_stopped(EXERCISE, kernels, launch, lambda seen, at: while_for_if(
        body_words(kernels), seen, at))
    if run is not None:
        yield from traced_back(kernels, launch, _mistakes(case, run))


def _observed(kernels, case):
    yield from _block_stride(observe(kernels, _launch(case)).race, case[1])
    yield from written_twice(kernels, _launch(case), "each thread writes only its own element: "
                         "i = blockIdx.x * blockDim.x + threadIdx.x, then if (i < n) y[i] = "
                         "alpha * x[i]; no loop over all of y")


def _misread(case, run, right, want):
    """x read at another index than i (threadIdx.x, blockIdx.x), from the trace's loads; then
    the elements that are wrong, the first traced back to the thread that stored it."""
    yield from load_index.misread(run.kernel, _launch(case), {"x": "i"}, load_index.WHOLE,
                                  "y[i] = alpha * x[i]")
    first, got = int(np.argmin(right)), run.out.got
    yield Wrong(f"{int((~right).sum())} of {case[0]} elements are wrong (the first is y[{first}] = "
                f"{got[first]}, expected {want[first]})",
                "every thread should compute y[i] = alpha * x[i] for its own i", "y", first)


def _mistakes(case, run):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    n, block, extra = case
    x, got, past, unwritten = run.model, run.out.got, run.out.past, run.out.unwritten
    right = np.isclose(got, want := ALPHA * x, rtol=1e-6, atol=0)
    yield from one_further("y", "element", past, unwritten, "y[i] = alpha * x[i]")
    yield from one_past_the_end(n, past)
    if past.size and unwritten.all():
        yield ("only the threads past the end wrote (y[n] and beyond), none of y[0] to "
               "y[n - 1]: the guard is inverted", "the threads with i < n do the work: "
               "if (i < n) { y[i] = ... }, or return first if (i >= n)")
    yield from _block_start_guard(case, run, right)
    yield from blocks_from_1(n, block, -(-n // block) + extra, run.out, right)
    yield from _past_n(run, n, block * (-(-n // block) + extra), right)
    if np.array_equal(run.out.runs[-1], np.full(n, ALPHA * FILL)):
        yield ("y[i] holds alpha * y[i]: y was read where x belongs (filled with -7 before a "
               "second launch, y came out alpha * -7 everywhere)", "y[i] = alpha * x[i]")
    yield from multiplied_into(run.out.runs, want)
    if unwritten.all():
        yield ("nothing was written: y still holds the NaN it was filled with",
               "each thread should store its result with y[i] = ...")
    yield from index_type(n, block * (-(-n // block) + extra), unwritten)
    yield from stored_at_thread(got, unwritten, want, block, "y", lambda: read_past_block_0(
        run.kernel, _launch((3 * block, block, 0)), block))
    if n > block and right[:block].all() and unwritten[block:].all():
        yield (f"only the first block's elements (y[0] to y[{block - 1}]) were written: "
               "i = threadIdx.x alone (every block takes y[0] to y[blockDim.x - 1]) or a guard "
               "i < blockDim.x (only block 0 passes it)",
               "i = blockIdx.x * blockDim.x + threadIdx.x, guarded with if (i < n)")
    yield from _place_multiplied(run.kernel, unwritten)
    yield from _place_times_grid(n, block, -(-n // block) + extra, unwritten)
    for index, problem, hint in INDEXES if unwritten.any() else ():
        model = written_by(index, block, -(-n // block) + extra)
        if unwritten.any() and np.array_equal(np.flatnonzero(~unwritten), model[model < n]):
            yield problem, hint.replace(NO_GUARD, ", guarded with if (i < n)")
    if right.all():
        yield from read_above_the_guard(run.kernel, n, block * (-(-n // block) + extra))
        return
    yield from itertools.chain(one_left_out(n, unwritten), whole_blocks_alone(n, block, unwritten),
                               bound_of_two(unwritten), cut_to_ints(run.kernel, x, got, want))
    if unwritten.any():
        yield (f"{int(unwritten.sum())} of {n} elements were never written (the first is "
               f"y[{int(np.argmax(unwritten))}])",
               "every i < n needs a thread: i = blockIdx.x * blockDim.x + threadIdx.x")
    for read, ours, theirs in (("x[i + 1]", got[:-1], want[1:]), ("x[i - 1]", got[1:], want[:-1])):
        if np.allclose(ours, theirs, rtol=1e-6, atol=0):
            yield (f"y[i] holds alpha * {read}: the elements are shifted by one",
                   "each thread reads its own element: y[i] = alpha * x[i]")
    if np.array_equal(got, np.trunc(want)):
        yield ("y holds whole numbers: alpha * x[i] lost its fraction (an int on the way?)",
               "keep the product a float: y[i] = alpha * x[i]")
    if not right.any() and np.allclose(got, x, rtol=1e-6, atol=0):
        yield "y equals x: alpha is not applied", "y[i] = alpha * x[i]"
    yield from itertools.chain(divided_by_alpha(x, got, want), a_factor_of_its_own(run.kernel, x, got))
    yield from near.misses("y", got, want, close=near.within(1e-6, 0),
                           index_hint="each thread reads its own element: y[i] = alpha * x[i]")
    if not right.any():
        yield "values wrong everywhere", "check alpha: y[i] = alpha * x[i]"
    yield from _misread(case, run, right, want)


def _block_stride(race, block):
    """Thread t of two blocks wrote one element that both reach from their own first element
    b * blockDim.x + t in steps of blockDim.x: a loop that steps by the block, not the grid."""
    if not written_by_two(race):
        return
    (b1, b2), (t1, t2) = (sorted(a.block[0] for a in (race.first, race.second)),
                          (a.thread[0] for a in (race.first, race.second)))
    e = race.element
    if b1 != b2 and t1 == t2 and (e - t1) % block == 0 and e >= max(b1, b2) * block + t1:
        yield (f"thread {t1} of blocks {b1} and {b2} both wrote {race.array}[{e}]: each thread's "
               "loop steps by blockDim.x, so a block's threads go on through the next blocks' "
               "elements, which those blocks' threads write too",
               "one element a thread: if (i < n) y[i] = alpha * x[i], no loop (a loop over "
               "several elements steps by the whole grid, blockDim.x * gridDim.x)")


def _block_start_guard(case, run, right):
    """y right, and past n every element of the last block written, as far as its end: a guard
    that lets through every thread of a block whose first element is below n (the block's start
    tested, not i). Told apart from no guard at all by a launch with two more blocks, on the
    simulator, whose threads (their blocks' first elements past n) must write nothing."""
    n, block = case[:2]
    end = -(-n // block) * block

    def through_block_end(past):
        return past.tolist() == list(range(n, min(end, n + GUARD)))

    if n % block == 0 or not right.all() or not through_block_end(run.out.past):
        return
    seen = observe(run.kernel, _launch((n, block, 2)), key="two_more_blocks", racecheck=False)
    if seen.error is None and through_block_end(seen.outs[0].past):
        yield (f"the last block's threads past the end wrote y[{n}] to y[{end - 1}], as far as "
               "the block's end, and blocks starting past n wrote nothing: the guard tests the "
               "block's first element (blockIdx.x * blockDim.x), not the thread's own i",
               "test the thread's element: if (i < n)")


def _past_n(run, n, threads, right):
    """Elements past n written; first, y right and every element past it that a thread reached
    written but y[n]: a guard i != n, or n - i > 0 with i unsigned, which stops the one thread
    whose i is n. Every element a thread reached written: no guard, or one that covers the load
    but not the store."""
    past = run.out.past
    if past.size and right.all():
        yield from second_element_unguarded(run.kernel, _launch(SMALL), f"y[{past[0]}] to "
                                            f"y[{past[-1]}] were written, past y[n - 1]")
    reached = list(range(n + 1, min(threads, n + GUARD)))
    if reached and right.all() and past.tolist() == reached:
        yield from unsigned_difference(run.kernel, f"y[{n + 1}] to y[{reached[-1]}]", n)
        yield (f"the threads past the end wrote y[{n + 1}] to y[{reached[-1]}], all but y[n]: "
               "the guard stopped only the thread whose i is exactly n, as i != n does",
               "i != n lets every thread past n through: if (i < n)")
    everyone = list(range(n, min(threads, n + GUARD)))
    if everyone and right.all() and past.tolist() == everyone:
        yield from _store_outside_the_guard(run.kernel, f"y[{n}] to y[{everyone[-1]}]")
        yield from guard_after_the_store(run.kernel, f"y[{n}] to y[{everyone[-1]}]")
        yield from guard_in_bytes(run.kernel, f"y[{n}] to y[{everyone[-1]}]", n)
        yield (f"y is right below n, but every thread past the end wrote too (y[{n}] to "
               f"y[{everyone[-1]}]): no guard compared the thread's global i with n",
               "a bounds guard must test the global index against n, if (i < n) { y[i] = "
               "alpha * x[i]; }: a guard that every launched thread passes lets them all "
               "through, such as a test of threadIdx.x alone, threadIdx.x < blockDim.x, or of i "
               "against the threads launched, i < gridDim.x * blockDim.x")
    if past.size:
        yield "elements past n were written (y[n] and beyond)", GUARD_HINT


def _place_multiplied(kernels, unwritten):
    """Each thread t of block b stored y[b * blockDim.x * t], in a trace of a small launch on
    the simulator: the thread's place multiplied in, where it is added (its output, one element
    a block, looks like threadIdx.x left out, but there every thread of block b stores
    y[b * blockDim.x])."""
    if not unwritten.any() or unwritten.all():
        return
    n, block = 20, 8
    launch = _launch((n, block, 0))
    kept = accesses_of(kernels, launch, "place multiplied", 8 * block * launch.grid[0])
    if kept is None:
        return
    stores = kept[kept["write"] & ~kept["shared"]]
    model = stores["block"] * block * stores["thread"]
    if len(stores) and (stores["array"] == "y").all() and np.array_equal(stores["index"], model) \
            and not np.array_equal(stores["index"], stores["block"] * block):
        shown = ", ".join(f"y[{int(e)}]" for e in np.flatnonzero(~unwritten)[:4])
        yield (f"only {shown}{', ...' if (~unwritten).sum() > 4 else ''} were written: thread t "
               f"of block b stored y[b * blockDim.x * t] (a trace of n = {n}, block = {block}: "
               "every thread of block 0 and thread 0 of every block stored y[0]), so i = "
               "blockIdx.x * blockDim.x * threadIdx.x multiplies the thread's place in",
               "add the thread's place to the block's first element, not multiply: i = "
               "blockIdx.x * blockDim.x + threadIdx.x")


def _place_times_grid(n, block, grid, unwritten):
    """The elements written are exactly b * blockDim.x + t * gridDim.x < n over the launch's
    blocks b and threads t: the thread's place multiplied by the number of blocks."""
    b, t = np.divmod(np.arange(block * grid), block)
    model = np.zeros(n, bool)
    model[(i := b * block + t * grid)[i < n]] = True
    if grid > 1 and unwritten.any() and np.array_equal(~unwritten, model):
        shown = ", ".join(f"y[{int(e)}]" for e in np.flatnonzero(model)[:4])
        yield (f"only {shown}, ... were written ({int(unwritten.sum())} of {n} never): thread t "
               "of block b wrote y[b * blockDim.x + t * gridDim.x], so threadIdx.x is "
               f"multiplied by gridDim.x = {grid} and the threads skip elements",
               "add the thread's place alone: i = blockIdx.x * blockDim.x + threadIdx.x")


def _store_outside_the_guard(kernels, written):
    """The threads past n stored into y but none of them read x, in a trace of a small launch
    on the simulator: a guard that covers the load alone, the store run by every thread. On the
    store's own line a conditional expression (y[i] = i < n ? alpha * x[i] : 0.0f, a ? in that
    line of the source) picks the value alone; on a line after the load's, an if without braces
    over two statements left the store out."""
    n, block = 20, 8
    launch = _launch((n, block, 1))
    kept = accesses_of(kernels, launch, "past n", 8 * block * launch.grid[0])
    if kept is None:
        return
    kept = kept[~kept["shared"]]
    beyond = kept["block"] * block + kept["thread"] >= n
    if not (kept["write"] & beyond).any() or (~kept["write"] & beyond).any():
        return
    stored = f"the threads past the end stored into y ({written}) but none of them read x"
    lines = set(kept["line"][kept["write"] & beyond].tolist())
    if not lines & set(kept["line"][kept["write"] & ~beyond].tolist()):
        yield from _store_of_their_own(kernels, stored, min(lines))
    if lines & set(kept["line"][~kept["write"]].tolist()):   # the load on the store's line
        text = (line_text(kernels, min(lines)) or "").strip()
        if "?" in text:
            yield (f"{stored}: the store {text} at line {min(lines)} runs for every thread, and "
                   "its conditional expression (?:) picks the value alone: the threads past n "
                   "skip the read of x but still store, past y's end",
                   "guard the store itself, not its value: if (i < n) y[i] = alpha * x[i];")
        yield (f"{stored}: the test of i < n covers the load but not the store",
               "guard the store itself: if (i < n) y[i] = alpha * x[i];")
    yield (f"{stored}: the guard if (i < n) covers the load but not the store; an if without "
           "braces covers only the one statement after it, however the next lines are indented",
           "put the store inside the guard too, with braces: if (i < n) { y[i] = alpha * x[i]; }")


def _store_of_their_own(kernels, stored, line):
    """The threads past n stored at a line that no thread with an element stored at: a store
    of their own, such as an else of the guard (else y[i] = 0.0f;)."""
    text = (line_text(kernels, line) or "").split("//")[0].strip()
    before = line_text(kernels, line - 1) or ""
    branch = re.search(r"\belse\b", f"{before} {text}") is not None
    where, drop = (" (the guard's else)", "the else") if branch else ("", "that store")
    yield (f"{stored}: the store {text + ' ' if text else ''}at line {line} is theirs alone"
           f"{where}: only the threads past n ran it, no thread with an element, and their i "
           "lies past y's end",
           f"the threads without an element must do nothing: drop {drop} (y has only n "
           "elements, y[0] to y[n - 1]), leaving if (i < n) y[i] = alpha * x[i];")


def _refine(failure):
    """A crash of a thread whose i is below n, which passed the guard: a second element stored
    past n (``second_element_unguarded``); then an index that wrapped (``narrow_index``)."""
    err = failure.error
    if failure.kind == "out of bounds" and err.thread and err.block and failure.kernel and \
            failure.launch and (i := err.block[0] * failure.block[0] + err.thread[0]) < (
            n := int(failure.launch.args[3])):
        at = f" at {err.line}" if err.line else ""
        yield from second_element_unguarded(
            failure.kernel, _launch(SMALL), f"thread {err.thread[0]} of block "
            f"{err.block[0]}, whose i = {i} is below n = {n}, crashed with a "
            f"{'write' if err.is_write else 'read'} past the end{at}")
    yield from narrow_index(failure)


EXERCISE = KernelExercise(
    stub="exercises/scale_vector.cu", kernel="scale_vector",
    signature="const float *x, float *y, float alpha, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, crash_hint=GUARD_HINT,
    refine=_refine, detect=_detect,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"y = alpha * x for every size tried ({len(CASES) - 1} launches, n not a multiple of "
            "the block size, one past 2^24), each element written by one thread, and nothing "
            "written past n")

check_scale_vector = EXERCISE.check_file          # (path="exercises/scale_vector.cu")
check_scale_vector_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
