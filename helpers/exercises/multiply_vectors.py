"""Checker for the second exercise of notebook 01: ``cuda_src/exercises/multiply_vectors.cu``.

The kernel ``multiply_vectors(const float *a, const float *b, float *out)`` must write
``out[i] = a[i] * b[i]``, a zip of two vectors, launched with one thread per element in whole
blocks: n is a multiple of the block here, since the one idea of this step is the global index
``blockIdx.x * blockDim.x + threadIdx.x`` (spare threads and their guard are the next step's,
``scale_vector``). The blocks are not all 256 threads and the grids have odd numbers of blocks,
so a wrong index shows: each index mistake is recognised by the elements it writes. The last
case runs on the simulator, race-checked, whatever the backend: a kernel in which every thread
does the whole loop writes the right values, but each element many times.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises import load_index
from helpers.exercises.microscope import accesses_of, observe, written_twice
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import pick
from helpers.exercises.origin import Wrong
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.multiply_vectors_models import (INDEX_HINT, guard_of_the_blocks,
                                                        place_from_y, plus_sign_for_add,
                                                        two_a_thread, vectors_a_thread,
                                                        written_by, written_where)

# (threads per block, blocks): n = their product; last a small one on the simulator, race-checked
CASES = [(128, 7), (32, 13), (256, 3), (8, 3, "observe")]

STEP_HINT = "the block's size is blockDim.x, not a number: i = blockIdx.x * blockDim.x + threadIdx.x"
NO_GUARD = "; every thread has an element here, so no guard"
# Index mistakes: (i from block b and thread t, given block size and blocks; problem; hint)
FIRST_BLOCK = "only the first block's elements were written, element 0 to blockDim.x - 1: "
INDEXES = [
    (lambda b, t, size, blocks: t,
     FIRST_BLOCK + "i = threadIdx.x alone (it counts from 0 again in every block), a guard "
     "i < blockDim.x (only block 0 passes it) or blockIdx.y (0 in a 1-D grid) where blockIdx.x "
     "belongs", INDEX_HINT + NO_GUARD),
    (lambda b, t, size, blocks: b * size,
     "only the first element of each block was written: threadIdx.x is missing", INDEX_HINT),
    (lambda b, t, size, blocks: b * blocks + t,
     "the blocks' elements overlap: blockIdx.x * gridDim.x + threadIdx.x takes the number of "
     "blocks (gridDim.x) for the size of a block (blockDim.x)", INDEX_HINT),
    (lambda b, t, size, blocks: blocks * size + t,
     "every block wrote the same elements, out[n] to out[n + blockDim.x - 1], all past the end "
     "(gridDim.x * blockDim.x = n), and none of out[0] to out[n - 1]: i = gridDim.x * blockDim.x "
     "+ threadIdx.x takes the number of blocks (gridDim.x, the same in every block) where the "
     "block's own number, blockIdx.x, belongs", INDEX_HINT),
    (lambda b, t, size, blocks: b + t,
     "the blocks' elements overlap, each block starting one element after the one before: "
     "the block's start is blockIdx.x times 1, not times blockDim.x (blockIdx.x added alone, "
     "or multiplied by a size that is 1 here, as blockDim.y is in a 1-D launch)",
     "the block's first element is blockIdx.x * blockDim.x: " + INDEX_HINT),
    (lambda b, t, size, blocks: b * (size - 1) + t,
     "each block starts one element too early: blockIdx.x * (blockDim.x - 1) counts a block "
     "blockDim.x - 1 elements, so the blocks overlap and the last elements get no thread",
     "the block's first element is blockIdx.x * blockDim.x: " + INDEX_HINT),
    (lambda b, t, size, blocks: (b - 1) * size + t,
     "block 0 wrote before the start of out (out[-blockDim.x] to out[-1]) and the last block's "
     "elements were never written: the blocks are counted from 1, (blockIdx.x - 1) * "
     "blockDim.x, but blockIdx.x counts from 0", "block 0 starts at element 0: " + INDEX_HINT),
    (lambda b, t, size, blocks: b * (size + t),
     "the elements are spread out, past the end too, and block 0's threads all took element 0: "
     "i = blockIdx.x * (blockDim.x + threadIdx.x) multiplies the thread's place by the block's "
     "number as well", "only blockDim.x is multiplied, no parentheses: " + INDEX_HINT),
    (lambda b, t, size, blocks: b * 32 + t,
     "the blocks' elements overlap and the last ones got no thread: blockIdx.x * warpSize + "
     "threadIdx.x steps from one block to the next by a warp, 32 threads, but a block is "
     "blockDim.x threads", INDEX_HINT),
    (lambda b, t, size, blocks: b * 256 + t,
     "the index takes 256 for blockDim.x, but the blocks are not all 256 threads", INDEX_HINT),
    (lambda b, t, size, blocks: b * 1024 + t,
     "the index stepped 1024 elements from one block to the next (blockIdx.x * 1024, the "
     "largest block), but a block has blockDim.x threads: the elements between one block's and "
     "the next's got no thread, and the later blocks' went past the end", STEP_HINT),
    (lambda b, t, size, blocks: t + size,
     "every block wrote the same elements, blockDim.x to 2 * blockDim.x - 1, and no other: "
     "i = threadIdx.x + blockDim.x adds the block's size, where the block's first element, "
     "blockIdx.x * blockDim.x, belongs", INDEX_HINT),
    (lambda b, t, size, blocks: (b * size + t) % 256,
     "only elements 0 to 255 were written, none past them: i is held in an 8-bit unsigned "
     "char, which wraps to 0 past 255", "keep the index an int: int " + INDEX_HINT),
    (lambda b, t, size, blocks: (b * size + t + 128) % 256 - 128,
     "only elements -128 to 127 were written, before the start too: i is held in an 8-bit "
     "signed char, which holds only -128 to 127, so past 127 it wraps negative",
     "keep the index an int: int " + INDEX_HINT),
]
# The index shifted by one place, whose last thread (or first) writes past out's end (its start)
SHIFTS = [
    (lambda b, t, size, blocks: b * size + t + 1,
     "every thread took the element one place on: out[0] was never written and the last "
     "thread wrote out[n], past the end: i counts from 1 (+ 1 added to the index)",
     "thread 0 of block 0 takes element 0: " + INDEX_HINT + ", with nothing added"),
    (lambda b, t, size, blocks: b * size + t - 1,
     "every thread took the element one place back: thread 0 wrote out[-1], before the start, "
     "and out[n - 1] was never written (- 1 taken off the index)",
     "thread 0 of block 0 takes element 0: " + INDEX_HINT + ", with nothing taken off"),
]
# Value mistakes: (out from a, b and the block size; problem; hint)
VALUES = [(lambda a, b, size: a, "out equals a: b[i] is not used", "out[i] = a[i] * b[i]"),
          (lambda a, b, size: a * a, "out = a * a: b[i] is not used", "out[i] = a[i] * b[i]"),
          (lambda a, b, size: b * b, "out = b * b: a[i] is not used", "out[i] = a[i] * b[i]"),
          (lambda a, b, size: a + b, "out = a + b: the vectors are added",
           "multiply: out[i] = a[i] * b[i]"),
          (lambda a, b, size: a * np.resize(b[:size], a.size),
           "out[i] = a[i] * b[threadIdx.x]: every block multiplied by b[0] to b[blockDim.x - 1]",
           "read b[i], at the global index: out[i] = a[i] * b[i]"),
          (lambda a, b, size: np.resize(a[:size], a.size) * b,
           "out[i] = a[threadIdx.x] * b[i]: every block multiplied a[0] to a[blockDim.x - 1]",
           "read a[i], at the global index: out[i] = a[i] * b[i]")]


def _draw(rng):
    """The grader's cases: three other block sizes and odd numbers of blocks."""
    return [(pick(rng, (32, 64, 96, 128, 192, 256)), int(rng.integers(2, 16)) * 2 + 1)
            for _ in range(3)]


def _where(case):
    size, blocks = case[:2]
    return f"with n = {size * blocks}, block = ({size}, 1, 1), grid = ({blocks}, 1)"


def _launch(case):
    size, blocks = case[:2]
    rng = np.random.default_rng(size * blocks)
    a, b = (rng.uniform(-4, 4, size * blocks).astype(np.float32) for _ in "ab")
    spare = 256 * blocks        # room for an index that takes 256 for blockDim.x
    # and a block's room before each array, for blocks counted from 1
    return Launch((Input(a, spare, 1.0, size), Input(b, spare, 1.0, size),
                   Output(size * blocks, guard=spare, before=size)),
                  block=(size, 1, 1), grid=(blocks, 1), model=(a, b))


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), "each thread writes only its own element: "
                         f"{INDEX_HINT}, then out[i] = a[i] * b[i]; no loop over all of out")


def stored_at_thread(got, unwritten, want, size, name, reads_past_block_0):
    """Every block stored its results at [threadIdx.x]: only elements 0 to blockDim.x - 1 were
    written, and a block past 0 read its inputs past the first block's (``reads_past_block_0()``,
    ``read_past_block_0``'s answer), so i was right. The blocks race on those elements: which
    block's result stayed in each (block 0's everywhere, at times) tells nothing, the reads do
    (i = threadIdx.x alone reads the first block's inputs only). ``want`` is the right result, a
    whole number of blocks or fewer (the last block's spare threads store nothing)."""
    n = want.size
    if n <= size or unwritten[:size].any() or not unwritten[size:].all() or not reads_past_block_0():
        return
    blocks = np.full(-(-n // size) * size, np.nan, np.float32)
    blocks[:n] = want
    match = np.isclose(blocks.reshape(-1, size), got[:size], rtol=1e-6, atol=0)
    t = int(np.argmin(match[0])) if not match[0].all() else None
    b = int(np.argmax(match[:, t])) if t is not None and match[:, t].any() else None
    held = (f"{name}[{t}] holding block {b}'s result (for element {b * size + t})" if b is not None
            else "each holding the result of the block whose store landed last")
    yield (f"every block stored at {name}[threadIdx.x]: only {name}[0] to {name}[blockDim.x - 1] "
           f"were written, {held}; the index i is right, the store is not",
           f"store at the global index, {name}[i], where the result belongs")


def read_past_block_0(kernels, launch, size) -> bool:
    """Whether a block past 0 read an input past the first ``size`` elements, in a trace of
    ``launch`` on the simulator (``kernels``: the checked kernel and its simulated twin)."""
    kept = accesses_of(kernels, launch, f"reads, block of {size}", 4 * size * launch.grid[0])
    if kept is None:
        return False
    loads = kept[~kept["write"] & ~kept["shared"]]
    return bool(((loads["block"] > 0) & (loads["index"] >= size)).any())


def _seen(model, size, n):
    """The elements of ``model`` that the checker's buffers show: a block's room before out and
    the 256 a block after it (past them a GPU writes somewhere unseen)."""
    return model[(model >= -size) & (model < n + 256 * (n // size))]


def _mistakes(case, run):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    size, blocks = case
    n = size * blocks
    (a, b), got, written = run.model, run.out.got, ~run.out.unwritten
    every = np.concatenate([run.out.ahead, np.flatnonzero(written), run.out.past])
    yield from stored_at_thread(got, ~written, a * b, size, "out",
                                lambda: read_past_block_0(run.kernel, _launch((size, 3)), size))
    if blocks > 1 and np.array_equal(every, np.arange(size)):
        yield from first_block_only(run.kernel)
    yield from written_where(every, size, n)
    yield from two_a_thread(run, every, size, n)
    yield from place_from_y(run.kernel, every, size, n)
    yield from guard_of_the_blocks(run, every, size, n)
    for index, problem, hint in INDEXES + SHIFTS:
        if (blocks > 1 and not np.array_equal(np.flatnonzero(written), np.arange(n))
                and np.array_equal(every, _seen(written_by(index, size, blocks), size, n))):
            yield problem, hint
    if run.out.ahead.size:
        first = run.out.ahead[0]
        yield (f"out[{first}]{' to out[-1] were' if first < -1 else ' was'} written, before "
               "out[0]: some threads' index came out below 0", INDEX_HINT)
    if run.out.past.size:
        yield f"out[{run.out.past[0]}] and beyond were written, past out[n - 1]", INDEX_HINT
    if not written.any():
        yield "nothing was written: out still holds the NaN it was filled with", \
              "each thread should store its result: out[i] = a[i] * b[i]"
    if written[:-1].all() and not written[-1]:
        yield (f"only out[{n - 1}], the last element, was never written: a guard that stops one "
               "short (i < gridDim.x * blockDim.x - 1) leaves the last thread out",
               "the grid has exactly one thread for each element, and the last one writes the "
               "last element: no guard is needed here")
    if not written.all():
        first = int(np.argmin(written))
        yield (f"{int((~written).sum())} of {n} elements were never written (the first is "
               f"out[{first}])", INDEX_HINT)
    want = a * b
    right = np.isclose(got, want, rtol=1e-6, atol=0)
    if right.all():
        return
    for model, problem, hint in VALUES:
        if np.allclose(got, model(a, b, size), rtol=1e-6, atol=0):
            yield problem, hint
    yield from near.misses("out", got, want, close=near.within(1e-6, 0), index_hint=INDEX_HINT)
    for name, model in (("a", a[1:] * b[:-1]), ("b", a[:-1] * b[1:])):
        if np.allclose(got[:-1], model, rtol=1e-6, atol=0):
            yield (f"out[i] = {'a[i + 1] * b[i]' if name == 'a' else 'a[i] * b[i + 1]'}: {name} "
                   "was read one element on",
                   "read a, b and out at the same index: out[i] = a[i] * b[i]")
    yield from load_index.misread(run.kernel, _launch(case), {"a": "i", "b": "i"},
                                  load_index.WHOLE, "out[i] = a[i] * b[i]")
    first = int(np.argmin(right))
    yield Wrong(f"{int((~right).sum())} of {n} elements are wrong (the first is out[{first}] = "
                f"{got[first]}, expected {want[first]})", "each thread computes out[i] = a[i] * b[i]",
                "out", first)


GRID_PROBE = (8, (3, 2))
"""The launch (threads per block, grid) on the simulator, a 2-D grid, that tells apart the kernels
that write only the first block's elements in a 1-D grid: which block wrote which element."""
# What thread t of block (x, y) writes (None: nothing) in a launch of GRID_PROBE; problem; hint
FIRST_BLOCK_CAUSES = [
    (lambda x, y, t, size: y * size + t,
     FIRST_BLOCK + "the index takes blockIdx.y, which is 0 in a 1-D grid, where blockIdx.x "
     "belongs (on the simulator, a grid of 3 x 2 blocks of 8 threads: the blocks of row y = 1 "
     "wrote out[8] to out[15], every block the elements of its row, whatever its blockIdx.x)",
     "a 1-D grid numbers its blocks with blockIdx.x: " + INDEX_HINT),
    # the stub's own mistake: its verdict is the one notebook 01 stores from the H200's run
    (lambda x, y, t, size: t,
     FIRST_BLOCK + "i = threadIdx.x alone (it counts from 0 again in every block) or a guard "
     "i < blockDim.x (only block 0 passes it)", INDEX_HINT + NO_GUARD),
    (lambda x, y, t, size: t if x == 0 else None,
     FIRST_BLOCK + "a guard i < blockDim.x lets only block 0 through (on the simulator, a grid "
     "of 3 x 2 blocks of 8 threads: the blocks past 0 wrote nothing)",
     "every thread has an element here, so no guard: " + INDEX_HINT),
]


def first_block_only(kernels):
    """The mistake of a kernel that wrote only the first block's elements in a 1-D grid: in a
    launch of ``GRID_PROBE`` on the simulator (a 2-D grid), the elements each block wrote,
    compared with each cause's (blockIdx.y for blockIdx.x, threadIdx.x alone, a guard
    i < blockDim.x); nothing where none matches or the launch failed."""
    yield from plus_sign_for_add(kernels, FIRST_BLOCK)
    size, (gx, gy) = GRID_PROBE
    n = size * gx * gy
    ones = np.ones(n, np.float32)
    probe = Launch((Input(ones, 4 * n, 1.0), Input(ones, 4 * n, 1.0), Output(n, guard=4 * n)),
                   block=(size, 1, 1), grid=(gx, gy))
    kept = accesses_of(kernels, probe, "grid of 2-D", 4 * n)
    if kept is None:
        return
    stores = kept[kept["write"] & ~kept["shared"]]
    got = set(zip(stores["block"].tolist(), stores["thread"].tolist(), stores["index"].tolist()))
    for where, problem, hint in FIRST_BLOCK_CAUSES:
        model = {(x + y * gx, t, where(x, y, t, size)) for x in range(gx) for y in range(gy)
                 for t in range(size)}
        if got == {m for m in model if m[2] is not None}:
            yield problem, hint
            return


SWAP_PROBE = (8, 3)
"""The launch (threads per block, blocks) on the simulator that shows a swapped index: every
element a thread with threadIdx.x * blockDim.x + blockIdx.x stores lies within a room of 4 n."""


def _roles_swapped(kernels):
    """The mistake of a kernel whose index is threadIdx.x * blockDim.x + blockIdx.x, blockIdx.x
    and threadIdx.x in each other's places: in a launch of ``SWAP_PROBE`` on the simulator with
    room after each array, thread t of block b stored out[t * blockDim.x + b], and nowhere else
    (threadIdx.x * blockDim.x alone stores only every blockDim.x-th element)."""
    size, blocks = SWAP_PROBE
    n = size * blocks
    ones = np.ones(n, np.float32)
    probe = Launch((Input(ones, 4 * n, 1.0), Input(ones, 4 * n, 1.0), Output(n, guard=4 * n)),
                   block=(size, 1, 1), grid=(blocks, 1))
    seen = observe(kernels, probe, key="roles swapped", racecheck=False)
    if seen.error is not None:
        return
    out = seen.outs[0]
    every = np.concatenate([out.ahead, np.flatnonzero(~out.unwritten), out.past])
    if np.array_equal(every, written_by(lambda b, t, size, blocks: t * size + b, size, blocks)):
        yield (f"every thread took element threadIdx.x * blockDim.x + blockIdx.x: blockIdx.x and "
               f"threadIdx.x swapped roles, so thread t starts t whole blocks in and most threads "
               f"read and write far past the end of the arrays (on the simulator, {blocks} blocks "
               f"of {size} threads: thread t of block b stored out[{size} * t + b], thread 1 of "
               f"block 0 out[{size}] and thread 0 of block 1 out[1])",
               "blockIdx.x picks the block, and it is the one multiplied by the block's size; "
               "threadIdx.x, the thread's place in the block, is added: " + INDEX_HINT)


def _detect(kernels, case):
    """The case's mistakes; before the first, a swapped index (``_roles_swapped``), which
    crashes far past the arrays or shows only as elements written out of place."""
    found = _found(kernels, case)
    for mistake in found:
        yield from _roles_swapped(kernels)
        yield mistake
        yield from found


def _found(kernels, case):
    launch = _launch(case)
    run = yield from EXERCISE.run(kernels, launch)
    if run is not None:
        yield from traced_back(kernels, launch, _mistakes(case, run))


def _refine(failure):
    """An access past an array (each has a block's room before it) at element blockIdx.x *
    blockDim.x * threadIdx.x: the thread's place multiplied where it is added; before it, one at
    element 4 * i of a float4 a thread (``vectors_a_thread``)."""
    yield from vectors_a_thread(failure)
    err = failure.error
    if (failure.kind != "out of bounds" or err.offset is None or err.offset % 4
            or not failure.block or not err.block or not err.thread):
        return
    size, b, t = failure.block[0], err.block[0], err.thread[0]
    step = (err.offset // 4 - size - t) // b if b else 0
    if b and step in (512, 1024) and step != size and err.offset // 4 - size == b * step + t:
        yield (f"the kernel crashed: thread {t} of block {b} reached element {b * step + t} = "
               f"{b} * {step} + {t}, past the end: the "
               f"index stepped {step} elements from one block to the next (blockIdx.x * {step}), "
               f"but a block has blockDim.x = {size} threads", STEP_HINT)
    if b and t and err.offset // 4 - size == b * size * t:
        yield (f"thread {t} of block {b} reached element {b * size * t} = {b} * {size} * {t}: "
               "the index multiplied the block's first element, blockIdx.x * blockDim.x, by "
               f"threadIdx.x, where it adds the thread's place: {INDEX_HINT}")


EXERCISE = KernelExercise(
    stub="exercises/multiply_vectors.cu", kernel="multiply_vectors",
    signature="const float *a, const float *b, float *out",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, detect=_detect,
    crash_hint=INDEX_HINT, refine=_refine,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"out = a * b for every size tried ({len(CASES) - 1} grids of several blocks), each "
            "element written by one thread, and nothing written past the end")

check_multiply_vectors = EXERCISE.check_file          # (path="exercises/multiply_vectors.cu")
check_multiply_vectors_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
