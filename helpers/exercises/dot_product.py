"""Checker for the dot-product exercise of notebook 07 (``cuda_src/exercises/dot_product.cu``).

The kernel under test::

    __global__ void dot(const float *x, const float *y, float *result, int n)

adds x[0]*y[0] + ... + x[n-1]*y[n-1] to *result (0 before the launch), for any n, any grid and
any block of a multiple of 32 threads up to 1024: a grid-stride loop, warp shuffles, the warps'
sums through shared memory, one atomicAdd a block.

``check_dot()`` runs it on sizes that are not powers of two, grids with fewer threads than
elements and with more, blocks of 1, 3, 4 and 32 warps; x and y hold NaN past n (a read past the
end shows), the result is followed by a guard of NaN (a write past it shows). A wrong sum is
compared with what known mistakes give (only thread 0 of each block, only the first warp, no
grid-stride loop, the tail dropped...). Then one launch on the simulator, race-checked and traced
(``helpers.exercises.microscope``), finds a missing barrier or a plain ``*result += ...`` that
gave the right sum by luck, and counts the atomics: one a block.

``check_dot_kernel(kernel, simulated=None)`` does the same for a kernel already compiled.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Input, Output
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import observe, observed_mistakes

RTOL = 1e-5
"""Relative difference from NumPy's sum (float64) within which a float32 sum counts as right
(a correct kernel's is about 1e-7 on these sizes; one element missing of 1,000 is 1e-3)."""
GUARD = 16

# n not a power of two (nor a multiple of 4 or 32), grids with fewer threads than n (the
# grid-stride loop) and more (threads with nothing to do), 32, 3, 4 and 1 warps a block.
CASES = [dict(n=1_001, block=96, grid=2), dict(n=100_003, block=256, grid=8),
         dict(n=5_000, block=1024, grid=3), dict(n=77, block=128, grid=4),
         dict(n=1, block=32, grid=1), dict(observe=True, n=3_001, block=128, grid=3)]

BARRIER_HINT = ("after lane 0 of each warp writes warp_sums[warp], a __syncthreads() (reached "
                "by every thread of the block) before the first warp reads warp_sums")
ATOMIC_HINT = ("several blocks add to *result at once: *result += v loses updates; use "
               "atomicAdd(result, v), once a block")


def _refine(failure):
    """The exercise's hints for a race: a read-modify-write needs an atomic, any other race the
    barriers."""
    if failure.kind == "race":
        yield ATOMIC_HINT if failure.update else BARRIER_HINT


def _launch(case):
    """x and y hold NaN past n (a kernel that reads there gets NaN); *result starts at 0, and the
    guard after it is NaN."""
    n = case["n"]
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 1.5, n).astype(np.float32)
    y = rng.uniform(0.5, 1.5, n).astype(np.float32)
    return Launch((Input(x, GUARD, np.nan), Input(y, GUARD, np.nan),
                   Output(1, guard=GUARD, start=0.0), np.int32(n)),
                  block=(case["block"], 1, 1), grid=(case["grid"], 1),
                  model=x.astype(np.float64) * y)


def _where(case):
    launch = f"n = {case['n']:,}, block = ({case['block']}, 1, 1), grid = ({case['grid']}, 1)"
    return f"a launch on the simulator, race-checked and traced: {launch}" if case.get(
        "observe") else launch


def _detect(kernels, case):
    """The last case looks at the launch on the simulator only; the others launch on the
    notebook's backend."""
    if case.get("observe"):
        yield from _observed_mistakes(kernels)
    elif (run := (yield from EXERCISE.run(kernels, _launch(case)))) is not None:
        yield from _mistakes(kernels, case, run)


def _mistakes(kernels, case, run):
    """The mistakes one launch shows, the most telling first."""
    block, grid = case["block"], case["grid"]
    got, products = float(run.out.got[0]), run.model
    if run.out.past.size:
        yield ("the kernel wrote past *result (result[1] and on)",
               "the result is one float: only *result (result[0]) may be written")
    if np.isnan(got):  # a race explains a NaN too: the barrier before reading shared memory
        yield from observed_mistakes(_observe(kernels), _refine,
                                     wrong="the sum is NaN")
    yield from _no_sum(got)
    if _close(got, products.sum()):
        return
    yield from observed_mistakes(_observe(kernels), _refine,  # the likeliest
                                 wrong="the sum is wrong")                       # cause
    yield from _wrong_sum(got, products, block, grid)
    yield (f"the sum is {got:.7g}, NumPy's is {products.sum():.7g}",
           "each thread adds x[i] * y[i] over its i (grid-stride loop), warp_sum adds a "
           "warp's 32 values, and the first warp adds only the block's warps' sums "
           "(lane < blockDim.x / 32), the other lanes adding 0")


def _close(got, want):
    return bool(np.isfinite(got)) and abs(got - want) <= RTOL * abs(want)


def _no_sum(got):
    """A NaN (a read past n, or of shared memory no thread wrote), or nothing added."""
    if np.isnan(got):
        yield ("the result is NaN: the kernel read x or y past n (they hold NaN there), or an "
               "element of a __shared__ array that no thread of the block had written",
               "read x[i] and y[i] only while i < n, and of warp_sums only the blockDim.x / 32 "
               "sums the block's warps wrote (lane < blockDim.x / 32; the other lanes add 0)")
    if got == 0.0:
        yield ("nothing was added to *result: it is still 0",
               "at the end, one thread of each block adds the block's sum: "
               "atomicAdd(result, block_sum)")


def _wrong_sum(got, products, block, grid):
    """The mistakes whose wrong sum is ``got``: the sum of a known part of the products."""
    n = products.size
    want = products.sum()
    for part, problem, hint in _parts(products, block, grid):
        if _close(got, products[part].sum()):
            yield problem, hint
    if grid > 1 and _close(got, grid * want):
        yield (f"the sum is {grid} times the dot product: every block counted every element",
               "start at i = blockIdx.x * blockDim.x + threadIdx.x and step by "
               "blockDim.x * gridDim.x, so that the blocks share the elements out")
    counted = np.cumsum(products)
    m = int(np.searchsorted(counted, got))
    for k in (m - 1, m):   # within 1% of one product of a prefix's sum: not by chance
        if 0 < k < n - 1 and abs(got - counted[k]) <= 0.01 * products[k:k + 2].min():
            yield (f"the last {n - k - 1:,} of the {n:,} elements were not counted (the sum is "
                   f"that of x[0..{k}] . y[0..{k}])",
                   "the tail is dropped: the loop must run while i < n, for every i, whatever "
                   "n is (here not a power of two, nor a multiple of the block)")


def _parts(products, block, grid):
    """(which elements, problem, hint) of the known mistakes that count only some elements."""
    i = np.arange(products.size)
    thread = i % (block * grid) % block        # the thread of its block that handles element i
    yield ((i % block == 0) & (i < block * grid),
           "only thread 0 of each block counted, and only its own element (the stub as shipped)",
           "follow the TODOs: a grid-stride loop, warp_sum with __shfl_down_sync, the warps' "
           "sums in warp_sums, then one atomicAdd a block")
    yield (thread == 0,
           "only thread 0 of each block counted: warp_sum adds nothing (so neither a warp's "
           "lanes nor, through them, the block's warps are added together)",
           "warp_sum must add the 32 lanes' values: v += __shfl_down_sync(0xffffffff, v, "
           "offset) for offset = 16, 8, 4, 2, 1; then the warps' sums go through warp_sums")
    yield (thread % 32 == 0,
           "only lane 0 of each warp counted: warp_sum does not add the lanes",
           "in warp_sum: for (int offset = 16; offset > 0; offset /= 2) "
           "v += __shfl_down_sync(0xffffffff, v, offset);")
    yield (thread < 32,
           "only the first warp of each block counted",
           "lane 0 of every warp writes its sum to warp_sums[warp]; after a __syncthreads() the "
           "first warp adds warp_sums[0 .. blockDim.x / 32 - 1] with warp_sum")
    warps = block // 32
    whole = 1 << (warps.bit_length() - 1)      # the largest power of two up to warps
    if whole < warps:
        yield (thread < 32 * whole,
               f"the warps past the first {whole} of the {warps} in each block were not counted",
               f"a tree that halves the number of warp sums drops the odd ones when there is no "
               f"power of two of them (here {warps}): add them with warp_sum over the lanes "
               "below blockDim.x / 32, the other lanes adding 0, which works for any number of "
               "warps")
    if block * grid < products.size:
        yield (i < block * grid,
               f"only the first {block * grid:,} elements (one a thread) were counted",
               "the grid has fewer threads than elements: a grid-stride loop, "
               "for (int i = ...; i < n; i += blockDim.x * gridDim.x)")


def _observe(kernels):
    return observe(kernels, _launch(CASES[-1]))


def _observed_mistakes(kernels):
    """The right sum, by luck or not: the race check, shared memory read before it was written
    (on a GPU its garbage may be 0 by luck), then one atomic a block."""
    seen = _observe(kernels)
    yield from observed_mistakes(seen, _refine)
    if not seen.error and np.isnan(seen.outs[0].got[0]):
        yield ("on the simulator, which fills shared memory with NaN before each block (a GPU "
               "leaves whatever was there, which may be 0 by luck), the sum is NaN: the kernel "
               "reads an element of warp_sums that no warp of the block wrote",
               "of warp_sums read only the blockDim.x / 32 sums the block's warps wrote (lane < "
               "blockDim.x / 32; the other lanes add 0)")
    if seen.stats is not None and seen.stats.atomics.lanes > seen.blocks:
        yield (f"the kernel made {seen.stats.atomics.lanes:,} atomic additions to *result for "
               f"{seen.blocks} blocks (the simulator's trace counted them)",
               "add up the block first (warp_sum, then the warps' sums), and let one thread a "
               "block do atomicAdd(result, block_sum): one atomic a block")


EXERCISE = KernelExercise(
    stub="exercises/dot_product.cu", kernel="dot",
    signature="const float *x, const float *y, float *result, int n",
    cases=CASES, where=_where, detect=_detect, simulated="runs the race check",
    crash_hint="read x[i] and y[i] only for i < n, and write only *result",
    success=f"the dot product matches NumPy's ({len(CASES) - 1} sizes from 1 to 100,003, "
            "blocks of 1 to 32 warps, grids larger and smaller than n), no race, one atomic a "
            "block")

check_dot = EXERCISE.check_file          # (path="exercises/dot_product.cu")
check_dot_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same on a compiled
# kernel; on a GPU, simulated is the same source compiled by the simulator
