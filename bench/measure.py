"""Timing, and the facts about the machine that go with a figure (its load, the versions).

Two clocks: code on the CPU is timed by the wall clock (``wall_ms``, ``time_cpu``); kernels and
GPU libraries by CUDA events around batches of back-to-back launches (``time_batched``), so that
Python's launch overhead is not counted. On a shared machine other work slows everything, so a
benchmark prints the load average next to its figures.
"""

from __future__ import annotations

import os
import sys
import time

from helpers.timing import Timing, time_kernel


def wall_ms(fn) -> float:
    """Wall-clock ms of one call of fn()."""
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def time_cpu(fn, repeat, budget_s=3.0) -> Timing:
    """Median wall-clock ms of fn() (code on the CPU), after one warm-up run; stops early once
    the runs have taken ``budget_s``."""
    spent = wall_ms(fn) / 1e3
    times = []
    while len(times) < repeat and (not times or spent < budget_s):
        times.append(wall_ms(fn))
        spent += times[-1] / 1e3
    return Timing(times)


def time_batched(launch, repeat, target_ms, sync=None):
    """(Timing of one launch in ms, batch size): median over ``repeat`` batches of back-to-back
    launches, each batch between two events (helpers.timing.time_kernel) and divided by its size.
    The batch is sized to last about ``target_ms`` (at most 100 launches; 0: one launch).

    ``sync`` (a peer library's synchronize) ends each batch, so that work a library might queue
    on a stream of its own is inside the end event too.
    """
    def batch_of(k):
        def run():
            for _ in range(k):
                launch()
            if sync:
                sync()
        return run

    first = time_kernel(batch_of(1), repeat=1, warmup=1).median_ms
    batch = max(1, min(100, round(target_ms / max(first, 1e-6))))
    if first * batch > 300:                  # a slow peer: a few runs are enough
        repeat = min(repeat, 3)
    t = time_kernel(batch_of(batch), repeat=repeat, warmup=0)
    return Timing([ms / batch for ms in t.times_ms]), batch


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as text."""
    try:
        return "{:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg())
    except OSError:
        return "unknown"


# (name shown, distribution): the libraries whose version goes with a figure.
LIBRARIES = (("NumPy", "numpy"), ("CuPy", "cupy-cuda13x"), ("CuPy", "cupy"), ("PyTorch", "torch"),
             ("PyCUDA", "pycuda"), ("Numba", "numba"), ("numba-cuda", "numba-cuda"))


def versions() -> list[str]:
    """Python's and the installed libraries' versions, for the record (without importing them)."""
    from importlib.metadata import PackageNotFoundError, version

    found = [f"Python {sys.version.split()[0]}"]
    for name, dist in LIBRARIES:
        try:
            found.append(f"{name} {version(dist)}")
        except PackageNotFoundError:
            pass
    return found
