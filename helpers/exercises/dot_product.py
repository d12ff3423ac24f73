"""Checker for the dot-product exercise of notebook 07: ``cuda_src/exercises/dot_product.cu``.

``dot(x, y, result, n)`` adds x . y to *result (0 before the launch) for any n, grid and block of
1 to 32 warps: a grid-stride loop, warp shuffles, the warps' sums through shared memory, one
atomicAdd a block. A wrong sum is matched with the plan's wrong shapes, modelled whole
(``SHAPES``), and with the sums of known parts of the products.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import speed, unset as unset_reads
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import observe, observed_mistakes
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
FROM_16 = "for (int offset = 16; offset > 0; offset /= 2): offsets 16, 8, 4, 2, 1"
GRID_WARP_HINT = ("warp_sums is the block's own, one element for each warp of the block: a warp's "
                  "number is its place in its block, warp = threadIdx.x / 32 (0 to "
                  "blockDim.x / 32 - 1), not its place in the grid")


def _draw(rng):
    """The grader's cases: few elements and many, on blocks of 1 to 32 warps."""
    return [dict(n=awkward(rng, 32, low, high), block=32 * int(rng.integers(1, 33)),
                 grid=int(rng.integers(1, 9))) for low, high in ((2, 2_000), (2_000, 120_000))]


def _refine(failure):
    """The hints for the exercise's accumulators, warp_sums' barrier and its size."""
    err, shared = failure.error, getattr(failure.error, "space", None) == "shared"
    thread = (getattr(err, "thread", None) or (0,))[0]   # lane 0 of a warp past the first
    if failure.kind == "array bounds" and err.element == thread >= 32 and thread % 32 == 0:
        yield (f"lane 0 of warp {thread // 32} (thread {thread}) stored its warp's sum at "
               f"warp_sums[{thread}], its thread number: warp_sums has one element a warp: index "
               "it by the warp's number, warp_sums[warp] = v (warp = threadIdx.x / 32)")
    if failure.kind == "array bounds":
        yield ("warp_sums needs one element for each warp of the block: declare it __shared__ "
               "float warp_sums[32], for blocks of up to 1024 threads (32 warps)")
    lanes_0 = tuple(range(0, (failure.block or (0,))[0], 32))   # lane 0 of each warp
    if failure.kind == "warp mask" and len(lanes_0) > 1 and getattr(err, "waiting", 0) == lanes_0 \
            and err.barrier is None:   # the others had left: past the barrier, not waiting there
        shown = ", ".join(map(str, lanes_0[:3])) + (", ..." if len(lanes_0) > 3 else "")
        yield (f"only lane 0 of each warp (threads {shown}) called warp_sum in the first warp's "
               "if, alone in its warp: warp == 0 held for them, so lane and warp are swapped: "
               "lane = threadIdx.x % 32 (the place in the warp), warp = threadIdx.x / 32 (the "
               "warp's place in the block)")
    if failure.kind == "warp mask" and getattr(err, "barrier", None) and \
            getattr(err, "waiting", None) == tuple(range(1, 32)):
        yield (f"lane 0 waits at the __syncthreads() at {err.barrier}, which lanes 1 to 31 of its "
               "warp never reached: they went on into warp_sum and wait there for lane 0, so the "
               "barrier is inside if (lane == 0); put the __syncthreads() after the if, where "
               "every thread of the block reaches it")
    if failure.kind != "race":
        return
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
    if run.out.past.size:
        yield ("the kernel wrote past *result (result[1] and on)",
               "the result is one float: only *result (result[0]) may be written")
    if np.isnan(got):  # a race explains a NaN too: the barrier before reading shared memory
        yield from observed_mistakes(_observe(kernels), _refine, wrong="the sum is NaN")
        yield from _unset(kernels)
        yield from _first_warp_only(kernels)
        yield ("the result is NaN: the kernel read x or y past n (they hold NaN there), or an "
               "element of a __shared__ array that no thread of the block had written",
               "read x[i] and y[i] only while i < n, and of warp_sums " + WARP_SUMS_HINT)
    if got == 0.0 and model(products, case["block"], case["grid"], shuffle_adds=False) == 0.0 \
            and _observe(kernels).stats.atomics.lanes > 0:   # the atomics ran, and added 0
        yield ("*result is 0 though the blocks' atomicAdd ran: warp_sum replaced v with the "
               "shuffled value (v = __shfl_down_sync(...)) instead of adding it, so lane 0 got "
               "lane 31's value, 0 in the first warp", "v += __shfl_down_sync(0xffffffff, v, "
               "offset)")
    if got == 0.0:
        yield ("nothing was added to *result: it is still 0", "at the end, one thread of each "
               "block adds the block's sum: atomicAdd(result, block_sum)")
    if _close(got, products.sum()):
        return
    yield from observed_mistakes(_observe(kernels), _refine, wrong="the sum is wrong")  # likeliest
    yield from _warps_placed_in_grid(kernels)
    yield from matches(got, _wrong_sums(products, case["block"], case["grid"]), _close)
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
           f"(on the simulator, with {warps} warps a block, thread {first['thread']} of block "
           f"{first['block']} stored {first['array']}[{first['index']}], where that block's warps "
           f"have elements 0 to {warps - 1}), so no warp of those blocks is warp 0 and their sums "
           "never reached *result (with 32 warps a block they store past the array's end)",
           GRID_WARP_HINT)


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


SHAPES = [  # (how model() writes the plan, problem, hint): its wrong shapes, each named as itself
    (dict(shuffle="up"),
     "warp_sum uses __shfl_up_sync, which hands each lane the v of the lane offset places below "
     "it: lane 0 has none below, so it doubles its own value at each step instead of collecting "
     "the warp's sum", "use __shfl_down_sync(0xffffffff, v, offset), which hands each lane the v "
     "of the lane offset places above it: after offsets 16, 8, 4, 2 and 1 the warp's sum is in "
     "lane 0"),
    (dict(offsets=(32, 16, 8, 4, 2, 1)),
     "warp_sum starts at offset 32, past the warp's last lane: at that step every lane gets its "
     "own value back and doubles it, so each warp sum is twice too large (the dot product 4 "
     "times, warp_sum being used twice)", "start at half the warp, 16: " + FROM_16),
    (dict(offsets=(8, 4, 2, 1)), "warp_sum starts at offset 8: lane 0 ends with the sum of the "
     "warp's first 16 lanes only", "start at half the warp, 16: " + FROM_16),
    (dict(offsets=(16, 8, 4, 2)), "warp_sum stops one step early, before offset 1: lane 0 ends "
     "with the sum of the even lanes only",
     "run the loop down to offset 1 (offset > 0, not offset > 1): " + FROM_16),
    (dict(stride="block"), "the loop steps by blockDim.x alone: each block walks from its first "
     "element to the end, so the blocks' walks overlap and most elements are counted by several "
     "blocks", "step by the whole grid, i += blockDim.x * gridDim.x, so that the blocks share "
     "the elements out"),
    (dict(sum_type="int"), "each thread adds up in an int: adding x[i] * y[i] to an int keeps "
     "only the whole part, so the fractions are lost",
     "keep each thread's sum in a float: float v = 0.0f, then v += x[i] * y[i]"),
    (dict(keep="last"), "each thread kept only its last product: v = x[i] * y[i] replaces the "
     "sum at each turn of the loop", "add each product to the thread's sum: v += x[i] * y[i]"),
    (dict(adders="every lane"), "every lane of the first warp added its value to *result, not "
     "lane 0 alone, which holds the block's sum", "if (lane == 0) atomicAdd(result, v): one "
     "atomic a block"),
    (dict(shuffle="index"), "warp_sum uses __shfl_sync, which hands every lane the v of lane "
     "`offset` itself, not of the lane offset places above", "use __shfl_down_sync(0xffffffff, v, "
     "offset), the v of the lane offset places above: after offsets 16, 8, 4, 2 and 1 the "
     "warp's sum is in lane 0"),
    (dict(offsets=tuple(range(16, 0, -1))), "warp_sum's offset steps down by 1 (offset--): "
     "offsets 16, 15, 14, ..., 1 add the lanes' values into each other again and again",
     "halve the offset at each step: " + FROM_16),
    (dict(start="block"), "the loop starts at i = threadIdx.x, the same in every block: the "
     "blocks all add the same elements, and the others are never added",
     "start at the thread's place in the grid, i = blockIdx.x * blockDim.x + threadIdx.x, and "
     "step by blockDim.x * gridDim.x"),
]


def model(products, block, grid, stride="grid", sum_type="float", shuffle="down",
          offsets=(16, 8, 4, 2, 1), keep="sum", adders="lane 0", shuffle_adds=True,
          start="grid") -> float:
    """The sum a kernel adds to *result whose loop starts at the thread's place in the grid or in
    its block (``start``) and steps by the grid or the block (``stride``), each thread adding up
    in a float or an int (``sum_type``; ``keep="last"``: keeping only its last product), its
    warp_sum's ``shuffle`` ("down", "up", or "index": lane ``offset`` itself, __shfl_sync) going
    through ``offsets``: lane 0's sum over the last axis (32 lanes), where a shuffle whose source
    lane is outside the warp hands a lane its own value, as CUDA's do (``shuffle_adds=False``: v
    = the shuffled value, not v +=); ``adders="every lane"``: every lane of the first warp
    adding its value to *result, not lane 0 alone."""
    def warp_sum(v):
        for offset in offsets:
            source = {"down": lane + offset, "up": lane - offset, "index": 0 * lane + offset}[shuffle]
            shuffled = np.where((source >= 0) & (source < 32), v[..., np.clip(source, 0, 31)], v)
            v = v + shuffled if shuffle_adds else shuffled
        return v

    n, threads, warps, lane = products.size, block * grid, block // 32, np.arange(32)
    step = threads if stride == "grid" else block
    start, sums = np.arange(threads) % (block if start == "block" else threads), np.zeros(threads)
    for turn in range(-(-n // step)):  # the loop's turns taken for all the threads at once
        i = start + turn * step
        added = np.where(i < n, products[np.minimum(i, n - 1)], 0.0).astype(np.float32)
        sums = np.trunc(sums.astype(np.float32) + added) if sum_type == "int" else \
            np.where(i < n, added, sums) if keep == "last" else sums + added
    first_warp = np.zeros((grid, 32))
    first_warp[:, :warps] = warp_sum(sums.reshape(grid, warps, 32))[..., 0]
    total = warp_sum(first_warp)
    return float((total if adders == "every lane" else total[..., 0]).sum())


def _wrong_sums(products, block, grid):
    """(sum, problem, hint) of the known mistakes: the plan's wrong shapes, the sums of a known
    part of the products, every block counting every element."""
    for shape, problem, hint in SHAPES:
        yield model(products, block, grid, **shape), problem, hint
    i, warps, threads = np.arange(products.size), block // 32, block * grid
    thread = i % threads % block               # the thread of its block that handles element i
    whole = 1 << (warps.bit_length() - 1)      # the largest power of two up to warps
    for part, problem, hint in (
            ((i % block == 0) & (i < threads), "only thread 0 of each block counted, and only its "
             "own element (the stub as shipped)", "follow the TODOs: a grid-stride loop, warp_sum "
             "with __shfl_down_sync, the warps' sums in warp_sums, then one atomicAdd a block"),
            (thread == 0, "only thread 0 of each block counted: warp_sum adds nothing (so neither "
             "a warp's lanes nor, through them, the block's warps are added together)",
             "warp_sum must add the 32 lanes' values: v += __shfl_down_sync(0xffffffff, v, "
             "offset) for offset = 16, 8, 4, 2, 1; then the warps' sums go through warp_sums"),
            (thread % 32 == 0, "only lane 0 of each warp counted: warp_sum does not add the lanes",
             "in warp_sum: for (int offset = 16; offset > 0; offset /= 2) v += "
             "__shfl_down_sync(0xffffffff, v, offset);"),
            (thread < 32, "only the first warp of each block counted", "lane 0 of every warp "
             "writes its sum to warp_sums[warp]; after a __syncthreads() the first warp adds "
             "warp_sums[0 .. blockDim.x / 32 - 1] with warp_sum")):
        yield products[part].sum(), problem, hint
    if whole < warps:
        yield (products[thread < 32 * whole].sum(),
               f"the warps past the first {whole} of the {warps} in each block were not counted",
               f"a tree that halves the number of warp sums drops the odd ones when there is no "
               f"power of two of them (here {warps}): add them with warp_sum over the lanes below "
               "blockDim.x / 32, the other lanes adding 0, which works for any number of warps")
    if threads < i.size:
        yield (products[i < threads].sum(), f"only the first {threads:,} elements (one a thread) "
               "were counted", "the grid has fewer threads than elements: a grid-stride loop, "
               "for (int i = ...; i < n; i += blockDim.x * gridDim.x)")
    yield (products.sum() + products[thread < 32].sum(), "each block's first warp's sum was "
           "counted twice: the second warp_sum added to v, v += warp_sum(...), and lane 0 of the "
           "first warp still held its own warp's sum from the first", "replace v with the "
           "warps' total: v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f)")
    if grid > 1:
        yield (grid * products.sum(),
               f"the sum is {grid} times the dot product: every block counted every element",
               "start at i = blockIdx.x * blockDim.x + threadIdx.x and step by blockDim.x * "
               "gridDim.x, so that the blocks share the elements out")
    if warps > 1:
        yield (warps * products[thread < 32].sum(), f"each block added its first warp's sum "
               f"{warps} times, the others' never: the first warp's lanes all read warp_sums[0] "
               "(warp_sums[warp], warp being 0 for all of them), where lane l brings warp l's "
               "sum", "v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f)")
        yield (warps * products.sum(),
               f"the sum is {warps} times the dot product, one time for each warp of a block: "
               "every warp, not the first alone, added the warps' sums and atomically added the "
               "block's sum to *result", "only the first warp adds the warps' sums: "
               "if (warp == 0) { v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f); "
               "if (lane == 0) atomicAdd(result, v); }")


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


def _observe(kernels, case=OBSERVED[0]):
    return observe(kernels, _launch(case), key=f"observed {case['block']}")


def _observed_mistakes(kernels, case):
    """The right sum, by luck or not: the race check, shared memory read before it was written."""
    seen = _observe(kernels, case)
    yield from observed_mistakes(seen, _refine)
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
