"""Checker for the privatised histogram of notebook 07, ``cuda_src/exercises/histogram_rgb.cu``:
``histogram_rgb(rgb, bins, n)`` counts the n pixels of an interleaved RGB image into 768 bins,
bins[c * 256 + v], each block in 768 bins of its own in shared memory first. The image's values
stop at 254 and the bytes past its end are 255, so a count of 255 is a read past the end. A launch
on the simulator, race-checked and traced, finds a race that gave the right counts by luck, and
counts the global atomics: privatised, a block makes at most one a bin."""

from __future__ import annotations

import os

import numpy as np

from helpers.exercises.common import Output
from helpers.exercises.barrier_if import (LOOP_BARRIER_HINT, after_a_strided_loop, barrier_in_a_loop,
                                          loop_barrier_apart)
from helpers.exercises.histogram_rgb_counts import (BARRIER_HINT, BINS,
                                                   added_into_the_thread_s_bin, cleared_as_if_256,
                                                   one_a_block,
                                                   channel_loop_past_3,
                                                   values_added, adding_steps_by_the_grid,
                                                   adding_steps_by_the_grid_s_threads, reference,
                                                   uncleared_bins, wrapped, wrong_counts)
from helpers.exercises.histogram_rgb_counts import block_counts as _block_counts
from helpers.exercises.histogram_rgb_clearing import cleared_at_the_thread, cleared_by_block_0
from helpers.exercises.histogram_rgb_clearing import uncleared as _uncleared
from helpers.exercises.histogram_rgb_reads import read_past_the_image
from helpers.exercises.hidden import pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.named_first import named_first
from helpers.exercises.microscope import observe, observed_mistakes

GUARD, PAD = 64, 255

# (pixels, threads a block, blocks, image). 3n bytes: never a multiple of the block.
CASES = [dict(n=33_335, block=256, grid=8, image="random"),
         dict(n=5_000, block=128, grid=3, image="one colour"),
         dict(n=1_667, block=1024, grid=1, image="random"),
         dict(n=25, block=64, grid=4, image="random"),
         dict(observe=True, n=4_000, block=128, grid=4, image="random")]


def _draw(rng):
    """The grader's cases: random images of a few pixels and of many, as the shipped ones."""
    drawn = []
    for low, high in ((2, 400), (400, 40_000)):
        block, n = pick(rng, [case["block"] for case in CASES]), int(rng.integers(low, high))
        drawn.append(dict(n=n + (3 * n % block == 0), block=block, grid=int(rng.integers(1, 9)),
                          image="random"))
    return drawn


ATOMIC_HINT = ("bins[k]++ (or local[k]++) is a read, an add and a write, and threads that hit "
               "the same bin lose counts: count with atomicAdd, into the block's shared bins: "
               "atomicAdd(&local[k], 1u)")


def _refine(failure):
    """The exercise's hints for a failure: the private bins' size; for a race, an atomic for a
    read-modify-write, the barriers for any other."""
    yield from _bins_of_their_own(failure)
    yield from read_past_the_image(failure, EXERCISE)
    yield from channel_loop_past_3(failure)
    yield from _value_as_the_row(failure)
    if failure.kind == "array bounds" and (getattr(failure.error, "element", None) or 0) < 0:
        yield ("a bin's index was negative: a byte over 127 read as a char, which is signed; "
               "the bytes are unsigned char, 0 to 255: bin c * 256 + (unsigned char)v")
    if failure.kind == "array bounds":
        yield ("the block's bins are indexed past the size they were declared with, and local "
               "needs 768 bins, 3 channels of 256 values: declare __shared__ unsigned int "
               "local[768], then clear and add all 768")
    if (failure.kind == "race" and failure.error.same_line and failure.error.space == "shared"
            and failure.error.hazard == "write-after-write"):   # a store's line: the clearing
        yield ("two threads store into the same shared bin on one line: in the clearing loop "
               "each thread clears its own bins, b = threadIdx.x, then b += blockDim.x")
    if failure.update and _blocks_add_at_once(failure):
        yield ("the blocks add their bin b into bins[b] at once: bins[b] += local[b] is a read, "
               "an add and a write, and blocks lose each other's counts; add each block's bins "
               "with an atomic too, atomicAdd(&bins[b], local[b])")
    if _blocks_store(failure):
        err = failure.error
        yield (f"blocks store into the global {err.array}[{err.element}] ({err.first.line}), and "
               "no __syncthreads() orders blocks (it waits for the block's own threads), so one "
               "block's store can wipe counts another block had added; bins are 0 before the "
               "launch: clear only the block's own local bins, and only add to bins, "
               "atomicAdd(&bins[b], local[b])")
    if failure.kind == "race":
        yield ATOMIC_HINT if failure.update else BARRIER_HINT


def _with_the_source(kernels):
    """``_refine``, after a race across a barrier inside a loop (``barrier_in_a_loop``)."""
    def refine(failure):
        yield from barrier_in_a_loop(kernels, failure)
        yield from _refine(failure)
    return refine


def _bins_of_their_own(failure):
    """A write past bins' 768 counters, at element e by block k, where e - 768 * k is one of the
    thread's bins in the adding loop (b = threadIdx.x, then b += blockDim.x): block k added its
    bin b into bins[k * 768 + b], as if bins held a histogram a block. The fault's array is bins
    where the simulator named none: the kernel may write no other."""
    err, width = failure.error, (failure.block or (0,))[0]
    if failure.kind != "out of bounds" or not getattr(err, "is_write", False) or not width \
            or err.block is None or err.thread is None or (err.array or "bins") != "bins":
        return
    element = err.element if err.element is not None else (err.offset or 0) // 4
    k = err.block[0]
    if element >= BINS and 0 <= element - k * BINS < BINS and \
            (element - k * BINS) % width == err.thread[0]:
        yield _slice_a_block(f"block {k} added its bin {element - k * BINS} into "
                             f"bins[{element}], {k} * 768 + {element - k * BINS}, past bins' 768 "
                             "counters (the simulator stopped it there)")


def _value_as_the_row(failure):
    """The block's bins declared 2-D, [3][256], indexed past the 3 rows at the value of the first
    byte over 2 of the thread's grid-stride loop (j from blockIdx.x * blockDim.x + threadIdx.x
    on): local[rgb[j]][j % 3], the byte's value as the row, the channel as the column."""
    err, launch = failure.error, failure.launch
    if failure.kind != "array bounds" or err.length != 3 or launch is None or err.thread is None \
            or err.block is None or not str(err.declared or "").endswith("[3][256]"):
        return
    rgb, width = launch.args[0], launch.block[0]
    first = err.block[0] * width + err.thread[0]
    j = next((j for j in range(first, 3 * int(launch.args[2]), width * launch.grid[0])
              if rgb[j] >= 3), None)
    if j is None or int(rgb[j]) != err.element:
        return
    name = err.array or "local"    # the notebook's name, where the simulator knows none
    yield (f"thread {err.thread[0]} of block {err.block[0]} counted byte j = {j}, channel {j % 3}, "
           f"at {os.path.basename(err.line or '?')} with its value, rgb[{j}] = {err.element}, as "
           f"the row of {name}, declared {err.declared}: 3 rows of 256 bins, one row a channel; "
           "the indices are swapped, the byte's value as the row and the channel as the column",
           f"the channel is the row, the byte's value the column: atomicAdd(&{name}[j % CHANNELS]"
           "[rgb[j]], 1u)")


def _slice_a_block(what):
    """The mistake of bins indexed as one histogram a block, ``what`` showing it."""
    return (f"{what}: the bins were indexed as if each block had 768 of its own in bins, "
            "bins[blockIdx.x * 768 + b], but bins is one histogram of the whole image, 768 "
            "counters in all", "every block adds into the same 768 bins: "
            "atomicAdd(&bins[b], local[b])")


def _blocks_store(failure) -> bool:
    """Two blocks' plain stores into one global bin (a write-after-write, neither atomic): the
    kernel writes bins, where it may only add to them."""
    err = failure.error
    return bool(failure.between == "blocks" and err.space == "global"
                and err.hazard == "write-after-write"
                and not (err.first.atomic or err.second.atomic))


def _blocks_add_at_once(failure) -> bool:
    """An update of a global bin by the same thread of two blocks, the bin one of that thread's
    in the adding loop (b = threadIdx.x, then b += blockDim.x): the adding, not the counting."""
    err, width = failure.error, (failure.block or (0,))[0]
    return bool(err.space == "global" and failure.between == "blocks" and width
                and err.first.thread == err.second.thread and err.element is not None
                and err.element % width == err.first.thread[0])


def _launch(case):
    """The case's 3n bytes, then PAD past the end; bins and the guard after them start at 0."""
    n = case["n"]
    rgb = np.concatenate([np.tile(np.array([200, 100, 50], np.uint8), n)
                          if case["image"] == "one colour" else
                          np.random.default_rng(n).integers(0, PAD, 3 * n, dtype=np.uint8),
                          np.full(GUARD, PAD, np.uint8)])
    return Launch((rgb, Output(BINS, np.uint32, GUARD, poisons=(0,)), np.int32(n)),
                  block=(case["block"], 1, 1), grid=(case["grid"], 1), model=rgb)


def _detect(kernels, case):
    """The case's launch and mistakes; a crash's after ``_barrier_in_a_loop``'s, which reads the
    kernel's words (the crash's own hint, from the error alone, cannot)."""
    launch = _launch(case)
    return named_first(EXERCISE, kernels, launch, lambda: _barrier_in_a_loop(kernels, launch, case),
                       lambda run: _mistakes(case, run))


def _barrier_in_a_loop(kernels, launch, case):
    """A crash at barriers that the block's threads reach apart, one inside a loop they go round
    a different number of times (``loop_barrier_apart``, on the simulator); split at thread 768
    of a larger block, a loop over the 768 bins, which threads 768 on never enter."""
    crash = observe(kernels, launch, key=f"crash {case}", racecheck=False).crash
    if (apart := loop_barrier_apart(kernels, crash)) is None:
        return
    block = case["block"]
    why = (f" (threads {BINS} to {block - 1} have no bin, b = threadIdx.x being past bin 767, "
           "and never go round a loop over the 768 bins)" if crash.thread[0] == BINS < block else "")
    yield f"{apart}{why}: a barrier that only some threads of the block reach", LOOP_BARRIER_HINT


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first: counts no image of its size could
    give (bins that held whatever the block's shared memory held before: on a GPU garbage, on
    the simulator the pattern it fills shared memory with), bytes past the end counted (the
    255s, and nothing else wrong), nothing counted; then what made the bins wrong."""
    rgb, n = run.model, case["n"]
    got, want = run.out.got.astype(np.int64), reference(rgb[:3 * n])
    yield from _slices_a_block(got, run.out.past, rgb, case)
    if run.out.past.size:
        yield ("the kernel wrote past bins[767]", "bins has 3 * 256 counters: bin c * 256 + v, "
               "for c from 0 to 2 and v from 0 to 255")
    yield from values_added(got, rgb, case)
    yield from adding_steps_by_the_grid(got, rgb, case)
    if (got >= want).all() and (got > want).any():
        yield from cleared_by_block_0(run, case)
        yield from cleared_as_if_256(_uncleared(run, case), case["block"])
        yield from cleared_at_the_thread(run, case)
    yield from uncleared_bins(got, 3 * n)
    if got.reshape(3, 256)[:, PAD].any() and not (got - want).reshape(3, 256)[:, :PAD].any():
        yield ("bytes past the end of the image were counted (the checker put 255 there)",
               "count byte j only while j < 3 * n")
    if not got.any():
        yield ("every bin is still 0: nothing reached bins",
               "at the end, after a __syncthreads(), add each shared bin to the global one: "
               "atomicAdd(&bins[b], local[b])")
    if np.array_equal(got, want):
        return
    yield from _returned_early(got, rgb, case, run)
    yield from observed_mistakes(_observe(run.kernel), _with_the_source(run.kernel),
                                 wrong="bins are wrong")  # likeliest
    yield from wrapped(got, rgb, case)
    yield from one_a_block(got, rgb, case)
    yield from _blocks_add_from_their_start(got, rgb, case)
    yield from added_into_the_thread_s_bin(got, want, case, lambda: _observed_bins(run.kernel))
    yield from _red_bins_only(got, want, case, run.kernel)
    yield from adding_steps_by_the_grid_s_threads(got, rgb, case, _probe(run.kernel))
    yield from wrong_counts(got, want, rgb, case)
    first = int(np.argmax(got != want))
    yield (f"{int((got != want).sum())} of the 768 bins are wrong, the first bins[{first}] "
           f"(channel {first // 256}, value {first % 256}): {got[first]}, expected {want[first]}",
           "byte j is channel j % 3 with value rgb[j]: bin (j % 3) * 256 + rgb[j]")


def _probe(kernels):
    """A launch of another case, as (bins, image); None where it failed or a mistake showed."""
    def launched(case):
        try:
            next(EXERCISE.run(kernels, _launch(case)))
        except StopIteration as stop:
            return stop.value and (stop.value.out.got.astype(np.int64), stop.value.model)
    return launched


def _returned_early(got, rgb, case, run):
    """The threads of bytes 3 * n and on returned before the block's bins were added (its model:
    block i adds only the bins b with b % blockDim.x below its threads that kept going); before
    they were cleared, when the simulator's init check finds a count into a shared bin that no
    thread of its block had set to 0."""
    n, block, grid = case["n"], case["block"], case["grid"]
    live = np.clip(3 * n - np.arange(grid) * block, 0, block)   # block i's threads below 3 * n
    kept = np.arange(BINS) % block < live[:, None]
    if (live == block).all() or not np.array_equal(got, (_block_counts(rgb, case) * kept).sum(0)):
        return
    lost, who = int(reference(rgb[:3 * n]).sum() - got.sum()), (
        "the threads whose byte, blockIdx.x * blockDim.x + threadIdx.x, is 3 * n or more")
    from helpers.sim.errors import xyz as _xyz

    err = _uncleared(run, case)
    if err is not None:
        yield (f"{who} returned before the loop that clears the block's bins, so some of them "
               f"were never set to 0, and the {lost:,} bytes counted into them never reached "
               f"bins (the simulator's init check: thread {_xyz(err.thread)} of block "
               f"{_xyz(err.block)} counted into {err.array}[{err.element}] at "
               f"{os.path.basename(err.line or '?')}, which no thread had cleared: its block had "
               f"cleared {err.written_words})",
               "every thread clears its bins and reaches the __syncthreads() before any thread "
               "returns: keep the guard on the counting only (the grid-stride loop's j < 3 * n "
               "is one), no return at the top")
    else:
        yield (f"{who} returned before the loop that adds the block's bins to bins, so the bins "
               f"they add (b = threadIdx.x, then b += blockDim.x) were never added: {lost:,} "
               "bytes counted were lost",
               "every thread adds its bins, those past 3 * n too: keep the guard on the counting "
               "only (the grid-stride loop's j < 3 * n is one), no return before the adding loop")


def _slices_a_block(got, past, rgb, case):
    """bins holds block 0's counts alone, and the elements just past it (the checker's guard,
    768 on) block 1's: block k added its bin b into bins[k * 768 + b] (on a GPU the writes of
    blocks 2 and on land past the guard, unseen)."""
    counts = _block_counts(rgb, case)
    if case["grid"] > 1 and np.array_equal(got, counts[0]) and past.size and \
            np.array_equal(past, BINS + np.flatnonzero(counts[1][:GUARD])):
        yield _slice_a_block("bins holds block 0's counts alone, and block 1's were added "
                             "past its end, from bins[768] on")


def _blocks_add_from_their_start(got, rgb, case):
    """Block i added its bins from i * blockDim.x on only: the adding loop started at the
    thread's place in the grid, as the counting loop does, where a block's bins are its own."""
    counts, block = _block_counts(rgb, case), case["block"]
    start = np.arange(case["grid"])[:, None] * block
    if case["grid"] > 1 and np.array_equal(got, (counts * (np.arange(BINS) >= start)).sum(0)):
        yield ("block i added only its bins from i * blockDim.x on to the global ones, so each "
               "block but block 0 left its first bins out: the loop that adds the block's bins "
               "starts at b = blockIdx.x * blockDim.x + threadIdx.x, as the loop over the bytes "
               "does, but every block has all 768 bins of its own",
               "each block adds all of its bins, b from 0 to 767: for (int b = threadIdx.x; "
               "b < 768; b += blockDim.x)")


def _red_bins_only(got, want, case, kernels):
    """Bins 0 to 255 alone added, and right: the adding loop bounded by one channel's 256 levels,
    not 768; with a block of 256 threads, as each thread adding one bin does, which the launch on
    the simulator, of 128 threads a block, tells apart (there 0 to 127 alone)."""
    def red_only(got, want, *_):
        return np.array_equal(got[:256], want[:256]) and not got[256:].any() and want[256:].any()

    seen = (got, want) if case["block"] != 256 else _observed_bins(kernels)
    if not red_only(got, want) or seen is None or not red_only(*seen):
        return
    yield ("only bins 0 to 255, the red ones, were added to bins: the adding loop stopped at "
           "256, one channel's levels, but local has 768 bins, 3 channels of 256",
           "add all 768: for (int b = threadIdx.x; b < 768; b += blockDim.x)")


def _observe(kernels):
    return observe(kernels, _launch(CASES[-1]))


def _observed_bins(kernels):
    """The simulator's launch of CASES[-1]: (its bins, NumPy's, its block); None if it failed."""
    seen = _observe(kernels)
    return None if seen.error is not None else (seen.outs[0].got.astype(np.int64), reference(
        seen.launch.model[:3 * CASES[-1]["n"]]), CASES[-1]["block"])


def _observed_mistakes(kernels, case):
    """The right counts, by luck or not: the race check, then the global atomics."""
    seen = _observe(kernels)
    yield from observed_mistakes(seen, _with_the_source(kernels))
    atomics = seen.stats.atomics.lanes if seen.stats is not None else 0
    if atomics > BINS * seen.blocks:
        yield (f"the kernel made {atomics:,} atomic additions to the global bins for "
               f"{3 * case['n']:,} bytes in {seen.blocks} blocks (the simulator's trace counted "
               f"them): it is not privatised",
               "count into 768 bins of the block's own in shared memory (__shared__ unsigned "
               "int local[768]), then add each of them to bins once: at most 768 global "
               "atomics a block")


EXERCISE = KernelExercise(
    stub="exercises/histogram_rgb.cu", kernel="histogram_rgb",
    signature="const unsigned char *rgb, unsigned int *bins, int n",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes, detect=_detect,
    where=lambda case: (f"{case['image']} image of {case['n']:,} pixels ({3 * case['n']:,} "
                        f"bytes), block = ({case['block']}, 1, 1), grid = ({case['grid']}, 1)"),
    observed=_observed_mistakes, simulated="runs the race check",
    crash_hint="local has 768 bins and rgb 3 * n bytes: every loop over the bins runs while "
               "b < 768 (a block may have more threads than bins, or fewer), and every read of "
               "rgb[j] needs j < 3 * n", refine=_refine,
    after=after_a_strided_loop(BINS, CASES[2]["block"], f"a loop over the {BINS} bins", "take the "
                               "__syncthreads() out of the loop: once between the loops, after the "
                               "one that writes local and before the one that reads it"),
    success=f"the 768 bins match NumPy's ({len(CASES) - 1} images, one of one colour, blocks of "
            "64 to 1024 threads, grids larger and smaller than the image), no race, and the "
            "counting is privatised (at most one global atomic a bin and block)")

check_histogram_rgb = EXERCISE.check_file          # (path="exercises/histogram_rgb.cu")
check_histogram_rgb_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): simulated on a GPU
