"""Checker for the exercise in notebook 05: the overlapped copy / compute / copy pipeline.

The exercise is a Python function, not a kernel. The learner writes

    def my_pipeline(h_in, h_out, n_chunks, streams, launch): ...

- ``h_in``, ``h_out``: page-locked float32 arrays of the same length ``n`` (not a multiple of
  ``n_chunks``); ``h_out`` comes pre-filled with NaN.
- ``streams``: a list of ``drv.Stream``; chunk ``c`` goes on ``streams[c % len(streams)]``.
- ``launch(d_in, d_out, count, stream)`` queues the chapter's kernel (``iterate_sin`` from
  ``cuda_src/streams.cu``) on ``count`` elements: it reads device memory at ``d_in`` and writes at
  ``d_out`` (a ``DeviceAllocation``, a GPUArray or an int address).
- Device memory is short: at most one input and one output buffer of one chunk per stream,
  allocated once and reused by that stream's chunks.
- It returns once ``h_out`` holds every result.

``check_pipeline(my_pipeline)`` runs it on a few awkward sizes and checks, on both backends:
the results against NumPy, that ``h_in`` is untouched, that ``launch`` was called once a chunk
on the given streams (more than one of them), that no two streams share a device buffer, and
that the device memory the kernels touched fits the budget, and that the function did not return
before its results had arrived (the simulator, like a GPU, runs work queued on a stream only
when the host waits for it). The ``launch`` it hands over records its arguments for that. On a
GPU it also checks, from events, that copies and kernels overlapped: the function must beat the
same chunks run one after another in a single stream by at least half the kernel time. The
simulator runs the streams' work one operation at a time, so there the checker says plainly
that it cannot check overlap.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.pipeline_mistakes import (CASES, KERNEL_FILE, KERNEL_NAME, WORK_SMALL,
                                                 RecordingLaunch, diagnose, exception_problem,
                                                 reference)
from helpers.exercises.pipeline_overlap import check_overlap
from helpers.exercises.verdict import Verdict, check_cases, not_yet


def load_kernel():
    """Compile ``cuda_src/streams.cu`` and return ``iterate_sin``."""
    from helpers.backend import compile_cu

    return compile_cu(KERNEL_FILE).get_function(KERNEL_NAME)


def check_pipeline(fn) -> Verdict:
    """Run ``fn(h_in, h_out, n_chunks, streams, launch)`` on a few sizes; print and return the
    Verdict."""
    return _verdict(fn).report()


def _verdict(fn) -> Verdict:
    from helpers.backend import BACKEND

    if not callable(fn):
        return not_yet(f"check_pipeline needs your function, got {type(fn).__name__}",
                       "call check_pipeline(my_pipeline), without parentheses after my_pipeline")
    try:
        kernel = load_kernel()
    except Exception as err:  # noqa: BLE001 - the course's kernel itself: report, don't raise
        return not_yet(f"cannot compile cuda_src/{KERNEL_FILE}: {err}",
                       f"restore cuda_src/{KERNEL_FILE} (the exercise does not change it)")
    on_gpu = BACKEND != "simulator"
    verdict = check_cases(CASES, lambda case: _mistakes(fn, kernel, case, on_gpu), _where,
                          SIMULATOR_SUCCESS)
    if not verdict or not on_gpu:
        return verdict
    return check_overlap(fn, kernel)


SIMULATOR_SUCCESS = (
    f"the results match NumPy in all {len(CASES)} cases (n not a multiple of n_chunks), "
    "one kernel launch a chunk, spread over the streams, each stream with its own "
    "chunk-sized buffers. Overlap was NOT checked: the simulator runs the streams' work "
    "one operation at a time, in the order it was queued, so nothing overlaps there; "
    "run this check on a GPU to see whether your copies and kernels overlap")


def _where(case):
    n, n_chunks, n_streams = case
    return f"n = {n}, n_chunks = {n_chunks}, {n_streams} streams"


def _mistakes(fn, kernel, case, on_gpu):
    """Run fn once on fresh buffers; yield (problem, hint) for each mistake seen, in order."""
    from helpers.backend import drv

    n, n_chunks, n_streams = case
    h_in = drv.pagelocked_empty(n, np.float32)
    h_in[:] = np.random.default_rng(n).random(n, dtype=np.float32)
    streams = [drv.Stream() for _ in range(n_streams)]
    launch = RecordingLaunch(kernel, WORK_SMALL)
    h_in_before = h_in.copy()
    raised, at_return, got = run_learner(fn, h_in, n_chunks, streams, launch)
    if raised:
        yield raised
        return
    yield from diagnose(h_in, h_in_before, at_return, got, reference(h_in, WORK_SMALL),
                        n_chunks, streams, launch.calls, on_gpu)


def run_learner(fn, h_in, n_chunks, streams, launch):
    """Run ``fn`` into a NaN-filled ``h_out``: ``(None, h_out as it was at return, h_out after
    synchronizing)``, or ``((problem, hint), None, None)`` when it raised."""
    from helpers.backend import drv

    h_out = drv.pagelocked_empty(h_in.size, np.float32)
    h_out.fill(np.nan)
    drv.Context.synchronize()
    try:
        fn(h_in, h_out, n_chunks, streams, launch)
        at_return = h_out.copy()  # before any synchronization by the checker
        drv.Context.synchronize()
    except Exception as err:  # noqa: BLE001 - a learner's bug is reported, not raised
        return exception_problem(err), None, None
    return None, at_return, h_out
