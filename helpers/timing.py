"""Timing kernels with CUDA events.

Why events, and not Python's ``time.perf_counter()``: a kernel launch returns as soon as the
launch is queued, before the GPU has done the work. An event is a marker placed in the GPU's
queue; the GPU stamps it with the time when it gets there. Recording one event before the launch
and one after, then waiting for the second, measures the kernel on the GPU's own clock, without
Python's overhead. (On the simulator the launch runs at once and the events read the CPU's clock,
so the same code works there too.)

Why several runs: the first launch of a kernel pays one-off costs (loading the module, warming
caches), and single runs are noisy. ``time_kernel`` runs a few warm-up launches, then reports the
median of ``repeat`` timed ones.

    from helpers.timing import time_kernel, bandwidth_gbs
    t = time_kernel(lambda: vadd(a, b, out, np.int32(n), block=(256, 1, 1), grid=(blocks, 1)))
    print(t)                                        # median 0.041 ms (min 0.040 ms, 10 runs)
    print(bandwidth_gbs(3 * n * 4, t.median_ms))    # GB/s: 2 arrays read, 1 written

``helpers.backend`` is imported inside the functions, so importing this module is cheap.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass
class Timing:
    """The times of the timed runs, in milliseconds, with the usual summaries."""

    times_ms: list[float]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def min_ms(self) -> float:
        return min(self.times_ms)

    @property
    def max_ms(self) -> float:
        return max(self.times_ms)

    def __str__(self) -> str:
        return (f"median {self.median_ms:.3f} ms (min {self.min_ms:.3f} ms, "
                f"{len(self.times_ms)} runs)")


def time_kernel(launch, repeat: int = 10, warmup: int = 2, batch: int = 1) -> Timing:
    """Time ``launch()``, a callable with no arguments that launches a kernel (or a few).

    Runs ``warmup`` untimed launches, then ``repeat`` timed runs, each between a pair of recorded
    events, waiting for the end event each time. Returns a ``Timing`` of one launch.

    ``batch`` > 1 queues that many launches back to back in each timed run and divides by it:
    for kernels of a few microseconds, where the time Python takes to prepare a launch would
    otherwise land inside the measurement.
    """
    from helpers.backend import drv

    if repeat < 1 or batch < 1:
        raise ValueError("repeat and batch must be at least 1")
    for _ in range(warmup):
        launch()
    drv.Context.synchronize()

    start, end = drv.Event(), drv.Event()
    times = []
    for _ in range(repeat):
        start.record()
        for _ in range(batch):
            launch()
        end.record()
        end.synchronize()          # wait until the GPU has passed the end event
        times.append(start.time_till(end) / batch)
    return Timing(times)


def bandwidth_gbs(nbytes: int, ms: float) -> float:
    """Effective bandwidth in GB/s (10**9 bytes a second) of moving ``nbytes`` in ``ms`` ms."""
    return nbytes / (ms * 1e-3) / 1e9
