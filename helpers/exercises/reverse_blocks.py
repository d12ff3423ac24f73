"""Checker for the first exercise of notebook 06: ``cuda_src/exercises/reverse_blocks.cu``.

``reverse_blocks(in, out, n)`` reverses each block's 256 elements (``len``, fewer, in the last
block) through shared memory: out[start + j] = in[start + len - 1 - j]. Launched with
``block=(256, 1, 1)`` and a block for every 256 elements, n not a multiple of 256, the output
pre-filled with NaN and followed by a guard zone, the input by junk. The first case also runs on
the simulator under the race check, whatever the backend, so that a missing barrier is found
even where the threads' order made the result right; there the input has no junk after it, so
that a load past its end (a load guard j <= len, or none) is found too. Wrong values are matched with known
mistakes: nothing reversed, the whole array reversed, the last block mirrored as if it were full,
a mirror one element off, every block stored into out[0 ..] (its start left out). No speed tier: reversing inside a block costs no extra sectors.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from helpers.exercises import near
from helpers.exercises.barrier_if import after_the_cases
from helpers.exercises.common import Input, Output, one_further
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.named_first import named_first
from helpers.exercises.microscope import accesses_of, observe, race_mistake, syncwarp_first
from helpers.exercises.origin import Wrong
from helpers.exercises.reverse_blocks_models import (BLOCK, j_as_the_lane, len_of_the_last_block,
                                                     len_one_short, len_one_too_many,
                                                     load_guard_global, minus_j_outside,
                                                     mirrored_twice, reference,
                                                     s_declared_short)

CASES = [1000, 77, 3 * BLOCK, 5003]
"""n: a partial last block (race-checked), a block alone, whole blocks, many blocks."""
JUNK = np.float32(1000.0)
PROBE = (1000, BLOCK // 2)
"""(n, threads a block) of the launch that tells a j counted across the grid from a len of 0
or less past block 0 (``_block_0_alone``)."""
MIRROR_HINT = ("element j of the block's output is its element len - 1 - j: out[start + j] = "
               "s[len - 1 - j], with len = min(BLOCK, n - start)")


def _draw(rng):
    """The grader's cases: one partial block alone, several blocks and a partial one."""
    return [int(rng.integers(2, BLOCK)), awkward(rng, BLOCK, BLOCK + 1, 40 * BLOCK)]


def _where(n):
    return f"n = {n}, block = ({BLOCK}, 1, 1), grid = ({-(-n // BLOCK)}, 1)"


def _refine(failure):
    """The exercise's hint for an index past s, by the thread that made it and the element (its
    fields): thread 0 reads s[len - j] = s[BLOCK] in a full block, s[len - 1] beyond it where len
    counts more than the block's elements, and a thread j >= len reads s[len - 1 - j] < 0."""
    err = failure.error
    yield from j_as_the_lane(failure)
    yield from s_declared_short(failure)
    if (pair := _overwrites_own(failure)):
        writer, reader = pair
        yield (f"s is written after the barrier while partner threads still read it: thread "
               f"{writer.thread[0]} overwrote s[{err.element}] at {writer.line} while thread "
               f"{reader.thread[0]}, whose mirror it is, still read it there (a data race on "
               f"s, {err.count} hazards in this launch)",
               "leave s as loaded and read s[len - 1 - j] straight into out: "
               "out[start + j] = s[len - 1 - j]")
    if failure.between == "blocks" and err.array == "out":
        yield ("two blocks stored into one element of out: their elements overlap; block b owns "
               "elements b * BLOCK to b * BLOCK + BLOCK - 1: start = blockIdx.x * BLOCK")
    if failure.kind == "array bounds":
        yield from _global_mirror(failure)
        yield from _mirror_adds_j(failure)
    if failure.kind == "array bounds" and tuple(err.thread or ())[:1] == (0,):
        if (err.element or 0) < 0:
            yield (f"thread 0 read s[{err.element}], before the start of s: the mirror counts "
                   "back from the block's last element, len - 1; " + MIRROR_HINT)
        block = tuple(err.block or (0,))[0]
        if block and err.element == (block + 1) * BLOCK - 1:
            yield (f"thread 0 of block {block} read s[{err.element}], start + len - 1: the "
                   "mirror's index adds the block's start, but s holds the block's own elements "
                   "from s[0]; " + MIRROR_HINT)
        if (err.element or 0) > BLOCK:
            yield (f"thread 0 read s[{err.element}], far past the end of s ({BLOCK} elements): "
                   "its mirror counts back from more than the block's elements, from the whole "
                   "array's last element n - 1 (s[n - 1 - j]) or from a len not capped at BLOCK "
                   "(len = n - start): block 0 reads the same in both; " + MIRROR_HINT)
        yield "thread 0 read past the end of s: the mirror is one element off; " + MIRROR_HINT
    if failure.kind == "array bounds" and (err.element is None or err.element < 0):
        yield ("a thread with j >= len read s[len - 1 - j], before the start of s: keep the "
               "guard if (j < len) on the store too")


def _lens(failure, start):
    """The block's len, min(BLOCK, n - start), from the launch's n where known (else any)."""
    args = getattr(failure.launch, "args", None)
    return {min(BLOCK, int(args[-1]) - start)} if args else set(range(1, BLOCK + 1))


def _mirror_adds_j(failure):
    """Thread j > 0 read s[len - 1 + j], past the end of s (its fields: the block, the thread,
    the element): the mirror added j where it takes it away, as s[len - (1 - j)] does."""
    err = failure.error
    block, j = tuple(err.block or (0,))[0], tuple(err.thread or (0,))[0]
    element = err.element
    if j and element is not None and element >= BLOCK and element + 1 - j in _lens(
            failure, block * BLOCK):
        yield (f"thread {j} of block {block} read s[{element}], past the end of s ({BLOCK} "
               f"elements): s[len - 1 + j], the mirror added j where it takes it away (as "
               "s[len - (1 - j)] does)", "the mirror is s[len - 1 - j]: "
               "out[start + j] = s[len - 1 - j], with len = min(BLOCK, n - start)")


def _global_mirror(failure):
    """Thread j of block b > 0 read s[len - 1 - (start + j)], before s (its fields: the block,
    the thread, the element): the mirror counted from the element's global number start + j
    (right in block 0, whose start is 0). ``len`` from the launch's n where known."""
    err = failure.error
    block, j = tuple(err.block or (0,))[0], tuple(err.thread or (0,))[0]
    start, element = block * BLOCK, err.element
    if block and element is not None and element < 0 and element + start + j + 1 in _lens(
            failure, start):
        at = f" at {os.path.basename(err.line)}" if getattr(err, "line", None) else ""
        yield (f"thread {j} of block {block} read s[{element}]{at}, before the start of s: the "
               f"mirror's index took the element's global number, start + j = {start + j}, where "
               "s holds only the block's own elements, s[0] to s[len - 1] (block 0, whose start "
               "is 0, mirrored right)", "mirror with the thread's place in its block, j = "
               "threadIdx.x: out[start + j] = s[len - 1 - j]")


def _overwrites_own(failure):
    """A race on s after the barrier, both accesses on one line: thread j wrote its own s[j]
    (its fields: the writer's index is the element), another thread of its block read it; the
    (writer, reader) accesses, or None."""
    err = failure.error
    if failure.kind != "race" or err.array != "s" or not err.same_line:
        return None
    pair = (err.first, err.second) if err.first.writes else (err.second, err.first)
    writer, reader = pair
    if writer.writes and reader.reads and writer.block == reader.block \
            and writer.thread[0] == err.element:
        return pair
    return None


def _launch(n):
    x = np.random.default_rng(n).uniform(-1, 1, n).astype(np.float32)
    return Launch((Input(x, BLOCK, JUNK), Output(n, guard=2 * BLOCK), np.int32(n)),
                  block=(BLOCK, 1, 1), grid=(-(-n // BLOCK), 1), model=x)


def _block_mistakes(n, run):
    """Blocks that did not keep to their own elements: only block 0 wrote (j counted across the
    grid, past len in every other block), or the last block ran as if full, past the end of in
    (into its junk) and of out (len counted more than the block's n - start elements)."""
    x, got, unwritten = run.model, run.out.got, run.out.unwritten
    if n > BLOCK and unwritten[BLOCK:].all() and _blocks_stored_over_block_0(run):
        yield (f"every block stored its elements into out[0 .. {BLOCK - 1}], the other "
               f"blocks' over block 0's, and out[{BLOCK}] onwards was never written: the "
               "store's index is j, without the block's start",
               "out[start + j] = s[len - 1 - j]")
    if n > BLOCK and unwritten[BLOCK:].all() and not unwritten[:BLOCK].any():
        yield from _block_0_alone(n, run)
    as_full = reference(x, lambda rest: BLOCK)
    if run.out.past.size and np.array_equal(got, np.where(np.isnan(as_full), JUNK, as_full)):
        yield (f"the last block, which has only {n % BLOCK or BLOCK} elements, ran as if it had "
               f"{BLOCK}, past the end of out (as far as out[{int(run.out.past.max())}]) and of in: "
               f"its len counts more than its n - start elements",
               "len = min(BLOCK, n - start), with start the block's first element")


def _block_0_alone(n, run):
    """Only block 0 wrote: j counted across the grid (j >= len past block 0), or len came out 0
    or less past block 0 (len = min(BLOCK, n) - start). At BLOCK threads a block the two write
    the same; a launch of PROBE[1] threads a block over PROBE[0] elements tells them apart (on
    the same backend): j = blockIdx.x * blockDim.x + threadIdx.x runs 128 to 255 in block 1, below
    its len, and it stores there; a len of 0 or less stores nothing past block 0."""
    launched = EXERCISE.run(run.kernel, dataclasses.replace(_launch(PROBE[0]),
                                                           block=(PROBE[1], 1, 1)))
    try:
        next(launched)
        probe = None
    except StopIteration as stop:
        probe = stop.value
    only = f"only block 0 wrote its elements (out[{BLOCK}] onwards never written)"
    written = None if probe is None else np.flatnonzero(~probe.out.unwritten)
    if written is not None and written.size and written.max() >= BLOCK:
        yield (f"{only}: in block b j ran from b * {BLOCK}, past len, so no thread of it loaded "
               "or stored", "j is the thread's index in its block, 0 to BLOCK - 1: j = threadIdx.x")
    elif written is not None:
        yield (f"{only}: len came out 0 or less in every block past 0, as len = min(BLOCK, n) - "
               f"start gives (block 1's: min({BLOCK}, {n}) - {BLOCK} = {min(BLOCK, n) - BLOCK}), "
               f"so none of their threads had j < len (with blocks of {PROBE[1]} threads, over "
               f"n = {PROBE[0]}, block 1 stored nothing either, where a j counted across the "
               f"grid stores out[{BLOCK + PROBE[1]} .. {2 * BLOCK - 1}])",
               "a block's len is its own elements, n - start, capped at BLOCK: "
               "len = min(BLOCK, n - start)")
    else:
        yield (f"{only}: no thread of a block past 0 had j < len, so none loaded or stored",
               "j = threadIdx.x, the thread's index in its block, and len = min(BLOCK, n - "
               "start), the block's own elements")


def _blocks_stored_over_block_0(run):
    """Whether a block past 0 stored into out's first BLOCK elements (the store's index without
    the block's start), as a trace of the launch on the simulator shows: the blocks race there,
    so out itself may hold block 0's mirror, whichever block's store landed last."""
    kept = accesses_of(run.kernel, dataclasses.replace(run.launch, args=(
        Input(run.model), *run.launch.args[1:])), f"stores, n = {run.model.size}",
        8 * run.model.size)
    if kept is None:
        return False
    stores = kept[kept["write"] & ~kept["shared"]]
    return bool(((stores["block"] > 0) & (stores["index"] < BLOCK)).any())


def _s_not_shared(n, run, want):
    """s declared without __shared__: each thread's own local array, read at an entry that no
    thread wrote; the trace (on the simulator) shows the loads of in and stores into out, and
    no access of shared memory, and out holds no element of in where it is wrong."""
    got, bad = run.out.got, np.flatnonzero(run.out.got != want)
    seen = accesses_of(run.kernel, _launch(n), f"accesses {n}", 4 * n)
    if seen is None or seen["shared"].any() or not (seen["array"] == "in").any() or \
            np.isin(got[bad], run.model).any():
        return
    yield (f"s is not in shared memory: the trace shows the threads loading in and storing out "
           "but never touching shared memory, so each thread had its own s (a local array: "
           "float s[BLOCK] without __shared__) and read s[len - 1 - j], an entry of its own s "
           f"that it never wrote ({bad.size} of {n} elements wrong, the first out[{bad[0]}] = "
           f"{got[bad[0]]:g}, expected {want[bad[0]]:g})", "declare s in the block's shared "
           "memory, where thread j sees what thread len - 1 - j stored: __shared__ float "
           "s[BLOCK];")


def _fraction_dropped(n, run, want):
    """out is its mirror cut to a whole number (toward zero), here and in a launch of in * 1000
    on the same backend (in's values lie in (-1, 1), where a kernel that stores 0 looks the same):
    the values went through an int on their way, s declared int."""
    if not np.array_equal(run.out.got, np.trunc(want)):
        return
    big = (run.model * 1000).astype(np.float32)
    launched = EXERCISE.run(run.kernel, dataclasses.replace(
        run.launch, args=(Input(big, BLOCK, JUNK), *run.launch.args[1:]), model=big))
    try:
        next(launched)
        return
    except StopIteration as stop:
        probe = stop.value
    cut = np.trunc(reference(big))
    if probe is None or not np.array_equal(probe.out.got, cut) or not np.count_nonzero(cut):
        return
    first = int(np.flatnonzero(cut != reference(big))[0])
    yield (f"every element of out is its mirror cut to a whole number (toward zero): the "
           f"fraction was lost on the way from in through s (in * 1000: out[{first}] = "
           f"{probe.out.got[first]:g}, expected {reference(big)[first]:g}); a shared array "
           "declared int (__shared__ int s[BLOCK]) holds only whole numbers, as an int variable "
           "or a cast to int between would", "s carries in's floats: declare it __shared__ float "
           "s[BLOCK], and keep each value a float from in to out")


def _mistakes(n, run):
    x, got = run.model, run.out.got
    yield from one_further("out", "element", run.out.past, run.out.unwritten,
                           "each thread stores only out[start + j]")
    yield from _block_mistakes(n, run)
    yield from len_one_too_many(n, run, JUNK)
    if run.out.past.size:
        yield (f"the kernel wrote past the end of out (as far as out[{int(run.out.past.max())}]; "
               f"it has {n} elements)", "only threads with j < len store: keep the guard "
               "if (j < len) on the store too")
    if n == CASES[0]:
        seen = observe(run.kernel, dataclasses.replace(
            run.launch, args=(Input(x), *run.launch.args[1:])))
        if seen.error:
            yield from _load_guarded_by_n(run.kernel, n)
            yield race_mistake(seen.error, "each thread stores only out[start + j]",
                               block=(BLOCK, 1, 1), refine=syncwarp_first(run.kernel, _refine))
    want = reference(x)
    if np.array_equal(got, want):
        return
    yield from load_guard_global(run, want)
    if n % BLOCK == 0 and run.out.unwritten[-BLOCK:].all() and not run.out.unwritten[:-BLOCK].any():
        yield (f"the last block wrote nothing: n = {n} is a multiple of BLOCK, so a last block of "
               f"n % BLOCK = 0 elements did nothing", "a block's length is min(BLOCK, n - start), "
               "which is BLOCK for every full block, the last one too")
    models = [(x, "the output is the input, unchanged: nothing was reversed", MIRROR_HINT),
              (x[::-1], "the whole array was reversed, not each block",
               "each block mirrors its own elements, start to start + len - 1: " + MIRROR_HINT),
              (reference(x, lambda rest: BLOCK), "the last block, which has only "
               f"{n % BLOCK or BLOCK} elements, was mirrored as if it had {BLOCK}",
               "mirror len = min(BLOCK, n - start) elements, not BLOCK: " + MIRROR_HINT),
              (reference(x, lambda rest: min(BLOCK, rest) + 1), "each element came from the "
               "one after its mirror: the mirror is one element off", MIRROR_HINT),
              (np.concatenate([x[:min(BLOCK, n - start)][::-1] for start in range(0, n, BLOCK)]),
               "every block mirrored block 0's elements: the load read in[j], not the block's own",
               "each block loads its own elements: s[j] = in[start + j]")]
    if np.array_equal(got, x):
        yield from mirrored_twice(run)
    yield from len_one_short(n, run, want)
    yield from len_of_the_last_block(n, run)
    yield from minus_j_outside(n, run, want)
    for model, problem, hint in models:
        right = ~np.isnan(model)
        if np.array_equal(got[right], model[right]) and right.sum() > n // 2:
            yield problem, hint
    yield from _s_not_shared(n, run, want)
    yield from _fraction_dropped(n, run, want)
    yield from near.misses("out", got, want, close=np.equal, block=(BLOCK, "block"),
                           index_hint=MIRROR_HINT)
    bad = np.flatnonzero(got != want)
    yield Wrong(f"{bad.size} of {n} elements are wrong (the first is out[{bad[0]}] = "
                f"{got[bad[0]]:g}, expected {want[bad[0]]:g})", MIRROR_HINT, "out", bad[0])


def _detect(kernels, n):
    """The case's launch and mistakes, a crash's after ``_len_the_larger``'s (which the crash's
    own hint, from block 0 alone, cannot tell from two other mistakes)."""
    return named_first(EXERCISE, kernels, _launch(n), lambda: _len_the_larger(kernels, n),
                       lambda run: _mistakes(n, run))


def _reads_past_n(kernels, n):
    """The threads (block, j) that read in at n or past it in a trace of the case's launch (in
    has junk after its end there); None where the trace failed or kept nothing."""
    kept = accesses_of(kernels, _launch(n), f"in past n = {n}", 4 * n + 4 * BLOCK)
    if kept is None or not kept.size:
        return None
    past = kept[(kept["array"] == "in") & ~kept["write"] & (kept["index"] >= n)]
    return {(int(b), int(t)) for b, t in zip(past["block"], past["thread"])}


def _load_guarded_by_n(kernels, n, small=77):
    """The load guarded by j < n where j < len belongs: over n (a partial last block) every
    thread j >= len of the last block read in past its end, and over ``small`` < BLOCK elements
    (one block, len = n) none did (no guard at all reads past there too)."""
    last, length = n // BLOCK, n % BLOCK
    if n < BLOCK or not length or _reads_past_n(kernels, small) != set() or \
            _reads_past_n(kernels, n) != {(last, j) for j in range(length, BLOCK)}:
        return
    start = last * BLOCK
    yield (f"the load's guard is j < n where j < len belongs: in the last block, block {last}, "
           f"which has only len = n - start = {n} - {start} = {length} elements, threads j = "
           f"{length} to {BLOCK - 1} read in[{n}] to in[{start + BLOCK - 1}], past the end of in "
           f"(n = {n}): j < n is true for every thread j < {BLOCK} <= n (over n = {small}, one "
           f"block, where len = n, no thread read past)",
           "guard the load by the block's own count, as the store is: if (j < len) s[j] = "
           "in[start + j];")


def _len_the_larger(kernels, n, small=100):
    """len = max(BLOCK, n - start), where min belongs: on the simulator thread 0 of block 0 read
    s[n - 1] (an array of BLOCK elements indexed past its size: len = n, past BLOCK; as len = n - start or s[n - 1 - j] read there too), and a
    launch over ``small`` < BLOCK elements mirrored BLOCK of them, in's junk after its end into
    out[0] on and out[small] to out[BLOCK - 1] past out's end (len = BLOCK there, where those two
    mirror right)."""
    err = observe(kernels, _launch(n), key="len, max", racecheck=False).error
    if n <= BLOCK or err is None or getattr(err, "kind", None) != "array bounds" or \
            getattr(err, "length", None) != BLOCK or err.element != n - 1 or \
            tuple(err.thread or ())[:1] != (0,) or tuple(err.block or ())[:1] != (0,):
        return
    seen = observe(kernels, _launch(small), key="len, max, one block", racecheck=False)
    padded = np.append(seen.launch.model, np.full(BLOCK, JUNK, np.float32))
    if seen.error is None and set(seen.outs[0].past.tolist()) == set(range(small, BLOCK)) and \
            np.array_equal(seen.outs[0].got, padded[BLOCK - 1 - np.arange(small)]):
        yield (f"len came out the larger of BLOCK and n - start, max(BLOCK, n - start), where "
               f"the smaller, min, belongs: thread 0 of block 0 read s[{n - 1}], far past the "
               f"end of s ({BLOCK} elements), as len = n - start = {n} there; and over n = "
               f"{small}, one block of {small} elements, len came out BLOCK = {BLOCK}: it "
               f"mirrored {BLOCK} elements, out[0] getting in[{BLOCK - 1}], past in's end, and "
               f"out[{small}] to out[{BLOCK - 1}] written past the end of out",
               "len counts the block's elements, at most BLOCK: the smaller of the two, len = "
               "min(BLOCK, n - start)")


EXERCISE = KernelExercise(
    stub="exercises/reverse_blocks.cu", kernel="reverse_blocks",
    signature="const float *in, float *out, int n", cases=CASES, draw=_draw, where=_where,
    launch=_launch, mistakes=_mistakes, detect=_detect, refine=_refine,
    simulated="runs the race check", 
    after=after_the_cases(CASES[0], BLOCK, "len", "block", "load (and the store)"),
    crash_hint="only threads with j < len load and store, and s has BLOCK elements",
    success=f"every block of {BLOCK} elements (fewer in the last) reversed for {len(CASES)} "
            "sizes, no race, nothing written past the end")

check_reverse_blocks = EXERCISE.check_file          # (path="exercises/reverse_blocks.cu")
check_reverse_blocks_kernel = EXERCISE.check_kernel  # (kernel, simulated=None); on a GPU,
# simulated is the same source compiled by the simulator
