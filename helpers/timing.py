"""Timing kernels with CUDA events.

Why events, and not Python's ``time.perf_counter()``: a kernel launch returns as soon as the
launch is queued, before the GPU has done the work. An event is a marker placed in the GPU's
queue; the GPU stamps it with the time when it gets there. Recording one event before the launch
and one after, then waiting for the second, measures the kernel on the GPU's own clock, without
Python's overhead. (On the simulator the launch runs at once and the events read the CPU's clock,
so the same code works there too.)

Why batches: preparing a launch costs Python several microseconds, and a kernel may take only
a few. Timed one launch at a time, the GPU sits idle while Python prepares the launch, and that
gap lands between the events. ``batch=B`` queues B launches back to back between the two events
(the GPU runs one while Python prepares the next) and divides by B: the time of one launch on the
GPU. The course times every kernel this way.

Why several runs: the first launch of a kernel pays one-off costs (loading the module, warming
caches), and single runs are noisy. ``time_kernel`` runs a few warm-up launches, then reports the
median of ``repeat`` timed ones.

    from helpers.timing import time_kernel, bandwidth_gbs
    t = time_kernel(lambda: vadd(a, b, out, np.int32(n), block=(256, 1, 1), grid=(blocks, 1)),
                    batch=20)
    print(t)                                        # median 0.041 ms (min 0.040 ms, 10 runs)
    print(bandwidth_gbs(3 * n * 4, t.median_ms))    # GB/s: 2 arrays read, 1 written

Code on the CPU (NumPy, a Python loop) is timed the same way by ``time_cpu``: the median of
several runs after a warm-up, on the wall clock, around work whose arrays were allocated before
(``np.add(a, b, out=c)``), so that the memory allocator's time is not counted.

What to compare a bandwidth with: ``paper_bandwidth_gbs()`` is the device memory's peak on paper
(from its clock and bus width), which no program reaches; ``copy_bandwidth_gbs(nbytes)`` measures
the practical ceiling, a device-to-device copy timed like a kernel. What to compare an
arithmetic rate with: ``fma_gflops()``, the FMA ceiling (``bench/fma_peak.cu``, as notebook 08
measures it).

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


def time_cpu(work, repeat: int = 5, warmup: int = 1) -> Timing:
    """Time ``work()``, code that runs on the CPU, the way ``time_kernel`` times a kernel: the
    median of ``repeat`` runs on the wall clock (``time.perf_counter``), after ``warmup`` untimed
    runs. Allocate what ``work`` writes into before (``np.add(a, b, out=c)``, not ``a + b``), so
    that the time is the computation's and not the memory allocator's."""
    import time

    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    for _ in range(warmup):
        work()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        work()
        times.append((time.perf_counter() - t0) * 1e3)
    return Timing(times)


def paper_bandwidth_gbs() -> float | None:
    """The device memory's peak bandwidth on paper, in GB/s: two transfers a clock (double data
    rate) x the memory clock x the bus width, from the device's attributes. An upper bound no
    program reaches. None on the simulator, which has no memory bus of its own."""
    from helpers.backend import BACKEND, drv

    if BACKEND != "pycuda":
        return None
    dev = drv.Context.get_device()
    clock_khz = dev.get_attribute(drv.device_attribute.MEMORY_CLOCK_RATE)
    bus_bits = dev.get_attribute(drv.device_attribute.GLOBAL_MEMORY_BUS_WIDTH)
    return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9 if clock_khz and bus_bits else None


def copy_bandwidth_gbs(nbytes: int, repeat: int = 10, batch: int = 1) -> float:
    """The practical ceiling of memory bandwidth: GB/s of a device-to-device copy of ``nbytes``
    (``drv.memcpy_dtod``), counting each byte read and each byte written, timed like a kernel
    (``time_kernel`` with ``batch``). Take ``nbytes`` far larger than the GPU's L2 cache (tens of
    MB), or the copy measures the cache."""
    from helpers.backend import drv

    src, dst = drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)
    try:
        t = time_kernel(lambda: drv.memcpy_dtod(dst, src, nbytes), repeat=repeat, batch=batch)
    finally:
        src.free()
        dst.free()
    return bandwidth_gbs(2 * nbytes, t.median_ms)


def fma_gflops(repeat: int = 5) -> float:
    """The practical ceiling of arithmetic on a GPU: GFLOP/s of ``bench/fma_peak.cu`` (8
    independent chains of fused multiply-adds a thread, 4096 steps, 8 waves of full SMs: notebook
    08's measure, 63.6 TFLOP/s on an H200 in its stored run, 64.1 in bench/RESULTS.md), timed
    like a kernel. A GPU's figure: on the simulator it would time the CPU."""
    import numpy as np

    from helpers import course
    from helpers.backend import SourceModule, drv, gpuarray

    source = (course.root() / "bench" / "fma_peak.cu").read_text()
    kernel = SourceModule('#line 1 "fma_peak.cu"\n' + source).get_function("fma_peak")
    sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    threads, iters = 8 * 2048 * sms, 4096
    out = gpuarray.empty(threads, np.float32)
    t = time_kernel(lambda: kernel(out, np.int32(iters), np.float32(0.5), np.float32(1.0),
                                   block=(256, 1, 1), grid=(threads // 256, 1)),
                    repeat=repeat, batch=5)
    return 2 * 8 * threads * iters / (t.median_ms * 1e-3) / 1e9


def bandwidth_gbs(nbytes: int, ms: float) -> float:
    """Effective bandwidth in GB/s (10**9 bytes a second) of moving ``nbytes`` in ``ms`` ms."""
    return nbytes / (ms * 1e-3) / 1e9
