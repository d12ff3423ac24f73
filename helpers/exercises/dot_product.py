"""Checker for the dot-product exercise of notebook 07: ``cuda_src/exercises/dot_product.cu``.

``dot(x, y, result, n)`` adds x . y to *result (0 before the launch) for any n, grid and block of
1 to 32 warps: a grid-stride loop, warp shuffles, the warps' sums through shared memory, one
atomicAdd a block. A wrong sum is matched with the plan's wrong shapes, modelled whole
(``helpers.exercises.dot_product_models``), and with the sums of known parts of the products.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import speed, unset as unset_reads
from helpers.exercises.common import Input, Output
from helpers.exercises.dot_product_models import (first_warp_read_nothing, model,
                                                 on_the_simulator, read_not_added,
                                                 returned_before_warp_sum,
                                                 store_before_the_sums, wrapped_sums,
                                                 wrong_sums)
from helpers.exercises.dot_product_masks import warp_mask_mistakes
from helpers.exercises.dot_product_reads import reads_past_the_warps
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import (accesses_of, body_words, kernel_words, observe,
                                         observed_mistakes, syncwarp_first)
from helpers.exercises.unrolled import no_tail
from helpers.exercises.verdict import matches

RTOL, GUARD = 1e-5, 16
"""RTOL: the difference from NumPy's sum (float64) within which a float32 sum counts as right
(a right kernel's is about 1e-7 on these sizes; one element missing of 1,000 is 1e-3)."""
CASES = [dict(n=1_001, block=96, grid=2), dict(n=100_003, block=256, grid=8),
         dict(n=5_000, block=1024, grid=3), dict(n=77, block=128, grid=4),
         dict(n=1, block=32, grid=1), dict(observe=True, n=3_001, block=128, grid=3),
         dict(observe=True, n=3_001, block=1024, grid=2)]
"""n not a power of two (and odd but once, 5,000), grids with fewer threads than n and more,
3, 8, 32, 4 and 1 warps a block; then the launches on the simulator (``OBSERVED``): 4 warps a block
(the first warp's lanes past the block's warps must add 0), and 32 (warp_sums must hold all)."""
OBSERVED = [case for case in CASES if case.get("observe")]
TARGET, BIG = 0.5, 1 << 25
"""The fraction of a copy's bandwidth FAST takes on a GPU (8 bytes read an element of two BIG
vectors, 128 MiB each). On an H200 (2026-12-02): the solution 83%, one atomic a thread 12%, one
a warp 76% (the L2 cache's atomics keep up with a warp's, so on a GPU that sum is FAST; the
simulator's trace, which counts the atomics, asks for one a block)."""

WARP_SUMS_HINT = ("only the blockDim.x / 32 sums the block's warps wrote (lane < blockDim.x / 32; "
                  "the other lanes add 0)")
ATOMIC_HINT_FAST = ("add up the block first (warp_sum, then the warps' sums), and let one thread a "
                    "block do atomicAdd(result, block_sum): one atomic a block")
GRID_WARP_HINT = ("warp_sums is the block's own, one element for each warp of the block: a warp's "
                  "number is its place in its block, warp = threadIdx.x / 32 (0 to "
                  "blockDim.x / 32 - 1), not its place in the grid")


def _draw(rng):
    """The grader's cases: few elements and many, on blocks of 1 to 32 warps."""
    return [dict(n=awkward(rng, 32, low, high), block=32 * int(rng.integers(1, 33)),
                 grid=int(rng.integers(1, 9))) for low, high in ((2, 2_000), (2_000, 120_000))]


def _refine(failure):
    """The hints for the exercise's accumulators, warp_sums' barrier and its size, and the
    shuffles that wait for lanes which never come (``warp_mask_mistakes``)."""
    err, shared = failure.error, getattr(failure.error, "space", None) == "shared"
    thread = (getattr(err, "thread", None) or (0,))[0]   # lane 0 of a warp past the first
    if failure.kind == "array bounds" and err.element == thread >= 32 and thread % 32 == 0:
        yield (f"lane 0 of warp {thread // 32} (thread {thread}) stored its warp's sum at "
               f"warp_sums[{thread}], its thread number: warp_sums has one element a warp: index "
               "it by the warp's number, warp_sums[warp] = v (warp = threadIdx.x / 32)")
    if failure.kind == "array bounds":
        yield ("warp_sums needs one element for each warp of the block: declare it __shared__ "
               "float warp_sums[32], for blocks of up to 1024 threads (32 warps)")
    yield from returned_before_warp_sum(failure)
    yield from warp_mask_mistakes(failure)
    if failure.kind != "race":
        return
    if failure.between == "blocks" and err.space == "global" and err.first.writes and \
            err.second.writes:   # two plain stores, not an update: *result = v
        yield (f"each block stored its sum with a plain store at {err.second.line} (*result = v), "
               f"not added it: blocks {err.first.block[0]} and {err.second.block[0]} both stored "
               f"{failure.place}, so each block's store overwrites the sums stored before it and "
               "only the last block's sum stays", "add it: atomicAdd(result, v), one atomic a "
               "block (*result is 0 before the launch), so that the blocks' sums add up")
    if failure.update and err.space == "global":
        yield ("several blocks add to *result at once: *result += v loses updates; use "
               "atomicAdd(result, v), once a block")
    if failure.update:
        name = err.array if err.element == 0 else failure.place
        yield (f"the warps of a block add to {name} at once, and {name} += v is a read, an add "
               f"and a write, so sums are lost: use atomicAdd(&{name}, v), or, as the plan has "
               "it, let lane 0 of each warp write its sum to warp_sums[warp] and the first warp "
               "add them after a __syncthreads()")
    if shared and err.hazard == "write-after-write":
        yield from store_before_the_sums(err)
        yield ("two threads store into one element of warp_sums: only lane 0 of each warp stores "
               "its warp's sum, at its warp's place: if (lane == 0) warp_sums[warp] = v")
    if shared and failure.between == "lanes":
        yield ("the first warp's lanes are not kept in step (not since Volta), so one read "
               "warp_sums before another wrote it: add the warps' sums with warp_sum "
               "(__shfl_down_sync), in registers, not through shared memory")
    if shared and failure.between == "warps":
        yield ("after lane 0 of each warp writes warp_sums[warp], a __syncthreads() (reached by "
               "every thread of the block) before the first warp reads warp_sums")


def _launch(case):
    """x and y hold NaN past n, *result starts at 0, the guard after it is NaN."""
    n, rng = case["n"], np.random.default_rng(case["n"])
    x, y = (rng.uniform(0.5, 1.5, n).astype(np.float32) for _ in range(2))
    return Launch((Input(x, GUARD, np.nan), Input(y, GUARD, np.nan),
                   Output(1, guard=GUARD, start=0.0), np.int32(n)), block=(case["block"], 1, 1),
                  grid=(case["grid"], 1), model=x.astype(np.float64) * y)


def _mistakes(case, run):
    got, products, kernels = float(run.out.got[0]), run.model, run.kernel
    if run.out.past.size:   # on a GPU, block b's atomicAdd(&result[b], v) lands past it
        yield from _slot_a_block(kernels, got, products, case)
        yield ("the kernel wrote past *result (result[1] and on)",
               "the result is one float: only *result (result[0]) may be written")
    if np.isnan(got):  # a race explains a NaN too: the barrier before reading shared memory
        yield from _reads_past_the_warps(kernels, case)
        yield from _added_into_unset(kernels)
        yield from observed_mistakes(_observe(kernels), syncwarp_first(kernels, _refine),
                                     wrong="the sum is NaN")
        yield from _unset(kernels)
        yield from _first_warp_only(kernels)
        yield ("the result is NaN: the kernel read x or y past n (they hold NaN there), or an "
               "element of a __shared__ array that no thread of the block had written",
               "read x[i] and y[i] only while i < n, and of warp_sums " + WARP_SUMS_HINT)
    stats = _observe(kernels).stats if got == 0.0 else None
    if ran := stats is not None and stats.atomics.lanes > 0:   # the atomics ran, and added 0
        yield from first_warp_read_nothing(_block_accesses(kernels), PLACES,
                                           kernel_words(kernels), case)
    if ran and model(products, case["block"], case["grid"], shuffle_adds=False) == 0.0:
        yield ("*result is 0 though the blocks' atomicAdd ran: warp_sum replaced v with the "
               "shuffled value (v = __shfl_down_sync(...)) instead of adding it, so lane 0 got "
               "lane 31's value, 0 in the first warp", "v += __shfl_down_sync(0xffffffff, v, "
               "offset)")
    if got == 0.0:
        yield ("nothing was added to *result: it is still 0", "at the end, one thread of each "
               "block adds the block's sum: atomicAdd(result, block_sum)")
    if _close(got, products.sum()):
        return
    yield from _one_vector_squared(got, run.launch, products)
    yield from _slot_a_block(kernels, got, products, case)
    yield from _whole_warps_stored(kernels)
    yield from wrapped_sums(_block_accesses(kernels), PLACES["block"] // 32, got, products.sum())
    yield from _reads_past_the_warps(kernels, case)
    yield from observed_mistakes(_observe(kernels), syncwarp_first(kernels, _refine),  # likeliest
                                 wrong="the sum is wrong")
    yield from _added_into_unset(kernels)
    yield from _warps_placed_in_grid(kernels)
    first = np.arange(products.size) % (case["block"] * case["grid"]) % case["block"] < 32
    if _close(got, products[first].sum()):
        yield from read_not_added(_block_accesses(kernels), PLACES["block"] // 32,
                                  body_words(kernels))
    yield from _known_sums(got, products, case)
    yield from _unset(kernels)
    yield from _not_shared(kernels)
    yield from _first_warp_only(kernels)   # on a GPU, the warp_sums never stored hold garbage
    n, counted = products.size, np.cumsum(products)  # a prefix's sum, within 1% of one product
    for k in np.searchsorted(counted, got) + np.array([-1, 0]):  # (not by chance): the tail dropped
        if 0 < k < n - 1 and abs(got - counted[k]) <= 0.01 * products[k:k + 2].min():
            yield (f"the last {n - k - 1:,} of the {n:,} elements were not counted (the sum is "
                   f"that of x[0..{k}] . y[0..{k}])", "the tail is dropped: the loop must run "
                   "while i < n, for every i, whatever n is (here not a power of two, nor a "
                   "multiple of the block)")
    yield (f"the sum is {got:.7g}, NumPy's is {products.sum():.7g}", "each thread adds x[i] * "
           "y[i] over its i (grid-stride loop), warp_sum adds a warp's 32 values, and the first "
           "warp adds only the block's warps' sums (lane < blockDim.x / 32), the other lanes "
           "adding 0")


def _known_sums(got, products, case):
    """The known mistakes whose sum is ``got``: the plan's wrong shapes (``wrong_sums``), then
    the grid-stride loop unrolled with no tail (``unrolled``)."""
    yield from matches(got, wrong_sums(products, case["block"], case["grid"]), _close)
    yield from matches(got, ((products[done].sum(), *said) for done, *said in no_tail(
        products.size, case["block"] * case["grid"], "products were never counted",
        "x[{0}] * y[{0}]", "v += x[i] * y[i];")), _close)


def _one_vector_squared(got, launch, products):
    """x[i] * x[i] (or y[i] * y[i]) where x[i] * y[i] belongs: the sum of one vector's squares."""
    for k, name in enumerate("xy"):
        v = launch.args[k].host()[:products.size].astype(np.float64)
        if _close(got, (v * v).sum()):
            yield (f"the sum is {got:.7g}, the sum of {name}'s squares, {name}[i] * {name}[i], "
                   f"not of x[i] * y[i] (NumPy's x . y is {products.sum():.7g}): each product "
                   f"took {name}[i] twice", "each product takes one element of each vector: "
                   "v += x[i] * y[i]")


def _unset(kernels):
    """A local the simulator's compiler saw read before anything is stored in it (its records:
    ``helpers.exercises.unset``), which a wrong sum comes from: a sum that starts from garbage."""
    for record in unset_reads.reads(kernels)[:1]:
        where = f" (declared at line {record.declared})" if record.declared else ""
        yield (f"{record.name}{where} is read before anything is stored in it: it holds "
               "whatever its register held, on a GPU anything, on the simulator 0xFE bytes "
               "(-1.7e38 for a float), and the sum is built on that", f"give {record.name} a "
               "value where it is declared, before anything reads it: a thread's sum starts at "
               "0.0f")


PLACES = dict(n=384, block=128, grid=3)  # launched on the simulator, its accesses kept


def _warps_placed_in_grid(kernels):
    """On the simulator (``PLACES``): every store into shared memory by blocks past the first
    went to element (blockIdx.x * blockDim.x + threadIdx.x) / 32, the storing warp's place in the
    grid, not in its block: those blocks have no warp 0, and their sums never reach *result."""
    seen = observe(kernels, _launch(PLACES), key="warps' places", accesses=4096).accesses
    stores = seen[seen["shared"] & seen["write"] & (seen["block"] > 0)] if seen is not None else None
    if stores is None or not len(stores) or not (
            stores["index"] == (stores["block"] * PLACES["block"] + stores["thread"]) // 32).all():
        return
    first, warps = stores[0], PLACES["block"] // 32
    yield (f"blocks past the first stored their warps' sums in the wrong elements of "
           f"{first['array']}: the warp's number was counted across the grid, not in its block "
           f"({on_the_simulator(warps)}, thread {first['thread']} of block "
           f"{first['block']} stored {first['array']}[{first['index']}], where that block's warps "
           f"have elements 0 to {warps - 1}), so no warp of those blocks is warp 0 and their sums "
           "never reached *result (with 32 warps a block they store past the array's end)",
           GRID_WARP_HINT)


def _slot_a_block(kernels, got, products, case):
    """*result holds block 0's share of the products alone, and on the simulator (``PLACES``)
    each block's atomic went to result[blockIdx.x]: a slot a block, as block_mean's means[b]."""
    i, threads = np.arange(products.size), case["block"] * case["grid"]
    if case["grid"] < 2 or not _close(got, products[i % threads < case["block"]].sum()):
        return
    kept = _block_accesses(kernels)
    on = kept[kept["write"] & ~kept["shared"] & (kept["array"] == "result")] \
        if kept is not None else None
    if on is None or set(on["block"].tolist()) != set(range(PLACES["grid"])) or \
            (on["index"] != on["block"]).any():
        return
    yield (f"the sum is {got:.7g}, block 0's share alone (NumPy's is {products.sum():.7g}): each "
           "block added its sum into a slot of its own, atomicAdd(&result[blockIdx.x], v) (on "
           f"the simulator, with {PLACES['grid']} blocks, block b's atomic went to result[b]), "
           "but result is one float: only block 0's reached *result, the others' went past it",
           "every block adds into the one float: atomicAdd(result, v), the atomic keeping the "
           "blocks' additions from losing each other")


def _whole_warps_stored(kernels):
    """On the simulator (``PLACES``, no race check): block 0's stores into shared memory came from
    every lane of warps 0, 2, ... and none of warps 1, 3, ...: those whose threadIdx.x & 32 is 0,
    so the lane was that bit of threadIdx.x, not its place in the warp."""
    seen = observe(kernels, _launch(PLACES), key="lanes stored", accesses=4096, racecheck=False)
    kept = seen.accesses
    stores = kept[kept["shared"] & kept["write"] & (kept["block"] == 0)] if kept is not None \
        else None
    threads = np.arange(PLACES["block"])
    if stores is None or not len(stores) or \
            set(stores["thread"].tolist()) != set(threads[threads & 32 == 0].tolist()):
        return
    yield (f"every lane of warps 0 and 2 stored into {stores[0]['array']}, and no thread of warps "
           f"1 and 3 ({on_the_simulator(PLACES['block'] // 32)}): lane == 0 held for all the "
           "threads "
           "whose threadIdx.x & 32 is 0, so the lane was bit 5 of threadIdx.x (threadIdx.x & 32, "
           "0 or 32), not the thread's place in its warp (0 to 31)", "lane = threadIdx.x % 32, "
           "the same as threadIdx.x & 31 (the low 5 bits)")


def _block_accesses(kernels, block=PLACES["block"]):
    """The accesses a launch on the simulator of ``block`` threads a block and ``PLACES``' 3
    blocks, one element a thread, kept (the first 4096: all of block 0's)."""
    probe = dict(n=block * PLACES["grid"], block=block, grid=PLACES["grid"])
    return accesses_of(kernels, _launch(probe), key=f"warp sums read {block}", accesses=4096)


def _reads_past_the_warps(kernels, case):
    """The first warp's reads of warp_sums past the sums the warps wrote, seen in a launch of the
    block of ``case``, the case the verdict quotes (``dot_product_reads``)."""
    yield from reads_past_the_warps(_block_accesses(kernels, case["block"]), case["block"] // 32,
                                    body_words(kernels))


def _not_shared(kernels):
    """A launch on the simulator of several warps a block that never touched shared memory (its
    trace counted no shared load, store or atomic): warp_sums is not ``__shared__``, each
    thread's own array, where the first warp reads sums it never wrote."""
    seen = _observe(kernels)
    stats = seen.stats
    if stats is not None and seen.block[0] > 32 and not (
            stats.shared_ld.requests or stats.shared_st.requests or stats.shared_atomics.requests):
        yield ("the kernel never touched shared memory (the simulator's trace counted no shared "
               "load or store), so the first warp could not read the other warps' sums: "
               "warp_sums declared without __shared__ is an array of each thread's own, and "
               "lane l of the first warp reads its own warp_sums[l], which no thread wrote",
               "declare it __shared__ float warp_sums[32], one array for the whole block: lane "
               "0 of each warp writes warp_sums[warp], and after a __syncthreads() the first "
               "warp reads them")


def _close(got, want):
    return bool(np.isfinite(got)) and abs(got - want) <= RTOL * abs(want)


def _first_warp_only(kernels):
    """On the simulator (shared memory filled with NaN): NaN with 4 warps a block and right with
    one, so the first warp read warp_sums that the other warps never stored."""
    one = dict(n=OBSERVED[0]["n"], block=32, grid=OBSERVED[0]["grid"])
    seen, alone = _observe(kernels), _observe(kernels, one)
    if (seen.error is None and alone.error is None and np.isnan(seen.outs[0].got[0])
            and _close(float(alone.outs[0].got[0]), _launch(one).model.sum())):
        yield ("only the first warp of each block stored its sum in warp_sums: with one warp a "
               "block the sum is right, and with 4 (on the simulator, which fills shared memory "
               "with NaN) the first warp read warp_sums[1] to [3], which no thread had written",
               "lane 0 of every warp stores its warp's sum: if (lane == 0) warp_sums[warp] = v, "
               "lane = threadIdx.x % 32")


def _added_into_unset(kernels):
    """On the simulator, init-checked: lane 0 of a warp read its own warp's warp_sums[warp]
    before any thread of the block had stored anything in warp_sums: the warp's sum was added
    into the slot (warp_sums[warp] += v), which holds whatever shared memory held."""
    from helpers.sim.settings import settings

    with settings.changed(initcheck=True):
        err = observe(kernels, _launch(OBSERVED[0]), key="initcheck").error
    thread = getattr(err, "thread", None)
    if getattr(err, "kind", None) != "uninitialised read" or err.space != "shared" or \
            not thread or thread[0] % 32 or err.element != thread[0] // 32 or err.written:
        return
    yield (f"lane 0 of each warp added its warp's sum into warp_sums[warp] (+=), which no thread "
           f"had set: on the simulator thread {thread[0]} of block {err.block[0]} read "
           f"warp_sums[{err.element}] before anything was stored in warp_sums (shared memory is "
           "not cleared for you: on a GPU it holds whatever was there, on the simulator NaN), "
           "and the block's sum is built on that", "store the warp's sum: if (lane == 0) "
           "warp_sums[warp] = v (=, not +=: the slot's first value is the warp's sum)")


def _observe(kernels, case=OBSERVED[0]):
    return observe(kernels, _launch(case), key=f"observed {case['block']}")


def _observed_mistakes(kernels, case):
    """The right sum, by luck or not: the race check, shared memory read before it was written."""
    seen = _observe(kernels, case)
    if seen.error is not None:
        yield from _whole_warps_stored(kernels)
    yield from observed_mistakes(seen, syncwarp_first(kernels, _refine))
    yield from _reads_past_the_warps(kernels, case)
    yield from _added_into_unset(kernels)
    if not seen.error and np.isnan(seen.outs[0].got[0]):
        yield ("on the simulator, which fills shared memory with NaN before each block (a GPU "
               "leaves whatever was there, which may be 0 by luck), the sum is NaN: the kernel "
               "reads an element of warp_sums that no warp of the block wrote",
               "of warp_sums read " + WARP_SUMS_HINT)


def _traced(kernels):
    """On the simulator: the atomics of the first observed launch, one a block."""
    seen = _observe(kernels)
    atomics = seen.stats.atomics.lanes
    if atomics > seen.blocks:
        yield (f"the kernel made {atomics:,} atomic additions to *result for {seen.blocks} blocks "
               "(the simulator's trace counted them), which wait for each other", ATOMIC_HINT_FAST)
    return f"on the simulator {atomics} atomic additions for {seen.blocks} blocks"


def _timed(kernel):
    """On a GPU: the bandwidth of the sum of two BIG vectors, against a copy's."""
    from helpers.backend import drv

    sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    halves = np.full(BIG, 0.5, np.float32)
    launch = Launch((halves, halves, np.zeros(1, np.float32), np.int32(BIG)), (256, 1, 1),
                    (8 * sms, 1))
    return (yield from speed.bandwidth(
        speed.launched(kernel, launch), 8 * BIG, TARGET, ATOMIC_HINT_FAST + "; and keep every load "
        "coalesced: in the grid-stride loop neighbouring threads read neighbouring elements",
        f"8 bytes read an element, {BIG:,} elements"))


EXERCISE = KernelExercise(
    stub="exercises/dot_product.cu", kernel="dot",
    signature="const float *x, const float *y, float *result, int n", cases=CASES, draw=_draw,
    launch=_launch, mistakes=_mistakes, observed=_observed_mistakes, refine=_refine,
    where=lambda c: f"n = {c['n']:,}, block = ({c['block']}, 1, 1), grid = ({c['grid']}, 1)",
    simulated="runs the race check", fast=speed.rule(_timed, _traced),
    crash_hint="read x[i] and y[i] only for i < n, and write only *result",
    success=f"the dot product matches NumPy's ({len(CASES) - len(OBSERVED)} sizes from 1 to "
            "100,003, blocks of 1 to 32 warps, grids larger and smaller than n), no race")

check_dot = EXERCISE.check_file          # (path="exercises/dot_product.cu")
check_dot_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): on a compiled kernel
