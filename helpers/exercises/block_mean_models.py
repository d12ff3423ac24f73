"""The models of notebook 09's block mean that ``helpers.exercises.block_mean`` compares a
kernel's means with: a sum that left out the array's last element or counted tile[0] twice, one of
tile[0] alone, a count that left out the block's start (min(BLOCK, n)), which only a launch of
one block tells from a division by BLOCK, a partial last block counted one too many, a full
last block counted 0, a sum that starts from whatever its register held, or that reads past
count an unstored part of the tile (``tile_read_unstored``); and a start for
the mean stored by every thread of the block, racing with thread 0's sum
(``mean_started_by_every_thread``), or a shared sum's start stored with no barrier before the
other threads' atomic adds (``zeroed_while_added``)."""

from __future__ import annotations

import os

import numpy as np

from helpers.exercises import unset
from helpers.exercises.failure import line_number

BLOCK = 256


def sum_unset(kernels, got, want):
    """A local the simulator's compiler saw read before anything is stored in it (its records:
    ``helpers.exercises.unset``), the means being wrong: thread 0's sum started from whatever its
    register held, not 0 (on the simulator 0xFE bytes, -1.7e38 as a float), planted bug 3's
    mistake (means[blockIdx.x] += onto memory nothing zeroed) moved into a local."""
    close = np.isclose(got, want, rtol=1e-4, atol=1e-5)
    if close.all():
        return
    for record in unset.reads(kernels)[:1]:
        b, name = int(np.argmax(~close)), record.name
        where = f" (declared at line {record.declared})" if record.declared else ""
        yield (f"{name}{where} is read before anything is stored in it: thread 0 added the tile "
               "onto whatever its register held (on a GPU anything, on the simulator 0xFE bytes, "
               f"-1.7e38 as a float), not 0, so means[{b}] = {got[b]:.6g} where the block's mean "
               f"is {want[b]:.6g}: bug 3's mistake again, in a local (a sum that starts at "
               "whatever was there)", f"give {name} a value where it is declared, before the "
               f"loop adds to it: float {name} = 0.0f;")


def tile_read_unstored(run, got, want, n):
    """Means wrong, and the init check on the same launch (the simulator's) finds a thread of
    block b reading tile[k], k from count on, while its block had stored exactly tile[0] to
    tile[count - 1]: the threads past n stored nothing (the load guarded by if (i < n), with no
    else), and the sum ran past count, over a part of the tile that holds whatever shared memory
    held (on the simulator NaN)."""
    from helpers.exercises.microscope import observe
    from helpers.sim.settings import settings

    if np.allclose(got, want, rtol=1e-4, atol=1e-5):
        return
    with settings.changed(initcheck=True):
        err = observe(run.kernel, run.launch, key=f"initcheck {n}", racecheck=False).error
    if getattr(err, "kind", None) != "uninitialised read" or err.space != "shared" or \
            not err.block or not err.thread or err.element is None:
        return
    b, t, k = err.block[0], err.thread[0], err.element
    count = min(BLOCK, n - b * BLOCK)
    if not count <= k < BLOCK or tuple(err.written or ()) != tuple(range(count)):
        return
    yield (f"means[{b}] = {got[b]:.6g}, where the block's mean is {want[b]:.6g}: thread {t} of "
           f"block {b} read {err.array or 'tile'}[{k}] in the sum "
           f"({os.path.basename(err.line or '?')}), which no thread of its block had stored (the "
           f"init check: it had stored {err.written_words}). Block {b} has count = {count} "
           f"elements, threads {count} to {BLOCK - 1} of block {b} (i >= n) store nothing in "
           f"tile, and the sum ran on past count, over tile[{count}] to tile[{BLOCK - 1}]: "
           "shared memory is not zeroed, they hold whatever was there (on the simulator NaN)",
           "add up only the block's elements, for (int k = 0; k < count; k++), or let the "
           "threads past n store 0.0f: tile[t] = i < n ? x[i] : 0.0f")


def one_element_off(got, close, x, counts):
    """Means whose sums left out the array's last element (the load's guard i < n - 1 stored 0 in
    its place), counted each block's first element twice (the sum started at tile[0], and the
    loop from k = 0 added it again), or left it out (the loop from k = 1)."""
    if close.all():
        return
    sums = np.array([x[b * BLOCK:b * BLOCK + c].astype(np.float64).sum()
                     for b, c in enumerate(counts)])
    short = sums.copy()
    short[-1] -= x[-1]
    b = int(np.argmax(~close))
    if close[:-1].all() and np.isclose(got[-1], short[-1] / counts[-1], rtol=1e-4, atol=1e-5):
        yield (f"means[{b}] = {got[b]}, the mean of its block with x[n - 1], the array's last "
               "element, counted as 0: the load's guard stops one short (i < n - 1) and stores "
               "0.0f in its place",
               "guard the load with the array's length: tile[t] = i < n ? x[i] : 0.0f, as i "
               "runs from 0 to n - 1")
    twice = (sums + x[::BLOCK]) / counts
    if np.allclose(got, twice, rtol=1e-4, atol=1e-5):
        yield (f"means[{b}] = {got[b]:.6g}, the mean of its block with tile[0] counted twice: the "
               "sum started at tile[0], and the loop from k = 0 added it again",
               "start the sum at 0: float sum = 0.0f, then sum += tile[k] for k = 0 to count - 1")
    without = (sums - x[::BLOCK]) / counts
    if np.allclose(got, without, rtol=1e-4, atol=1e-5):
        yield (f"means[{b}] = {got[b]:.6g}, the mean of its block with tile[0], its first element "
               f"x[{b * BLOCK}] = {x[b * BLOCK]:.6g}, left out of the sum: the sum's loop starts at "
               "k = 1", "add every element from tile[0] on: for (int k = 0; k < count; k++)")


def tile_0_alone(got, close, x, counts):
    """Thread 0's sum over k = t, t + blockDim.x, ...: with t = 0 and count <= blockDim.x, only
    tile[0], so each block's mean is its first element over count."""
    firsts = x[::BLOCK].astype(np.float64)
    if not close.all() and np.allclose(got, (firsts / counts).astype(np.float32),
                                       rtol=1e-4, atol=1e-5):
        b = int(np.argmax(~close))
        yield (f"means[{b}] = {got[b]}, which is tile[0] / count, x[{b * BLOCK}] / {counts[b]}: "
               "thread 0's sum added only tile[0]: its loop steps k by blockDim.x, so from k = 0 the "
               "next k is already past count (a loop from k = t by blockDim.x shares the tile "
               "among all the block's threads, and only thread 0 runs this one)",
               "thread 0 adds every element itself: for (int k = 0; k < count; k++) "
               "sum += tile[k]")


def own_element_count_times(got, close, x):
    """Thread 0's sum added tile[t], its own element tile[0], at every step of its loop over k:
    count times x[first], so each block's mean is its first element."""
    firsts = x[::BLOCK]
    if close.all() or not np.allclose(got, firsts, rtol=1e-4, atol=1e-5):
        return
    b = int(np.argmax(~close))
    yield (f"means[{b}] = {got[b]}, x[{b * BLOCK}], block {b}'s first element: thread 0's sum "
           "added tile[t], thread 0's own element tile[0], count times, not tile[k], the element "
           "its loop is at", "add the element the loop is at: sum += tile[k], k = 0 to count - 1")


ONE_BLOCK = 100  # a launch of one partial block: there min(BLOCK, n) is the block's count


def divided_by_block(got, want, x, n) -> bool:
    """Every mean right but the last, partial block's, which is its sum over BLOCK."""
    close = np.isclose(got, want, rtol=1e-4, atol=1e-5)
    last = n - (len(want) - 1) * BLOCK
    return bool(close[:-1].all() and not close[-1] and last < BLOCK and np.isclose(
        got[-1], x[-last:].sum() / BLOCK, rtol=1e-4, atol=1e-5))


def _one_block_mean(sim_kernel, size=ONE_BLOCK):
    """(means[0], NumPy's) of a launch of one block of ``size`` elements on the simulator, or
    None where it failed."""
    from helpers.exercises import kernel as runner
    from helpers.sim import driver, gpuarray
    from helpers.sim.settings import settings

    x = np.random.default_rng(size).uniform(-4, 4, size).astype(np.float32)
    with settings.changed(time_limit=runner.time_limit()):
        x_gpu, y = gpuarray.to_gpu(x), gpuarray.empty(size, np.float32)
        means = gpuarray.zeros(1, np.float32)
        try:
            sim_kernel(x_gpu, y, means, np.int32(size), block=(BLOCK, 1, 1), grid=(1, 1))
        except driver.Error:
            return None
    return float(means.get()[0]), float(x.astype(np.float64).mean())


def stored_past_y(sim_kernel, n):
    """The elements past n of y that a launch of n elements on the simulator (room for a block
    after x and y) wrote, sorted; None where it failed."""
    from helpers.exercises import kernel as runner
    from helpers.sim import driver, gpuarray
    from helpers.sim.settings import settings

    blocks = -(-n // BLOCK)
    x = np.random.default_rng(n).random(n + BLOCK, dtype=np.float32)
    with settings.changed(time_limit=runner.time_limit(), workers=1):
        y = gpuarray.to_gpu(np.full(n + BLOCK, np.nan, np.float32))
        try:
            sim_kernel(gpuarray.to_gpu(x), y, gpuarray.empty(blocks, np.float32), np.int32(n),
                       block=(BLOCK, 1, 1), grid=(blocks, 1))
        except (driver.Error, TypeError):
            return None
        return np.flatnonzero(~np.isnan(y.get()[n:])) + n


def count_without_start(sim_kernel, got, want, x, n):
    """The last block's mean divided by BLOCK, while a block alone (n < BLOCK) is divided by its
    n: the count is min(BLOCK, n), the array's length, not what is left from the block's start."""
    if not divided_by_block(got, want, x, n) or len(want) < 2:
        return
    one = _one_block_mean(sim_kernel)
    if one is None or not np.isclose(*one, rtol=1e-4, atol=1e-5):
        return
    last = n - (len(want) - 1) * BLOCK
    yield (f"the last block's mean is its sum divided by {BLOCK}, but it has only {last} "
           f"elements: count = min(BLOCK, n) is {BLOCK} in every block when n >= {BLOCK} (n = "
           f"{n}), since it leaves out where the block starts; with one block (n = {ONE_BLOCK}) "
           "the mean is right, as there n is what the block has",
           "count what is left of the array from the block's first element: count = min(BLOCK, "
           "n - first), first = blockIdx.x * BLOCK")


def count_one_too_many(got, want, x, n):
    """Every mean right but the last, partial block's, which is its sum over one element more than
    it has: count = min(BLOCK, n - first + 1) (the loop's extra tile[count - 1] is a 0 stored past
    n, which leaves the sum as it is). A full last block is capped at BLOCK, and right."""
    last, b = n - (len(want) - 1) * BLOCK, len(want) - 1
    if last >= BLOCK or not np.allclose(got[:-1], want[:-1], rtol=1e-4, atol=1e-5) or \
            np.isclose(got[-1], want[-1], rtol=1e-4, atol=1e-5) or not np.isclose(
                got[-1], x[-last:].astype(np.float64).sum() / (last + 1), rtol=1e-4, atol=1e-5):
        return
    yield (f"means[{b}] = {got[b]}, the last, partial block's sum divided by {last + 1}, where it "
           f"has {last} elements (x[{b * BLOCK}] to x[{n - 1}]; its mean is {want[b]}): the "
           f"count came out one too many, as min(BLOCK, n - first + 1) gives: n - first = {last} "
           "is already the number of elements from the block's first on (the other blocks are "
           "full, capped at BLOCK, and right)", "count the elements from the block's first: "
           "count = min(BLOCK, n - first), with no + 1")


def full_block_counted_0(got, want, n):
    """Every mean right but a full last block's (n a multiple of BLOCK), NaN: 0 / 0, its sum
    over count = 0 elements, as count = first + BLOCK < n ? BLOCK : n % BLOCK gives there."""
    blocks = len(want)
    if n % BLOCK or not np.isnan(got[-1]) or np.isnan(got[:-1]).any() or \
            not np.allclose(got[:-1], want[:-1], rtol=1e-4, atol=1e-5):
        return
    yield (f"means[{blocks - 1}] = nan = 0 / 0: the last block is full (n = {n} = {blocks} * "
           f"{BLOCK}), but its count came out 0, so its sum added nothing and was divided by 0, "
           "as n % BLOCK, the count of a partial last block, gives for a full one",
           "count = min(BLOCK, n - first), which is BLOCK for every full block, the last too (a "
           "test that keeps n % BLOCK for a partial last block must let a full one through: "
           "first + BLOCK <= n ? BLOCK : n % BLOCK)")


def divided_by_count_less_1(got, want, x, n):
    """Every mean its block's sum over count - 1 elements (NumPy's ddof=1 habit): sum / (count -
    1), a block of one element dividing by 0 (inf, or NaN for a sum of 0)."""
    blocks = len(want)
    counts = np.minimum(BLOCK, n - np.arange(blocks) * BLOCK)
    sums = np.array([x[b * BLOCK:b * BLOCK + c].astype(np.float64).sum()
                     for b, c in enumerate(counts)])
    with np.errstate(divide="ignore", invalid="ignore"):
        model = sums / (counts - 1)
    if not (counts > 1).any() or np.allclose(got, want, rtol=1e-4, atol=1e-5) or not np.allclose(
            got, model, rtol=1e-4, atol=1e-5, equal_nan=True):
        return
    b = int(np.argmax(~np.isclose(got, want, rtol=1e-4, atol=1e-5)))
    yield (f"each block's mean is its sum divided by count - 1: means[{b}] = {got[b]:.6g} is "
           f"block {b}'s sum divided by {counts[b] - 1}, where it has {counts[b]} elements (its "
           f"mean is {want[b]:.6g}); count - 1 is NumPy's ddof=1 of a sample's spread, not a "
           "mean's", "the mean divides the sum by the number of elements: means[blockIdx.x] = "
           "sum / count")


def sum_past_tile(sim_kernel, err, n):
    """(what happened, hint) where thread 0 of block 0 read tile[BLOCK] (``err``, the bounds
    check's, in a launch of n > BLOCK elements), told by a block alone of ONE_BLOCK elements:
    its mean right and a full block alone failing, the sum loop ran one past the count (k <=
    count: in a partial block the extra tile[count] holds a past-n thread's 0; a count not capped
    at BLOCK has a full block alone right); its sum over BLOCK, the count the larger of BLOCK and
    n - first, max for min. None otherwise."""
    if getattr(err, "kind", None) != "array bounds" or getattr(err, "element", None) != BLOCK or \
            tuple(err.block or (0,))[0] != 0 or tuple(err.thread or (0,))[0] != 0 or n <= BLOCK:
        return None
    one = _one_block_mean(sim_kernel)
    if one is not None and np.isclose(*one, rtol=1e-4, atol=1e-5) and \
            _one_block_mean(sim_kernel, BLOCK) is None:
        return (f"thread 0's sum loop ran one past the block's elements, as k <= count does (the "
                f"loop's last k is count): in block 0, a full block of {BLOCK}, it read "
                f"tile[{BLOCK}], past the tile's end, at {os.path.basename(err.line or '?')} (a "
                f"launch of one full block does too); with one block of {ONE_BLOCK} elements "
                f"the extra tile[{ONE_BLOCK}] held the 0 of a thread past n, and the mean came "
                "out right",
                "the block's elements are tile[0] to tile[count - 1]: for (int k = 0; k < count; "
                "k++), k < count (not <=)")
    if one is None or not np.isclose(one[0], one[1] * ONE_BLOCK / BLOCK, rtol=1e-4, atol=1e-5):
        return None
    return (f"thread 0 of block 0 read tile[{BLOCK}], past its {BLOCK} elements, at "
            f"{os.path.basename(err.line or '?')}: "
            f"its count came out larger than BLOCK, n - first = {n} in block 0, and with one "
            f"block of {ONE_BLOCK} elements the mean was the sum over {BLOCK}, not over "
            f"{ONE_BLOCK} (means[0] = {one[0]:.6g}, the mean is {one[1]:.6g}): the count is the "
            "larger of BLOCK and n - first (max) where it must be the smaller",
            "a block has at most BLOCK elements, and the last one only what is left of the "
            "array: int count = min(BLOCK, n - first);")


def count_first_outside_the_min(got, want, x, n):
    """Every mean as count = min(BLOCK, n) - first gives (the parenthesis closed before -
    first): block 0 right, block 1 a sum of nothing over 0 (0 / 0, NaN) where n >= 2 * BLOCK,
    the blocks after it 0 over a negative count (-0)."""
    blocks = len(want)
    counts = min(BLOCK, n) - np.arange(blocks) * BLOCK
    sums = np.array([x[b * BLOCK:b * BLOCK + max(int(c), 0)].astype(np.float64).sum()
                     for b, c in enumerate(counts)])
    with np.errstate(divide="ignore", invalid="ignore"):
        model = sums / counts
    if blocks < 2 or np.allclose(got, want, rtol=1e-4, atol=1e-5) or not np.allclose(
            got, model, rtol=1e-4, atol=1e-5, equal_nan=True):
        return
    seen = [f"{BLOCK} - {b * BLOCK} = {counts[b]} in block {b}" for b in range(1, min(blocks, 3))]
    yield (f"means[1] = {got[1]:.6g}{' = 0 / 0' if counts[1] == 0 else ''}, and every block "
           f"past block 0 is wrong: the count came out min(BLOCK, n) - first, {', '.join(seen)}, "
           f"where a full block has {BLOCK} elements; the parenthesis closes before "
           "- first, so the block's start is taken from BLOCK, not from what is left of n (a "
           "count of 0 or less adds nothing, and sum / count is then 0 / 0 or -0)",
           "take first away from n inside the min: int count = min(BLOCK, n - first);")


def thread_counted_twice(err):
    """(what happened, hint) where two threads of consecutive blocks stored the same element of
    y (``err``, the race check's) at i = b * BLOCK + 2 * t, both of them: t added twice, as i =
    first + t does with first = blockIdx.x * BLOCK + t. None otherwise."""
    if getattr(err, "kind", None) != "race" or getattr(err, "array", None) != "y" or \
            getattr(err, "hazard", None) != "write-after-write" or not err.same_line:
        return None
    (b1, t1), (b2, t2) = ((a.block[0], a.thread[0]) for a in (err.first, err.second))
    if b1 == b2 or not err.element == b1 * BLOCK + 2 * t1 == b2 * BLOCK + 2 * t2:
        return None
    return (f"each thread's element came out i = blockIdx.x * {BLOCK} + 2 * t, t counted twice "
            f"(as when first = blockIdx.x * BLOCK + t and then i = first + t): thread {t1} of "
            f"block {b1} and thread {t2} of block {b2} both stored y[{err.element}] (found by "
            f"the race check, at {os.path.basename(err.line or '?')}), the odd elements of y were "
            f"never written, and each tile held every other element of x, from its own block "
            f"and the next", "first is the block's first element, the same for all its threads: "
            "int first = blockIdx.x * BLOCK; then i = first + t")


def mean_at_first(err):
    """(what happened, hint) where block b > 0 went past means at means[b * BLOCK] (``err``, the
    bounds check's): the mean indexed by the block's first element, first, not by its number.
    None otherwise."""
    block = tuple(getattr(err, "block", None) or (0,))[0]
    length = getattr(err, "length", None)
    if getattr(err, "kind", None) != "out of bounds" or getattr(err, "array", None) != "means" \
            or not block or err.element != block * BLOCK or not length:
        return None
    did = {True: "wrote its mean at", False: "read its mean from"}.get(err.is_write, "went to")
    return (f"means holds one mean a block, {length} here (means[0] to means[{length - 1}]), "
            f"but block {block} {did} means[{err.element}] (at "
            f"{os.path.basename(err.line or '?')}, found by the bounds checks), the index of its "
            f"first element, first = blockIdx.x * {BLOCK}, not the block's number, {block}",
            "store and read the block's mean at its block's number: means[blockIdx.x] = sum / "
            "count, and y[i] = x[i] - means[blockIdx.x]")


def mean_started_by_every_thread(err):
    """(what happened, hint) where the race check found, in one block, a thread other than 0
    storing the block's mean, means[b], on a line above one where thread 0 accesses it (its sum):
    a store made outside thread 0's if (t == 0), a start at 0 for bug 3, say, which every thread
    of the block runs. None otherwise."""
    if getattr(err, "kind", None) != "race" or getattr(err, "array", None) != "means" or \
            err.space != "global" or err.first.block != err.second.block or \
            err.element != err.first.block[0]:
        return None
    zero = next((a for a in (err.first, err.second) if a.thread[0] == 0), None)
    other = next((a for a in (err.first, err.second) if a.thread[0] != 0), None)
    lines = [int(str(a.line).rsplit(":", 1)[-1]) if a and str(a.line).rsplit(":", 1)[-1].isdigit()
             else None for a in (other, zero)]
    if zero is None or other is None or not other.writes or None in lines or \
            not lines[0] < lines[1]:
        return None
    b = err.element
    return (f"a thread other than 0, {other.who}, stores means[{b}] at line {lines[0]}, "
            f"before thread 0's sum, which {zero.does} at line {lines[1]} "
            f"(found by the race check): that store is outside thread 0's if (t == 0), so every "
            f"thread of block {b} makes it, while or after thread 0 adds into means[{b}]",
            "start the mean at 0 in thread 0 alone, inside its if (t == 0) before the loop, or "
            "add up in a local float sum = 0.0f and store means[blockIdx.x] = sum / count once")


def zeroed_while_added(err):
    """(what happened, hint) where the race check found, in one block, a thread's plain store on
    a line above another thread's atomic update of the same element: a sum in shared memory, or
    the block's means[b] in global memory, given its start value (sum = 0.0f under if (t == 0))
    with no barrier before the block's atomicAdds, which may come before it. Not planted bug 2,
    whose race has no atomic. None otherwise."""
    if getattr(err, "kind", None) != "race" or err.first.block != err.second.block:
        return None
    store = next((a for a in (err.first, err.second) if a.writes), None)
    adds = next((a for a in (err.first, err.second) if a.atomic), None)
    if store is None or adds is None:
        return None
    lines = [line_number(a.line) for a in (store, adds)]
    if not lines[0] < lines[1]:
        return None
    store_who, adds_who = (f"thread {a.thread[0]} of block {a.block[0]}" for a in (store, adds))
    return (f"{store_who} gives {err.array}[{err.element}] its start value at line {lines[0]} "
            f"while {adds_who} already adds into it atomically at line {lines[1]}, with no barrier between the two (the race "
            f"check: a {err.hazard} hazard): the adds that come before the store are lost",
            f"every thread must see the start value before it adds: put a __syncthreads() "
            f"between thread {store.thread[0]}'s store (line {lines[0]}) and the atomicAdd "
            f"(line {lines[1]}), outside the if, where every thread of the block reaches it")
