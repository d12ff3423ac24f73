"""Checker for the first exercise of notebook 03: ``cuda_src/exercises/escape_steps.cu``.

The kernel ``escape_steps(c_re, c_im, steps, n, max_iter)`` counts, for each point c of a list,
the steps of z = z*z + c from z = 0 while |z|^2 <= 4, at most max_iter: the loop of the chapter,
one thread for each point. Its one idea is a loop that each thread runs for as long as its own
point needs. The points are random in the view of the chapter's picture; as in
``helpers.exercises.julia``, a GPU's fused multiply-adds may change a count near the set's edge,
so up to ``TOLERANCE`` of the points may differ from NumPy's, and each usual mistake of the loop
is told by the counts it gives (computed by the same NumPy loop with that mistake in it). The last
case runs on the simulator, race-checked (``helpers.exercises.microscope``), whatever the backend:
a kernel in which every thread computes every point's count gives the right counts, but each is
written by every thread.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near, unset
from helpers.exercises.common import Input, Output
from helpers.exercises.escape import escape_counts, stopped_short, wrong_steps
from helpers.exercises.escape_steps_loop import (loop_never_ran, size_tested_outside_the_loop,
                                                test_set_once)
from helpers.exercises.escape_steps_models import (STEP_HINT, STEPS, counted_once_more, counts,
                                                  loop_without_braces, read_at_thread_index,
                                                  size_cut_to_int, size_models, step_models,
                                                  tested_every_second_step)
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import (accesses_of, body_words, kernel_words, observe,
                                          source_line, with_stopped, written_twice)
from helpers.exercises.origin import Wrong

TOLERANCE = 0.01
EDGE = np.float32([[-2, 2, 0, 0], [0, 0, 2, -2]])
"""The first four points, c = -2, 2, 2i, -2i: |z|^2 reaches 4 exactly (in any float arithmetic,
fused or not) and the loop goes on; they must count exactly NumPy's, whatever the tolerance."""

# (n, threads per block, max_iter); last a small one on the simulator, race-checked
CASES = [(3000, 256, 100), (777, 128, 50), (40, 32, 20, "observe")]


def _models(c_re, c_im, max_iter, n, want):
    """(counts, problem, hint) of the loop's usual mistakes, checked in this order."""
    inside = want == max_iter
    zero = np.zeros_like(c_re)
    yield from step_models(c_re, c_im, max_iter, want)
    yield counts(c_re, c_im, max_iter, start_at_c=True), *START_AT_C
    yield counts(c_im, c_re, max_iter), "c_re and c_im are swapped", STEP_HINT
    yield from wrong_steps(zero, zero, c_re, c_im, max_iter, STEPS)
    yield from size_models(c_re, c_im, max_iter)
    yield (np.where(c_re * c_re + c_im * c_im <= np.float32(4), max_iter, 0), "the loop's test "
           "reads c, not z: every point with |c| <= 2 counts max_iter and every other 0, since c "
           "never changes in the loop", "test z, which each step moves: while (k < max_iter && "
           "z_re * z_re + z_im * z_im <= 4.0f)")
    yield (counts(c_re, zero, max_iter), "every count is what the point's real part alone gives, "
           "as if c_im were 0: z_im stayed 0 through the loop, so either c_im[i] is not added in "
           "its step, or the new z_im went into another variable (float z_im = ... inside the "
           "loop declares a second z_im, which hides the one the loop tests)",
           "z_im = 2.0f * z_re * z_im + c_im[i]; with no float in front: it updates the z_im "
           "declared before the loop")
    yield (counts(zero, c_im, max_iter), "every count is what the point's imaginary part alone "
           "gives, as if c_re were 0: c_re[i] is not added to the new real part, so z_re moves "
           "only by z_re*z_re - z_im*z_im", "add the point's real part in the step: float re = "
           "z_re * z_re - z_im * z_im + c_re[i];")
    yield (np.where(inside, max_iter + 1, want), "points that never escape count max_iter + 1",
           "loop while k < max_iter, not <=")
    first = int(np.argmax(inside))
    yield (np.where(inside, 0, want), f"points that never escape count 0, not max_iter = "
           f"{max_iter} (the first: point {first}, got 0, expected {max_iter}), while the points "
           "that escape count right: the store sets the count of a point still bounded after "
           "max_iter steps to 0", "store the steps taken, whatever they are: steps[i] = k; (a "
           "point in the set counts max_iter, the colour the picture gives the set)")
    yield stopped_short(want, max_iter, "k")
    yield (counts(c_re, c_im, max_iter - 1) + 1, "every count is one too many: k starts at 1",
           "int k = 0: count the steps taken")
    yield (escape_counts(zero, zero, c_re, c_im, max_iter, twice=1), "z_im's step lacks the "
           "factor 2 (z_im = z_re*z_im + c_im[i])", STEP_HINT)
    yield (counts(c_re, 2 * c_im, max_iter), "z_im's step doubled c_im[i]: the counts are those "
           "of the points c_re + 2i * c_im, as z_im = 2.0f * (z_re * z_im + c_im[i]) gives: the "
           "parentheses put c_im[i] inside the factor 2, which belongs to the product alone",
           "double the product only, then add c_im[i]: z_im = 2.0f * z_re * z_im + c_im[i]")
    yield (escape_counts(zero, zero, c_re, c_im, max_iter, im2_sign=1), "z_re's step adds "
           "z_im*z_im where it subtracts it: the real part of z*z is z_re^2 - z_im^2", STEP_HINT)
    yield (counts(c_re, c_im, max_iter, size_sign=-1), "the loop's test takes z_re^2 - z_im^2 "
           "for |z|^2, which is z_re^2 + z_im^2", "loop while z_re * z_re + z_im * z_im <= 4.0f")
    yield (counts(c_re, c_im, max_iter, whole=True), "z is kept in ints: each step drops the "
           "fractions of z_re and z_im", "float z_re = 0.0f, z_im = 0.0f")
    yield (counts(c_re, c_im, max_iter, whole_re=True), "the new real part lost its fraction "
           "each step, z_im kept its own: the temporary for the real part is an int (int re = "
           "...), which drops the fraction", "float re = z_re*z_re - z_im*z_im + c_re[i]: the "
           "temporary is a float, as z is")
    yield (counts(c_re, c_im, max_iter, comma=True), "z_re never moved from 0, and z_im took "
           "the new real part each step: in C, z_re, z_im = a, b; is not Python's tuple "
           "assignment but the comma operator, which stores only a, in z_im", "C assigns one "
           "variable at a time, so keep the new real part in a temporary: " + STEP_HINT)
    yield (counts(c_re, c_im, max_iter, c_of_k=True), "every step adds c_re[k] + i*c_im[k], the "
           "step's number where the point's is i: every point follows the same z",
           "c is the thread's point: c_re[i] and c_im[i]")
    if n != max_iter:
        yield (counts(c_re, c_im, n), "the loop runs up to n steps, the number of points, where "
               "max_iter is the limit", "while (k < max_iter && ...)")


def _test_after_the_step(kernels, max_iter) -> bool:
    """Whether the loop ends on a break after the step: a point c = NaN, whose |z|^2 > 4 is
    never true, counts max_iter there (the stub's while (... <= 4.0f) stops it at once). Its
    counts are those of z starting at c; this tells the two apart."""
    nan = np.float32([np.nan])
    seen = observe(kernels, Launch((Input(nan), Input(nan), Output(1, np.int32), np.int32(1),
                                    np.int32(max_iter)), block=(1, 1, 1), grid=(1, 1)),
                   key="nan point")
    return seen.error is None and int(seen.outs[0].got[0]) == max_iter


def _z_stood_still(kernels, got, want, max_iter):
    """Every count max_iter (as every point's is where z_re never moves: z = i*c_im, and no
    point of the cases has |c_im| > 2): which part of z stood still, from two points that
    escape at the first step, c = 3 (moves only z_re) and c = 3i (moves only z_im)."""
    if (want == max_iter).all() or np.mean(got != max_iter) > TOLERANCE:
        return
    far = np.float32([3, 0]), np.float32([0, 3])
    seen = observe(kernels, Launch((Input(far[0]), Input(far[1]), Output(2, np.int32),
                                    np.int32(2), np.int32(max_iter)), block=(2, 1, 1),
                                   grid=(1, 1)), key="z's parts")
    if seen.error is not None:
        return
    got = tuple(int(k) for k in seen.outs[0].got)
    if got == (max_iter, 1):
        yield (f"z_re never moved from 0: every point counts max_iter = {max_iter}, c = 3 too, "
               "while c = 3i escapes at the first step: each step's new real part never reached "
               "the z_re the loop tests, so z stayed on the imaginary axis, z = i*c_im, inside "
               "|z| <= 2", "after z_im's update, store the new real part into the z_re declared "
               "before the loop: z_re = re; (with no float in front)")
    elif got == (max_iter, max_iter):
        yield from test_set_once(kernels, max_iter)
        yield from size_tested_outside_the_loop(kernels, max_iter)
        yield (f"z never moved from 0: every point counts max_iter = {max_iter}, c = 3 and c = "
               "3i too: neither new part reached the z_re and z_im the loop tests",
               "update the variables declared before the loop, with no float in front: " +
               STEP_HINT)


START_AT_C = ("z starts at c instead of 0", "z_re = z_im = 0.0f before the loop")
AFTER_THE_STEP = ("every point that escapes counts one step short: the |z|^2 test comes after the "
                  "step, so the step that escapes is not counted",
                  "test before the step: while (k < max_iter && z_re * z_re + z_im * z_im <= 4.0f)"
                  " { one step; k++; }")


def _draw(rng):
    """The grader's cases: two other lists, blocks and limits."""
    return [(awkward(rng, block, 100, 4000), block, int(rng.integers(20, 120)))
            for block in (pick(rng, (64, 128, 256)), pick(rng, (32, 512)))]


def _where(case):
    n, block, max_iter = case[:3]
    return (f"with n = {n}, max_iter = {max_iter}, block = ({block}, 1, 1), "
            f"grid = ({-(-n // block)}, 1)")


def _launch(case):
    n, block, max_iter = case[:3]
    rng = np.random.default_rng(n)
    c_re = rng.uniform(-2.2, 1.0, n).astype(np.float32)
    c_im = rng.uniform(-1.2, 1.2, n).astype(np.float32)
    c_re[:4], c_im[:4] = EDGE
    return Launch((Input(c_re, after=block), Input(c_im, after=block),
                   Output(n, np.int32, guard=block),
                   np.int32(n), np.int32(max_iter)),
                  block=(block, 1, 1), grid=(-(-n // block), 1), model=(c_re, c_im))


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), "each thread computes only its own point's "
                         "count: i = blockIdx.x * blockDim.x + threadIdx.x, then steps[i] = k; "
                         "no loop over all the points", items="points")


def _mistakes(case, run):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    n, block, max_iter = case
    (c_re, c_im), got = run.model, run.out.got
    if run.out.past.tolist() == [n] and not run.out.unwritten.any():
        yield (f"the thread with i == n = {n} wrote steps[{n}], one past the end of steps: the "
               "guard if (i > n) return; lets i == n through (steps[0] to steps[n - 1] are the "
               f"n = {n} counts)", "send away every thread from n on: if (i >= n) return;")
    yield from _index_without_the_block(run, case)
    yield from _spare_threads(run, n)
    if run.out.past.size or run.out.unwritten.any():
        yield "some points' counts were not written, or written past the end", \
              "keep the index and the guard as the stub gives them"
    want = counts(c_re, c_im, max_iter)
    if np.mean(got != want) <= TOLERANCE:
        if (got[:4] == want[:4]).all():
            return
        if (got[:4] == counts(*EDGE, max_iter, strict=True)).all():
            yield ("points where |z|^2 reaches 4 exactly stopped there (c = -2, 2, 2i, -2i): "
                   "the loop stops at |z|^2 < 4", "loop while |z|^2 <= 4: at |z| = 2 a point "
                   "has not escaped yet")
    yield from map(_unset, unset.reads(run.kernel)[:1])   # the simulator's compiler's record
    yield from loop_without_braces(run.kernel, got)
    if not got.any():
        yield from _count_hidden(run.kernel)
        yield from loop_never_ran(run.kernel, _one_point(run.kernel, "reads of one point"))
        yield "every count is 0: no step was taken", "a while loop: " + STEP_HINT
    yield from _z_stood_still(run.kernel, got, want, max_iter)
    for wrong, problem, hint in _models(c_re, c_im, max_iter, n, want):
        if np.mean(got != wrong) <= TOLERANCE:
            if (problem, hint) == START_AT_C and _test_after_the_step(run.kernel, max_iter):
                yield AFTER_THE_STEP
            yield problem, hint
    yield from read_at_thread_index(got, (c_re, c_im, want), max_iter, block, TOLERANCE)
    yield from tested_every_second_step(got, (c_re, c_im, want), max_iter, TOLERANCE)
    yield from size_cut_to_int(run.kernel, got, (c_re, c_im, want), max_iter, TOLERANCE)
    yield from _stored_in_the_loop(run.kernel, got, want, max_iter)
    yield from counted_once_more(run.kernel, got, want, max_iter, TOLERANCE)
    yield from near.misses("steps", got, want, close=np.equal, slack=TOLERANCE)
    first = int(np.argmax(got != want))
    yield Wrong(f"{np.mean(got != want):.1%} of the counts differ from NumPy's (the first: "
                f"point {first}, got {got[first]}, expected {want[first]})", STEP_HINT, "steps",
                first)


def _stored_in_the_loop(kernels, got, want, max_iter):
    """Every count one short, the points that never escape too (max_iter - 1), where a thread
    stores into steps more than once (on the simulator, traced, the point c = 0, which never
    escapes, in 4 steps): the store is inside the loop, before k++, so its last holds k - 1."""
    if np.mean(got != want - 1) > TOLERANCE:
        return
    kept = _one_point(kernels, "stores of one point")
    stores = [] if kept is None else kept[(kept["array"] == "steps") & kept["write"]]
    if len(stores) < 2:
        return
    lines = sorted(set(stores["line"].tolist()))
    at = f" at line {lines[0]}" if len(lines) == 1 else ""
    yield (f"every count is one short, the points that never escape too (they count max_iter - 1 "
           f"= {max_iter - 1}): the store to steps{at} is inside the loop, before k++, so it runs "
           f"once each step (the point c = 0 stored {len(stores)} times in 4 steps) and its last "
           "store holds k - 1, with no store after the loop", "store once, after the loop: "
           "steps[i] = k; below the while's closing brace, where k holds the steps taken")


def _one_point(kernels, key):
    """The accesses of one point, c = 0 (it never escapes), counted up to 4 steps, on the
    simulator (``accesses_of``)."""
    zero = np.zeros(1, np.float32)
    return accesses_of(kernels, Launch((Input(zero), Input(zero), Output(1, np.int32),
                                        np.int32(1), np.int32(4)), block=(1, 1, 1), grid=(1, 1)),
                       key, 64)


def _spare_threads(run, n):
    """Every count written, and steps[n] on to the grid's last thread's written past the end:
    the spare threads of the last block ran on, unguarded (``body_words``: no return at all, or
    a guard that lets them through)."""
    out, launch = run.out, run.launch
    threads = launch.grid[0] * launch.block[0]
    if out.unwritten.any() or threads - n < 2 or \
            not np.array_equal(out.past, np.arange(n, threads)):
        return
    words = body_words(run.kernel)     # [] where the source cannot be read: say neither
    which = ("no bounds guard sends them away" if not words else "there is no bounds guard"
             if "return" not in words else "the bounds guard lets them through")
    yield (f"the last block's {threads - n} spare threads, i = {n} to {threads - 1}, wrote "
           f"steps[{n}] to steps[{threads - 1}], past the end of steps (n = {n} counts), after "
           f"reading c_re[i] and c_im[i] past their ends: {which}, so every thread of the grid "
           "ran the loop", "send the spare threads away before they read: if (i >= n) return; "
           "right after int i = blockIdx.x * blockDim.x + threadIdx.x;")


def _index_without_the_block(run, case):
    """Only the first block's slots written, and on the simulator (2 blocks of 32) block 1's
    thread t stored steps[t]: the index is threadIdx.x alone (block 1 read c_re[t] too, each
    slot the first block's count) or only the store's (block 1 read c_re[32 + t], each slot the
    count of point b * blockDim.x + t of some block b, whichever stored last)."""
    n, block, max_iter = case[:3]
    (c_re, c_im), out = run.model, run.out
    if n <= block or out.past.size or out.unwritten[:block].any() or \
            not out.unwritten[block:].all():
        return
    kept = accesses_of(run.kernel, _launch((64, 32, 2)), "stores of block 1", 4096)
    if kept is None:
        return
    mine = kept[kept["block"] == 1]
    stores, reads = (mine[(mine["array"] == a) & (mine["write"] == w)]
                     for a, w in (("steps", True), ("c_re", False)))
    if not len(stores) or (stores["index"] != stores["thread"]).any() or not len(reads):
        return
    right = counts(c_re, c_im, max_iter)
    if (reads["index"] == reads["thread"]).all() and \
            np.mean(out.got[:block] != right[:block]) <= TOLERANCE:
        yield (f"only steps[0] to steps[{block - 1}] were written, the first block's {block} "
               f"points: every block computed those, as thread t of block 1 stores steps[t], not "
               f"steps[blockDim.x + t]: i = threadIdx.x counts from 0 again in every block, so "
               f"points {block} to {n - 1} got no thread", "add the block's start to the index: "
               "int i = blockIdx.x * blockDim.x + threadIdx.x;")
    own = np.full(-(-n // block) * block, -1)
    own[:n] = right
    if (reads["index"] == reads["thread"] + 32).all() and \
            np.mean((own.reshape(-1, block) != out.got[:block]).all(axis=0)) <= TOLERANCE:
        yield (f"only steps[0] to steps[{block - 1}] were written: every block stored its counts "
               f"there, over the first block's: on the simulator thread t of block 1 read c_re"
               f"[32 + t], its own point i, but stored its count at steps[t], the thread's place "
               f"in its block, so points {block} to {n - 1} have no count where they belong",
               "store each point's count at its own index: steps[i] = k; (i = blockIdx.x * "
               "blockDim.x + threadIdx.x, the index the loads use)")


def _count_hidden(kernels):
    """Every count 0, where the variable that steps[i] = stores is declared again in the body,
    under the first (for (int k = 0; ...) below the stub's int k = 0;): the loop counts in its
    own k, which the store does not see. Nothing where the source cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    stores = [j for j in range(body, end - 1) if words[j:j + 2] == ["steps", "["]]
    if not stores or "=" not in words[stores[-1]:end]:
        return
    name = words[words.index("=", stores[-1]) + 1]    # the k of steps[i] = k;
    kept = [j for j in range(body + 1, end) if words[j] == name and words[j - 1] in
            ("int", "unsigned", "long", "short", "auto", "size_t")]
    if len(kept) < 2:
        return
    first, again = (source_line(source, tokens[j].start) for j in kept[:2])
    in_for = words[kept[1] - 3:kept[1] - 1] == ["for", "("]
    where = f"the for at line {again}" if in_for else f"line {again}"
    yield (f"every count is 0: {where} declares a second {name}, which hides the {name} of line "
           f"{first}: the loop counts its steps in its own {name}, which ends with the loop's "
           f"braces, and steps[i] = {name}; stores the {name} of line {first}, still 0",
           f"don't declare {name} again, so that the loop counts in the {name} the store reads: "
           f"for (; {name} < max_iter && ...; {name}++), or for ({name} = 0; ...)" if in_for else
           f"count in the {name} of line {first}: drop the type in front of {name} at line "
           f"{again}")


def _unset(record):
    """(problem, hint) for a local read before it was given a value (``helpers.exercises.unset``'s
    record): z_re of float z_re, z_im = 0.0f;, say."""
    where = f" (declared at line {record.declared})" if record.declared else ""
    return (f"{record.name}{where} was read before it was given a value: it holds whatever its "
            "register held, on a GPU anything, on the simulator 0xFE bytes (-1.7e38 for a float, "
            "so |z|^2 is inf and no step is taken)", f"z starts at 0: give {record.name} its "
            "value where it is declared; in C each name of a declaration takes its own = 0.0f: "
            "float z_re = 0.0f, z_im = 0.0f;")


def _detect(kernels, case):
    """The case's mistakes, with an endless loop's conditions named first (``_endless``)."""
    run = yield from with_stopped(EXERCISE, kernels, _launch(case),
                                  lambda seen, launch: _endless(kernels, case))
    if run is not None:
        yield from _mistakes(case, run)


def _endless(kernels, case):
    """A launch that ran into the time limit, whose points that escape at the first step (c = 3)
    all count max_iter: the loop went on after |z| passed 2 until k reached max_iter, and goes on
    for ever where |z| stays small: its two conditions are joined with ||."""
    max_iter, far = case[2], np.full(32, 3, np.float32)
    seen = observe(kernels, Launch((Input(far), Input(np.zeros_like(far)), Output(32, np.int32),
                                    np.int32(32), np.int32(max_iter)), block=(32, 1, 1),
                                   grid=(1, 1)), key="escaping points")
    if seen.error is None and (seen.outs[0].got == max_iter).all():
        yield ("the loop never ended for points that stay near 0, and points that escape at the "
               f"first step (c = 3) counted max_iter = {max_iter}: the loop runs while either of "
               "its conditions holds, k < max_iter || |z|^2 <= 4", "join them with &&: while (k "
               "< max_iter && z_re * z_re + z_im * z_im <= 4.0f), both must hold")


EXERCISE = KernelExercise(
    stub="exercises/escape_steps.cu", kernel="escape_steps",
    signature="const float *c_re, const float *c_im, int *steps, int n, int max_iter",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, detect=_detect,
    crash_hint="keep the index and the guard as the stub gives them",
    simulated="runs the race check", observed=_observed, observed_as="race-checked", unset=_unset,
    success=f"every point's count matches NumPy's ({len(CASES) - 1} lists of random points, "
            f"all but at most {TOLERANCE:.0%} of the counts equal), each written by one thread")

check_escape_steps = EXERCISE.check_file          # (path="exercises/escape_steps.cu")
check_escape_steps_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
