"""The speed tier's measures on a GPU: a right kernel timed with events against the device's
ceilings, the copy's bandwidth or the FMA units' rate, both measured in the same run.

An exercise's ``fast`` rule (``KernelExercise``) yields what keeps a kernel from FAST and
returns its figures; on a GPU it hands its launch to ``bandwidth`` or ``arithmetic``
(``return (yield from speed.bandwidth(...))``). On the simulator the CPU's clock says nothing
about a GPU, so the rules read the simulator's trace there instead (sectors a request, bank
conflicts, requests a warp: ``helpers.exercises.microscope``). ``rule(timed, traced)`` makes the
rule of an exercise from its two halves.
"""

from __future__ import annotations

from helpers.exercises.common import device_arguments
from helpers.exercises.kernel import Kernels


def on_gpu() -> bool:
    """True where the notebook's backend is PyCUDA: the rules time with events there."""
    from helpers.backend import BACKEND

    return BACKEND == "pycuda"


def rule(timed, traced):
    """A ``fast`` rule (``KernelExercise``) that, on a GPU, times the kernel the notebook's
    backend compiled (``timed(kernel)``: ``bandwidth`` or ``arithmetic``) and, on the simulator,
    reads the trace (``traced(kernels)``, a ``kernel.Kernels``: ``microscope.observe``); each a
    generator that yields what keeps the kernel from FAST and returns its figures."""

    def fast(kernel):
        kernels = kernel if isinstance(kernel, Kernels) else Kernels(kernel, kernel)
        if on_gpu():
            return (yield from timed(kernels.device))
        return (yield from traced(kernels))

    return fast


def launched(kernel, launch):
    """``launch()`` for ``bandwidth`` or ``arithmetic``: ``kernel`` launched as ``launch`` (a
    ``kernel.Launch``) says, on arguments made on the GPU once (``common.device_arguments``)."""
    from helpers.backend import gpuarray

    args = device_arguments(launch.args, gpuarray)
    return lambda: kernel(*args, block=launch.block, grid=launch.grid, shared=launch.shared)


def bandwidth(launch, nbytes: int, target: float, hint: str, moved: str):
    """Time ``launch()`` (it moves ``nbytes``, each byte read or written counted once; ``moved``
    says which, in words) against a device-to-device copy of ``nbytes / 2``; yield
    ``(what is missing, hint)`` below ``target`` of the copy's bandwidth, return the figures."""
    from helpers.timing import bandwidth_gbs, copy_bandwidth_gbs, time_kernel

    t = time_kernel(launch, repeat=10, batch=10)
    copy = copy_bandwidth_gbs(nbytes // 2, repeat=10, batch=10)
    gbs = bandwidth_gbs(nbytes, t.median_ms)
    figures = (f"your kernel moved {gbs:,.0f} GB/s ({moved}), {gbs / copy:.0%} of a "
               f"device-to-device copy's {copy:,.0f} GB/s")
    if gbs < target * copy:
        yield f"{figures}, where FAST takes {target:.0%}", hint
    return figures


def arithmetic(launch, flops: int, target: float, hint: str):
    """Time ``launch()`` (``flops`` floating-point operations) against the FMA ceiling
    (``helpers.timing.fma_gflops``); yield ``(what is missing, hint)`` below ``target`` of it,
    return the figures."""
    from helpers.timing import fma_gflops, time_kernel

    t = time_kernel(launch, repeat=5)
    peak = fma_gflops()
    rate = flops / (t.median_ms * 1e-3) / 1e9
    figures = (f"your kernel ran {rate:,.0f} GFLOP/s, {rate / peak:.1%} of the FMA ceiling's "
               f"{peak:,.0f} GFLOP/s")
    if rate < target * peak:
        yield f"{figures}, where FAST takes {target:.0%}", hint
    return figures
