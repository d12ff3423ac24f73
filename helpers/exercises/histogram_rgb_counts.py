"""The NumPy models of the privatised histogram's wrong counts (``helpers.exercises.histogram_rgb``):
the 768 bins of an interleaved RGB image, and the bins the usual mistakes of the counting loop
give (bytes in the wrong bin, too few or too many counted, a loop that steps wrongly, counts
that wrapped, one block's count a bin)."""

from __future__ import annotations

import numpy as np

BINS = 768

BARRIER_HINT = ("every bin must be 0 before any thread counts into it, and every byte counted "
                "before the bins are added to the global ones: a __syncthreads() after each step")
CLEAR_HINT = ("shared memory is not cleared for you: set all 768 of the block's bins to 0, for "
              "(int b = threadIdx.x; b < 768; b += blockDim.x), before a __syncthreads()")


def reference(rgb: np.ndarray) -> np.ndarray:
    """NumPy's 768 bins, bins[c * 256 + v], of the interleaved bytes ``rgb`` (from a red byte
    on: a wrong kernel's counts are those of its first bytes)."""
    return np.bincount(np.arange(rgb.size) % 3 * 256 + rgb, minlength=BINS)[:BINS]


def wrong_counts(got, want, rgb, case):
    """The mistakes whose wrong bins are ``got``: known parts, extra or lost counts."""
    total, size = want.sum(), 3 * case["n"]
    times = got.sum() // total if np.array_equal(got, got.sum() // total * want) else 0
    if times == case["grid"] > 1:   # each block counted every byte, not its share
        yield (f"every block counted all {size:,} bytes ({times} blocks, so every bin counts "
               f"{times} times its bytes): the counting loop starts at j = threadIdx.x and steps "
               "by blockDim.x, as the clearing loop does, so every block walks the same bytes",
               "make it a grid-stride loop, which shares the bytes out among the blocks: for "
               "(int j = blockIdx.x * blockDim.x + threadIdx.x; j < 3 * n; j += blockDim.x * "
               "gridDim.x)")
    if times:
        yield (f"every bin was added {times} times",
               "each bin must be added to bins once a block: let thread t add bins t, "
               "t + blockDim.x, t + 2 * blockDim.x, ... (not every thread every bin)")
    yield from _bins_of_each_thread(got, rgb, case)
    for bins, problem, hint in _misplaced(rgb, case):
        if np.array_equal(got, np.bincount(bins, minlength=BINS)[:BINS]):
            yield problem, hint
    if got[256:].sum() == 0 and np.array_equal(got[:256], want.reshape(3, 256).sum(0)):
        yield ("every byte was counted in the red bins (0 to 255)",
               "byte j is channel j % 3: count it in bin (j % 3) * 256 + rgb[j]")
    n, threads = case["n"], case["block"] * case["grid"]
    if np.array_equal(got, reference(rgb[:n])):
        yield (f"only the first {n:,} of the {size:,} bytes were counted: the loop stops at n, "
               "the number of pixels, but each pixel has 3 bytes",
               "count every byte: run the loop while j < 3 * n")
    if threads < size and np.array_equal(got, reference(rgb[:threads])):
        yield (f"only the first {threads:,} bytes (one a thread) were counted",
               "the grid has fewer threads than the image has bytes: a grid-stride loop, "
               "for (int j = ...; j < 3 * n; j += blockDim.x * gridDim.x)")
    lost = int(total - got.sum())
    if 0 < lost < 3 * case["block"] and np.array_equal(got, reference(rgb[:size - lost])):
        yield (f"the last {lost} of the {size:,} bytes were not counted: the loop stops early",
               "count every byte, j from 0 while j < 3 * n")
    yield from _first_bytes(got, rgb, size)
    yield from _strides(got, rgb, case)
    yield from _no_block_offset(got, rgb, case)
    block = case["block"]
    if block < BINS and np.array_equal(got[:block], want[:block]) and not got[block:].any():
        yield (f"only bins below blockDim.x ({block}) were added to bins: each thread added "
               "one bin, b = threadIdx.x", "a block may have fewer threads than bins: loop over "
               "them, for (int b = threadIdx.x; b < 768; b += blockDim.x)")
    if (got >= want).all():
        yield (f"{int((got > want).sum())} bins count more than they should: they did not all "
               "start at 0", CLEAR_HINT)
    yield from _small_counts_skipped(got, want, rgb, case)
    if lost > 0:   # the race check (before these models) found no race
        yield (f"{lost:,} of the {total:,} bytes were not counted, and the simulator's race "
               "check finds no race: those bytes were never counted, the counting loop skips "
               "some or stops early", "count every byte once: for (int j = blockIdx.x * "
               "blockDim.x + threadIdx.x; j < 3 * n; j += blockDim.x * gridDim.x)")


def cleared_as_if_256(err, block):
    """Bins too high where the init check's read of an uncleared shared bin (``err``) found its
    block had cleared exactly the bins b with b % 256 < blockDim.x: three stores a thread,
    local[threadIdx.x], + 256 and + 512, all 768 bins only with 256 threads a block."""
    if err is None or not block < 256 or \
            tuple(err.written or ()) != tuple(b for b in range(BINS) if b % 256 < block):
        return
    yield (f"your clear covers local[threadIdx.x], local[threadIdx.x + 256] and local[threadIdx.x "
           f"+ 512], which is all 768 bins only with 256 threads a block: with block = ({block}, "
           f"1, 1), bins {block} to 255 of each channel were never set to 0, and thread "
           f"{err.thread[0]} of block {err.block[0]} counted into local[{err.element}], one of "
           "them (found by the init check)", "step by the block's size, whatever it is: for (int "
           "b = threadIdx.x; b < 768; b += blockDim.x) local[b] = 0;")


def uncleared_bins(got, size):
    """Bins that count more than the image's ``size`` bytes, which no count gives: they did not
    start at 0 (bins 256 to 767 alone: the clearing stopped at 256, one channel's levels)."""
    wild = np.flatnonzero(got > size)
    if np.array_equal(wild, np.arange(256, BINS)):
        yield (f"bins 256 to 767 (green's and blue's) count more than the image's {size:,} "
               "bytes, and bins 0 to 255 do not: the block's bins did not all start at 0, only "
               "red's 256 did", CLEAR_HINT)
    if wild.size:
        b = int(np.argmax(got))
        yield (f"bins[{b}] counts {got[b]:,}, more than the image's {size:,} bytes: the "
               "block's bins did not all start at 0", CLEAR_HINT)


def block_counts(rgb, case):
    """(blocks, 768): the bins block i counted, from the bytes j from blockIdx.x * blockDim.x
    on, gridDim.x * blockDim.x apart (the grid-stride loop)."""
    size, block = 3 * case["n"], case["block"]
    j = np.arange(size)
    owner, k = j // block % case["grid"], j % 3 * 256 + rgb[:size]
    return np.bincount(owner * BINS + k, minlength=case["grid"] * BINS).reshape(-1, BINS)


def _small_counts_skipped(got, want, rgb, case):
    """Each block added only its bins that counted more than k bytes, k the smallest from 1 to 3
    that gives got: the adding loop's test local[b] > k, where local[b] > 0 skips the empty ones
    alone."""
    counts = block_counts(rgb, case)
    k = next((k for k in range(1, 4) if np.array_equal(got, (counts * (counts > k)).sum(0))),
             None)
    if k is None:
        return
    few = (counts > 0) & (counts <= k)
    b = int(np.argmax(few.any(0) & (got != want)))
    lost, blocks = int(want.sum() - got.sum()), "the block" if case["grid"] == 1 else "a block"
    times, held = ("once", "1") if k == 1 else (f"{k} times or fewer", f"{k} or less")
    yield (f"{lost:,} of the {3 * case['n']:,} bytes were not counted: the {int(few.sum()):,} "
           f"bins that {blocks} counted {times} were never added to bins (bins[{b}] (channel "
           f"{b // 256}, value {b % 256}) counts {got[b]}, expected {want[b]}): the adding "
           f"loop's test local[b] > {k} skips a bin that holds {held}",
           "add every bin that holds a count: if (local[b] > 0) atomicAdd(&bins[b], local[b]) "
           "(or no test at all: adding 0 changes nothing)")


def _bins_of_each_thread(got, rgb, case):
    """local declared without __shared__: each thread has 768 bins of its own, counts its bytes
    into them, and adds only the bins b it cleared, b % blockDim.x = threadIdx.x; as the grid's
    threads are a multiple of blockDim.x, byte j's thread has threadIdx.x = j % blockDim.x."""
    block, size = case["block"], 3 * case["n"]
    j = np.arange(size)
    bins = j % 3 * 256 + rgb[:size]
    model = np.bincount(bins[bins % block == j % block], minlength=BINS)[:BINS]
    if block < BINS and np.array_equal(got, model):
        yield (f"{int(got.sum()):,} of the {size:,} bytes were counted, and only the bytes j whose "
               f"bin b has b % blockDim.x = j % blockDim.x ({block}): local was declared without "
               "__shared__, so every thread has 768 bins of its own, counts its bytes there, and "
               "adds to bins only the bins it cleared (b = threadIdx.x, b += blockDim.x)",
               "the block's threads share one set of bins in shared memory: __shared__ unsigned "
               "int local[CHANNELS * LEVELS]")


def _first_bytes(got, rgb, size):
    """The counting loop stopped at a bound of its own, k < 3 * n: the bins are those of the
    first k bytes, k what they add up to (768: the bins' number, the clearing loop's bound)."""
    k = int(got.sum())
    if not 0 < k < size or not np.array_equal(got, reference(rgb[:k])):
        return
    if k == BINS:
        yield (f"only the first {k} of the {size:,} bytes were counted: the counting loop stops "
               "at j = 768, the number of bins, not at the image's 3 * n bytes",
               "the counting loop runs over the image: j < CHANNELS * n; 768 bounds the loops "
               "over the bins only (clearing and adding)")
    yield (f"only the first {k:,} of the {size:,} bytes were counted: the counting loop stops "
           f"at j < {k}", "count every byte: run the loop while j < 3 * n")


def _strides(got, rgb, case):
    """A grid-stride loop stepping by blockDim.x (each block walks from its start to the end,
    so byte j is counted by min(gridDim.x, j / blockDim.x + 1) blocks) or by gridDim.x (threads
    from j % gridDim.x up to j, gridDim.x apart, count it)."""
    block, grid, size = case["block"], case["grid"], 3 * case["n"]
    j = np.arange(size)
    bins = j % 3 * 256 + rgb[:size]
    for weights, who, step in ((np.minimum(grid, j // block + 1), "blocks", "blockDim.x"),
                               ((np.minimum(j, block * grid - 1) - j % grid) // grid + 1,
                                "threads", "gridDim.x")):
        if np.array_equal(got, np.bincount(bins, weights=weights, minlength=BINS)[:BINS]):
            yield (f"bytes were counted by several {who}: the loop steps j by {step}, so the "
                   f"{who} walk over each other's bytes",
                   "a grid-stride loop steps over all the grid's threads: "
                   "j += blockDim.x * gridDim.x")


def _no_block_offset(got, rgb, case):
    """The grid-stride loop starting at j = threadIdx.x in every block: each block counts the
    same bytes, those with j % (blockDim.x * gridDim.x) < blockDim.x, gridDim.x times over."""
    block, grid, size = case["block"], case["grid"], 3 * case["n"]
    j = np.arange(size)
    weights = grid * (j % (block * grid) < block)
    if grid > 1 and np.array_equal(got, np.bincount(j % 3 * 256 + rgb[:size], weights=weights,
                                                    minlength=BINS)[:BINS]):
        yield ("every block counted the same bytes, gridDim.x times in all, and the rest "
               "went uncounted: the loop starts at j = threadIdx.x, the same in every block",
               "start each thread at its place in the grid: for (int j = blockIdx.x * "
               "blockDim.x + threadIdx.x; j < 3 * n; j += blockDim.x * gridDim.x)")


def _misplaced(rgb, case):
    """(bins, problem, hint) of the bytes counted in other bins: one bin a byte."""
    size = 3 * case["n"]
    j, v = np.arange(size), rgb[:size].astype(np.int64)
    byte_hint = "byte j is channel j % 3 with value rgb[j]: bin (j % 3) * 256 + rgb[j]"
    yield from (
        (j // case["n"] * 256 + v, "the bins are what channel j / n gives, as if the image "
         "were stored plane after plane", byte_hint),
        (v * 3 + j % 3, "the bins are what bin v * 3 + c gives, in place of c * 256 + v",
         byte_hint),
        (j % 3 * 256 + rgb[j // 3 + j % 3], "the bins are what a thread a pixel gives that "
         "reads pixel p's channels from bytes p, p + 1, p + 2",
         "pixel p's 3 bytes start at byte 3 * p: its channel c is rgb[3 * p + c]"),
        (j % 3 * 256 + rgb[j - j % 3], "bins 256 to 511 (green) and 512 to 767 (blue) are "
         "copies of bins 0 to 255 (red): each channel c of pixel p counted byte 3 * p, the "
         "pixel's red, not its own", "channel c of pixel p is byte 3 * p + c: atomicAdd(&local"
         "[c * LEVELS + rgb[3 * p + c]], 1u) (in a loop over bytes j, rgb[j])"),
        (j % 3 * 256 + rgb[j // 3], "each byte was counted at the level of byte j / 3, "
         "rgb[j / 3], not its own: j / 3 is the byte's pixel, but rgb is indexed by bytes, "
         "so the levels came from the image's first third", "j already counts bytes: byte "
         "j's level is rgb[j], in bin (j % 3) * 256 + rgb[j]"),
        (j % 3 * 255 + v, "the bins are what bin c * 255 + v gives: channel c's 256 bins "
         "start 255 apart, so value 255 of one channel falls in value 0 of the next",
         "256 values a channel, 0 to 255: bin (j % 3) * 256 + rgb[j]"),
        (j % 3 * 3 + v, "the bins are what bin c * 3 + v gives: channel c's offset was "
         "multiplied by the 3 channels (CHANNELS) where its 256 levels (LEVELS) belong, so "
         "green's bins start at 3 and blue's at 6, over red's, and bins 262 on stay 0",
         "channel c's 256 bins start at c * LEVELS (c * 256): bin (j % CHANNELS) * LEVELS + "
         "rgb[j]"),
        (j % 3 + v, "the bins are what bin c + v gives: channel c's offset was not scaled by "
         "the 256 levels, so the three channels' counts overlap in bins 0 to 257 and bins 258 "
         "on stay 0", "channel c's 256 bins start at c * 256: bin (j % 3) * 256 + rgb[j]"),
        (j % case["block"] % 3 * 256 + v, "each byte was counted in the channel of its "
         "thread, threadIdx.x % 3, not its own: the loop hands a thread bytes of every "
         "channel", "byte j is channel j % 3: bin (j % 3) * 256 + rgb[j]"),
        (j % (case["block"] * case["grid"]) % 3 * 256 + v, "each byte was counted in the "
         "channel of its thread's place in the grid, (blockIdx.x * blockDim.x + "
         "threadIdx.x) % 3, not its own: the loop hands a thread bytes of every channel",
         "byte j is channel j % 3: bin (j % 3) * 256 + rgb[j]"))


def adding_steps_by_the_grid(got, rgb, case):
    """The loop that adds the block's bins into bins stepping by gridDim.x (b += gridDim.x): its
    thread t adds bins t, t + g, t + 2g, ... (g = gridDim.x), so bin b is added by each block's
    threads t <= b with t % g = b % g, below blockDim.x: want[b] times that many (the counting
    loop's stride gridDim.x is _strides')."""
    block, grid = case["block"], case["grid"]
    b = np.arange(BINS)
    top = np.minimum(b, block - 1)
    times = np.where(b % grid <= top, (top - b % grid) // grid + 1, 0)
    want = reference(rgb[:3 * case["n"]])
    if times.max() < 2 or not np.array_equal(got, want * times):
        return
    worst = int(np.flatnonzero(times == times.max())[-1])
    threads = list(range(worst % grid, top[worst] + 1, grid))
    yield (f"bins were added several times: the loop that adds the block's bins into bins steps "
           f"b by gridDim.x ({grid}), not blockDim.x ({block}), so the block's threads overlap "
           f"(thread t adds bins t, t + {grid}, t + {2 * grid}, ...): bin {worst} was added "
           f"{times[worst]} times by each block (by its threads {threads[0]}, {threads[1]}, ..., "
           f"{threads[-1]}), bin b below {block} b / {grid} + 1 times",
           "each thread adds its own bins, blockDim.x apart: "
           "for (int b = threadIdx.x; b < 768; b += blockDim.x)")


ADD_PROBE = dict(n=2_000, block=64, grid=4, image="random")
"""A launch whose grid has fewer threads (256) than there are bins: an adding loop that steps by
them adds bins 256 on too, where a single bin a thread stops at 63."""


def _added_stepping(rgb, case, step):
    """bins as an adding loop that steps b by ``step`` leaves them: thread t of each block adds
    bins t, t + step, ..., so bin b is added by the threads t <= b below blockDim.x with t = b
    (mod step)."""
    b = np.arange(BINS)
    top = np.minimum(b, case["block"] - 1)
    return reference(rgb[:3 * case["n"]]) * np.where(b % step <= top, (top - b % step) // step + 1, 0)


def adding_steps_by_the_grid_s_threads(got, rgb, case, probe):
    """The adding loop stepping b by blockDim.x * gridDim.x: thread t adds bins t, t + step, ...
    Where the step reaches 768 that is one bin a thread, as no loop: ``probe(ADD_PROBE)`` (the
    bins and image of that launch, None where it failed), a grid of 256 threads, tells them
    apart."""
    block, grid = case["block"], case["grid"]
    step = block * grid
    if grid < 2 or not np.array_equal(got, _added_stepping(rgb, case, step)):
        return
    told = f", those with b % {step} below {block}"
    if step >= BINS:
        seen = probe(ADD_PROBE)
        if seen is None or not np.array_equal(seen[0], _added_stepping(seen[1], ADD_PROBE, 256)):
            return
        told = (f": {step} reaches past bin 767, so each thread added bin threadIdx.x alone and "
                f"bins {block} to 767 were never added (with block = (64, 1, 1), grid = (4, 1), "
                "b += 256 added the bins b % 256 below 64)")
    yield (f"the loop that adds the block's bins into bins steps b by blockDim.x * gridDim.x "
           f"({step}), the whole grid's threads, not blockDim.x ({block}): each block adds all "
           f"768 of its own bins, but thread t added only bins t, t + {step}, ...{told}",
           "the block's threads share out its 768 bins: "
           "for (int b = threadIdx.x; b < 768; b += blockDim.x)")


def folded(want, block):
    """bins as an adding loop that adds local[b] into bins[threadIdx.x] leaves them: thread t
    adds its bins t, t + blockDim.x, ... all into bins[t], so bins[t] (t below blockDim.x and
    768) holds their sum and the bins from blockDim.x on stay 0."""
    return np.bincount(np.arange(BINS) % block, weights=want, minlength=BINS)[:BINS].astype(np.int64)


def added_into_the_thread_s_bin(got, want, case, probe):
    """The adding loop's atomicAdd(&bins[threadIdx.x], local[b]) (its model ``folded``). With 256
    threads a block the bins are those of every byte counted in the red bins: ``probe()`` (the
    bins, NumPy's bins and the block of a launch of 128 threads a block, None where it failed)
    tells them apart."""
    block, seen = case["block"], probe()
    if block >= BINS or not np.array_equal(got, folded(want, block)) or seen is None or \
            seen[2] >= BINS or not np.array_equal(seen[0], folded(seen[1], seen[2])):
        return
    terms = ["threadIdx.x"] + [f"threadIdx.x + {k * block}" for k in range(1, -(-BINS // block))]
    shown = ", ".join(terms[:3]) + (", ..." if len(terms) > 3 else "")
    t = int(np.argmax(got != want))
    summed = list(range(t, BINS, block))
    named = (", ".join(map(str, summed[:-1])) + f" and {summed[-1]}" if len(summed) <= 3 else
             ", ".join(map(str, summed[:3])) + ", ...")
    yield (f"each thread added its bins b = {shown} all into bins[threadIdx.x]: the adding loop "
           f"adds local[b] into bins[threadIdx.x], not bins[b], so bins {block} to 767 stayed 0 "
           f"and bins[{t}] counts {int(got[t]):,}, bins {named} together ("
           f"{' + '.join(str(int(want[b])) for b in summed[:3])}{' + ...' if len(summed) > 3 else ''}"
           f"), where {int(want[t]):,} belongs (with {seen[2]} threads a block, bins {seen[2]} to "
           "767 stayed 0)",
           "add each shared bin into the global bin of the same number: "
           "atomicAdd(&bins[b], local[b])")


def values_added(got, rgb, case):
    """Each byte added its value rgb[j] to its bin, not 1 (before the counts no image could
    give: a bin's sum of values may pass the image's size)."""
    size = 3 * case["n"]
    bins = np.arange(size) % 3 * 256 + rgb[:size]
    if got.any() and np.array_equal(got, np.bincount(bins, weights=rgb[:size].astype(np.int64),
                                                     minlength=BINS)[:BINS]):
        yield ("each bin holds the sum of its bytes' values, not how many bytes it has: each "
               "byte added rgb[j] to its bin, where it adds 1",
               "a histogram counts: add 1 to the byte's bin, "
               "atomicAdd(&local[(j % 3) * 256 + rgb[j]], 1u)")


def wrapped(got, rgb, case):
    """Each block's bins wrapped to 0 at a limit m (got: the blocks' counts modulo m + 1, summed),
    the smallest m that gives got: atomicInc(&local[k], m) taken for an add of 1, where it
    stores old >= m ? 0 : old + 1."""
    counts = block_counts(rgb, case)
    wrap = next((m for m in range(1, int(counts.max())) if np.array_equal(
        got, (counts % (m + 1)).sum(0))), None)
    if wrap is not None:
        cycle = ", ".join(str(k % (wrap + 1)) for k in range(min(wrap + 3, 5)))
        yield (f"each block's bins counted {cycle}, ...: bins holds each block's counts modulo "
               f"{wrap + 1}, added up. That is atomicInc(&local[k], {wrap}u), which is no add "
               f"of 1: it adds 1 while the bin is below {wrap} and stores 0 once the bin has "
               f"reached {wrap} (atomicInc(p, v) stores old >= v ? 0 : old + 1)",
               "count with atomicAdd, which adds its second argument: "
               "atomicAdd(&local[(j % 3) * 256 + rgb[j]], 1u)")


def one_a_block(got, rgb, case):
    """Each block added 1 to each bin it counted a byte into (its model: bin k counts the
    blocks whose bytes, j from blockIdx.x * blockDim.x on, gridDim.x * blockDim.x apart, hit k)."""
    size, block = 3 * case["n"], case["block"]
    j = np.arange(size)
    owner, k = j // block % case["grid"], j % 3 * 256 + rgb[:size]
    if np.array_equal(got, np.bincount(np.unique(owner * BINS + k) % BINS, minlength=BINS)):
        yield ("each bin counts the blocks that counted a byte into it, not the bytes: a block "
               "added 1 to bins[b], not its count local[b]",
               "add each shared bin's count to the global one: atomicAdd(&bins[b], local[b])")
    counts = np.bincount(owner * BINS + k, minlength=case["grid"] * BINS).reshape(-1, BINS)
    one = (counts == got) | ((counts == 0) & (got == 0))   # bin b: block i's count, or 0
    if (got < counts.sum(0)).any() and one.any(0).all():
        yield ("each bin holds one block's count, not the sum of all the blocks': a block's "
               "count replaced what bins[b] held (atomicExch, or a store) where it adds to it",
               "add each shared bin's count to the global one: atomicAdd(&bins[b], local[b])")


def channel_loop_past_3(failure):
    """The block's bins, declared 768 long, indexed at 768 + v by a thread whose first pixel p
    (blockIdx.x * blockDim.x + threadIdx.x) is followed by the byte v = rgb[3 * p + 3]: a channel
    loop over a pixel that ran on to c = 3, local[c * 256 + rgb[3 * p + c]]."""
    err, launch = failure.error, failure.launch
    if failure.kind != "array bounds" or err.length != BINS or launch is None or \
            err.thread is None or err.block is None or not BINS <= (err.element or 0) < BINS + 256:
        return
    p, rgb = err.block[0] * launch.block[0] + err.thread[0], launch.args[0]
    name = err.array or "local"    # the notebook's name, where the simulator knows none
    if 3 * p + 3 < getattr(rgb, "size", 0) and int(rgb[3 * p + 3]) == err.element - BINS:
        yield (f"thread {err.thread[0]} of block {err.block[0]} counted into {name}"
               f"[{err.element}] = {name}[3 * 256 + {err.element - BINS}], channel c = 3, "
               f"past its 768 bins: for its pixel p = {p} the channel loop ran on to c = 3 (c <= "
               f"CHANNELS, 4 channels) and read byte rgb[3 * p + 3] = rgb[{3 * p + 3}], the next "
               "pixel's red", "a pixel has 3 channels, c = 0, 1, 2: "
               "for (int c = 0; c < 3; c++), that is c < CHANNELS")
