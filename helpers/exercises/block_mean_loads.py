"""The load into the tile of notebook 09's block mean, seen in the simulator's trace of a launch
(``helpers.exercises.block_mean``): a load that indexed x by the thread's place in its block
(``load_by_thread``), and one clamped to n, where n - 1 belongs, which reads x[n], one past x's
end, in every thread past it (``clamped_to_n``); and the load of the block's mean from means
above the barrier meant to hold it back until thread 0 stored it (``mean_read_above_barrier``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.block_mean_models import BLOCK
from helpers.exercises.common import Output
from helpers.exercises.kernel import Launch
from helpers.exercises.microscope import accesses_of, barrier_lines
from helpers.exercises.failure import line_number


def load_by_thread(run, got, x, n):
    """Every block's mean that of block 0's first count elements, and a trace of the launch on
    the simulator shows block 1's threads reading x at their place in the block, x[t], not at
    their element's index, x[BLOCK + t]: the load into the tile indexed x by t, so each block
    loaded block 0's elements (a sum that read x[k] itself gives the same means, but its
    block 1 loads x[BLOCK + t])."""
    blocks = len(got)
    counts = np.minimum(BLOCK, n - np.arange(blocks) * BLOCK)
    block_0 = np.array([x[:c].astype(np.float64).mean() for c in counts], np.float32)
    if blocks < 2 or not np.allclose(got, block_0, rtol=1e-4, atol=1e-5):
        return
    kept = accesses_of(run.kernel, run.launch, "loads of block 1", 4 * BLOCK * blocks + 4 * BLOCK)
    if kept is None:
        return
    reads = kept[(kept["array"] == "x") & ~kept["write"] & (kept["block"] == 1) &
                 (kept["thread"] > 0)]
    at_t = reads[reads["index"] == reads["thread"]]
    if not len(at_t) or (reads["index"][reads["line"] == at_t["line"][0]] >= BLOCK).any():
        return
    t, line = int(at_t["thread"][0]), int(at_t["line"][0])
    yield (f"means[1] = {got[1]}, the mean of block 0's elements x[0] to x[{counts[1] - 1}]: "
           f"block 1's thread {t} loaded x[{t}] into tile[{t}] (line {line}), not x[{BLOCK + t}]: "
           "the load indexed x by t, the thread's place in its block, so every block loaded "
           "block 0's elements",
           "load the block's own element, x[i]: tile[t] = i < n ? x[i] : 0.0f, i = blockIdx.x * "
           "BLOCK + t")


def clamped_to_n(kernels, n):
    """(what happened, hint) where, in a launch of n elements on the simulator with room for a
    block after x, the threads of the last block whose i is n or more all read x[n], and no
    thread read further: the load clamped i to n (x[min(i, n)]), one past x's last element,
    where n - 1 belongs. None otherwise."""
    if not n % BLOCK:
        return None
    blocks, first = -(-n // BLOCK), n // BLOCK * BLOCK
    x = np.random.default_rng(n).random(n + BLOCK, dtype=np.float32)
    launch = Launch((x, Output(n), Output(blocks), np.int32(n)), block=(BLOCK, 1, 1),
                    grid=(blocks, 1), model=x)
    kept = accesses_of(kernels, launch, f"reads past x[{n - 1}]", 8 * BLOCK * blocks)
    if kept is None:
        return None
    past = kept[(kept["array"] == "x") & ~kept["write"] & (kept["index"] >= n)]
    if (past["index"] != n).any() or (past["block"] != blocks - 1).any() or \
            sorted(set(past["thread"])) != list(range(n - first, BLOCK)):
        return None
    return (f"the load clamps i to n, not n - 1: threads {n - first} to {BLOCK - 1} of the last "
            f"block (block {blocks - 1}, i = {n} to {first + BLOCK - 1}) all read x[{n}] = x[n] "
            f"(line {int(past['line'][0])}: the simulator's trace, with room after x), one "
            f"past x's last element, x[n - 1]: x has n = {n} elements, x[0] to x[{n - 1}]",
            "clamp to the last element, x[min(i, n - 1)], or load 0.0f past it: tile[t] = i < n "
            "? x[i] : 0.0f")


def mean_read_above_barrier(kernels, err):
    """(what happened, hint) where the race check (``err``) found, in one block, thread 0's store
    of means[b] and another thread's read of it on a later line, with no __syncthreads() between
    the two lines in the kernel's text and one below the read: the read sits above the barrier
    that was to hold it back. None otherwise."""
    if getattr(err, "kind", None) != "race" or err.space != "global" or \
            err.array != "means" or err.first.block != err.second.block:
        return None
    store, load = sorted((err.first, err.second), key=lambda a: not a.writes)
    if not store.writes or not load.reads:
        return None
    stored, read = (line_number(a.line) for a in (store, load))
    barriers = barrier_lines(kernels)
    below = [b for b in barriers if b > read]
    if not stored < read or not below or any(stored < b < read for b in barriers):
        return None
    return (f"a data race on means[{err.element}] (global memory): {store.who} stores the block's "
            f"mean at line {stored}, and {load.who} reads it at line {read}, above the "
            f"__syncthreads() at line {below[0]}: that barrier comes after the read, so it does "
            f"not hold the read back until thread 0 has stored the mean (the race check: a "
            f"{err.hazard} hazard)", f"move the read of means[blockIdx.x] below the "
            f"__syncthreads() (line {below[0]}): read it in y[i] = x[i] - means[blockIdx.x], or "
            "into a variable declared after the barrier")
