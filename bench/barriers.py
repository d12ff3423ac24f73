"""What a ``__syncthreads()`` costs each thread on the simulator, for bench/simulator.py.

Three ways side by side: a kernel rewritten into loops over its threads (the default where it can
be, helpers/sim/compile/split.py), and its threads as fibers (``-DSIM_NO_SPLIT``) with the inline
switch or with the call switch used before that (``-DSIM_SWITCH_CALL``: a function that pushes
the callee-saved registers, and the worker read from the thread's Frame; the rest of the runtime
is the same). Two measures for each: the marginal cost of a barrier in a loop (k = 8 against
k = 0), and the first launch of the reduction (bench/reduction.cu: 9 barriers a thread, work
included), on n threads in blocks of 256. Wall time (least of the rounds, on all workers and on
one) and CPU time per core (which a loaded machine's wall time hides).
"""

from __future__ import annotations

import time

import numpy as np

from bench import BENCH, read_source
from bench.simulator_kernels import REDUCE_BLOCK
from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

TARGET_BARRIER_NS = 5.0      # at most 5 ns a barrier per thread
BARRIERS = r"""
__global__ void barriers(int k) { for (int i = 0; i < k; i++) __syncthreads(); }
"""
METHODS = {"loops": [], "fibers, inline switch": ["-DSIM_NO_SPLIT"],
           "fibers, call switch": ["-DSIM_NO_SPLIT", "-DSIM_SWITCH_CALL"]}
DEFAULT, FIBERS = "loops", "fibers, inline switch"


def _launches(n):
    """(threads, (method, what) -> launch()): the loop at k = 0 and 8, and the reduction."""
    blocks = max(1, n // REDUCE_BLOCK)
    threads, shape = blocks * REDUCE_BLOCK, {"block": (REDUCE_BLOCK, 1, 1), "grid": (blocks, 1)}
    x, sums = drv.mem_alloc(4 * threads), drv.mem_alloc(4 * blocks)
    runs = {}
    for method, opts in METHODS.items():
        bars = SourceModule(BARRIERS, options=opts).get_function("barriers")
        red = SourceModule(read_source(BENCH / "reduction.cu"), options=opts)
        red = red.get_function("block_sum")
        runs[method, 0] = lambda f=bars: f(np.int32(0), **shape)
        runs[method, 8] = lambda f=bars: f(np.int32(8), **shape)
        runs[method, "reduction"] = lambda f=red: f(x, sums, np.int32(threads), **shape)
    return threads, runs


def measure(n, repeat, workers):
    """(threads, ns(method, what, workers, 0 for wall or 1 for CPU)): the least of 1 + repeat
    rounds (the first warms up too) of each launch, on ``workers`` workers and on one."""
    threads, runs = _launches(n)
    best = {}  # (method, run, workers) -> (wall s, CPU s), the least of the rounds
    for _ in range(1 + repeat):
        for (method, what), run in runs.items():
            for w in sorted({workers, 1}):
                with settings.changed(workers=w):
                    c0, t0 = time.process_time(), time.perf_counter()
                    run()
                    now = (time.perf_counter() - t0, time.process_time() - c0)
                old = best.get((method, what, w), now)
                best[method, what, w] = (min(old[0], now[0]), min(old[1], now[1]))

    def ns(method, what, w, i):
        if what == "reduction":
            return best[method, what, w][i] * 1e9 / (threads * 9)
        return (best[method, 8, w][i] - best[method, 0, w][i]) * 1e9 / (threads * 8)

    return threads, ns


def barrier_costs(n, repeat, workers, verdict):
    """Print what a barrier costs each thread; return the verdict line."""
    threads, ns = measure(n, repeat, workers)
    print(f"Barrier cost, ns a barrier per thread ({threads} threads in blocks of {REDUCE_BLOCK}, "
          f"least of {repeat}): wall on {workers} workers, wall on 1, CPU time per core")
    for method in METHODS:
        for what, label in (("loop", "a __syncthreads() alone"), ("reduction", "the reduction")):
            print(f"  {method:21} {label:24} {ns(method, what, workers, 0):7.2f} "
                  f"{ns(method, what, 1, 0):7.2f} {ns(method, what, 1, 1):7.2f}")
    new, fibers = (ns(m, "reduction", workers, 0) for m in (DEFAULT, FIBERS))
    alone = ns(DEFAULT, "loop", workers, 0)
    cpu_new, cpu_fibers = (ns(m, "reduction", 1, 1) for m in (DEFAULT, FIBERS))
    print(f"  the reduction's CPU time per barrier and thread: {cpu_fibers / cpu_new:.2f}x less "
          f"than with fibers; on {workers} idle cores its wall time would be about "
          f"{cpu_new / workers:.2f} ns")
    return (f"  at most {TARGET_BARRIER_NS:g} ns a barrier per thread on {workers} "
            f"workers: the reduction {new:.2f} ns (fibers: {fibers:.2f}) -> "
            f"{verdict(new <= TARGET_BARRIER_NS)}; a barrier alone {alone:.2f} ns -> "
            f"{verdict(alone <= TARGET_BARRIER_NS)} (CPU time per core, divided by the workers: "
            f"{cpu_new / workers:.2f} ns and {ns(DEFAULT, 'loop', 1, 1) / workers:.2f} ns)")
