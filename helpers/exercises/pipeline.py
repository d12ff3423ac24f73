"""Checker for notebook 05's pipeline (section 6 states it): ``my_pipeline(h_in, h_out, n_chunks,
streams, launch)`` streams h_in through the chapter's kernel into h_out, chunk c on
``streams[c % len(streams)]``. ``pipeline_mistakes`` holds the sizes, model and detectors, for
both backends. Only a GPU's timing tells the overlap (``check_overlap``: the learner's function,
run three times through the same detectors, must beat the same chunks run one after another in
one stream by half the kernel time); on the simulator the verdict says it was not checked."""

from __future__ import annotations

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.function import check_function
from helpers.exercises.hidden import awkward
from helpers.exercises.pipeline_mistakes import (ATOL, CASES, KERNEL_FILE, KERNEL_NAME,
                                                 OVERLAP_HINT, RTOL, make_launch, mistakes,
                                                 pagelocked, reference, where)
from helpers.exercises.verdict import Verdict, check_cases, not_yet, passed
from helpers.workload import share

SIMULATOR_SUCCESS = (
    f"the results match NumPy in all {len(CASES)} cases (n not a multiple of n_chunks), "
    "one kernel launch a chunk, spread over the streams, each stream with its own "
    "chunk-sized buffers, and every chunk queued before your function waited, which is what "
    "lets copies and kernels overlap on a GPU. How much they overlap was NOT checked: the "
    "simulator runs the streams' work one operation at a time, so only a GPU's timing can "
    "tell; run this check on a machine with a GPU to see it")
# The overlap case: 128 MiB in, 128 MiB out, 8 chunks of 16 MiB over 4 streams.
BIG_N = share(2**25, minimum=2**23) + 12_345  # a class sharing the GPU: its share
BIG_CHUNKS, BIG_STREAMS = 8, 4


def load_kernel():
    """Compile ``cuda_src/streams.cu`` and return ``iterate_sin``."""
    from helpers.backend import compile_cu

    return compile_cu(KERNEL_FILE).get_function(KERNEL_NAME)


def draw(rng):
    """The grader's cases: two more, n not a multiple of n_chunks, more chunks than streams."""
    return [(awkward(rng, k, low, high), k, int(rng.integers(2, k)))
            for low, high in ((1_000, 20_000), (20_000, 120_000)) for k in [int(rng.integers(3, 9))]]


def check_pipeline(fn, hidden: int | None = None) -> Verdict:
    """Run ``fn(h_in, h_out, n_chunks, streams, launch)`` on a few sizes (and those drawn from
    the seed ``hidden``); print and return the Verdict."""
    cases = hidden_cases.cases(CASES, draw, hidden)
    return check_function(fn, "my_pipeline", lambda fn: _verdict(fn, cases))


def _verdict(fn, cases) -> Verdict:
    from helpers.backend import BACKEND

    try:
        kernel = load_kernel()
    except Exception as err:  # noqa: BLE001 - the course's kernel itself: report, don't raise
        return not_yet(f"cannot compile cuda_src/{KERNEL_FILE}: {err}",
                       f"restore cuda_src/{KERNEL_FILE} (the exercise does not change it)")
    on_gpu = BACKEND != "simulator"
    verdict = check_cases(cases, lambda case: mistakes(fn, case, kernel, on_gpu), where,
                          hidden_cases.success(SIMULATOR_SUCCESS, CASES, cases))
    if not (verdict and on_gpu):
        return verdict
    overlap = check_overlap(fn, kernel)   # a pass names the grader's cases, as on the simulator
    return passed(hidden_cases.success(overlap.problem, CASES, cases)) if overlap else overlap


def check_overlap(fn, kernel) -> Verdict:
    """The verdict on ``fn``'s overlap, on a GPU, after its results were found right."""
    case, (h_in, h_out) = (BIG_N, BIG_CHUNKS, BIG_STREAMS), pagelocked(BIG_N, seed=5)
    work = _work_like_copy(kernel, h_in[:-(-BIG_N // BIG_CHUNKS)])
    base = _baseline(kernel, work, h_in, h_out)
    if isinstance(base, Verdict):
        return base
    want, serial, (h2d, kern, d2h) = base
    times = []
    verdict = check_cases([case] * 3, lambda c: mistakes(fn, c, kernel, True, work, (h_in, h_out),
                                                         want, times), where, "")
    if not verdict:
        return verdict
    figures = (f"your pipeline took {min(times):.2f} ms; the same {BIG_CHUNKS} chunks one after "
               f"another in one stream take {serial:.2f} ms (copies in {h2d:.2f} ms, kernels "
               f"{kern:.2f} ms, copies out {d2h:.2f} ms)")
    if min(times) > serial - 0.5 * kern:
        return not_yet("the results are right, but the copies and kernels did not overlap: "
                       f"{figures} ({where(case)})", OVERLAP_HINT)
    return passed(f"the results match NumPy and the work overlapped: {figures}")


def one_stream_pipeline(h_in, h_out, n_chunks, stream, launch) -> list:
    """Run the same chunks one after another in one stream (the checker's baseline); return the
    events of every chunk: before its copy in, after it, after its kernel, after its copy out."""
    from helpers.backend import drv

    n, chunk = h_in.size, -(-h_in.size // n_chunks)
    d_in, d_out = drv.mem_alloc(chunk * h_in.itemsize), drv.mem_alloc(chunk * h_out.itemsize)
    events = []
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        marks = [drv.Event().record(stream)]
        drv.memcpy_htod_async(d_in, h_in[lo:hi], stream)
        marks.append(drv.Event().record(stream))
        launch(d_in, d_out, hi - lo, stream)
        marks.append(drv.Event().record(stream))
        drv.memcpy_dtoh_async(h_out[lo:hi], d_out, stream)
        events.append([*marks, drv.Event().record(stream)])
    stream.synchronize()
    return events


def _baseline(kernel, work, h_in, h_out):
    """``(right output, one-stream ms, (copy-in, kernel, copy-out ms))``, or a Verdict when the
    checker's own pipeline disagrees with NumPy."""
    from helpers.backend import drv
    from helpers.timing import time_kernel

    launch, stream, runs = make_launch(kernel, work), drv.Stream(), []
    # time_kernel's events are in the default stream, which waits for every other stream.
    serial = time_kernel(lambda: runs.append(one_stream_pipeline(
        h_in, h_out, BIG_CHUNKS, stream, launch)), repeat=3, warmup=1).min_ms
    stages = tuple(sum(e[k].time_till(e[k + 1]) for e in runs[-1]) for k in range(3))
    sample = slice(0, h_in.size, 257)
    if not np.allclose(h_out[sample], reference(h_in[sample], work), rtol=RTOL, atol=ATOL):
        return not_yet("the checker's own one-stream pipeline disagrees with NumPy on this GPU",
                       "this is a bug in the checker or the kernel, not in your function: "
                       "report it")
    return h_out.copy(), serial, stages


def _work_like_copy(kernel, h_chunk, probe=(16, 64)) -> int:
    """The ``work`` at which the kernel on ``h_chunk.size`` elements takes about as long as
    copying ``h_chunk`` (page-locked) to the device: two values of work are timed and a straight
    line fitted through them (a launch has a fixed cost too)."""
    from helpers.backend import drv
    from helpers.timing import time_kernel

    d_in, d_out = drv.mem_alloc(h_chunk.nbytes), drv.mem_alloc(h_chunk.nbytes)
    copy_ms = time_kernel(lambda: drv.memcpy_htod(d_in, h_chunk), repeat=5).median_ms
    times = []
    for w in probe:
        launch = make_launch(kernel, w)
        times.append(time_kernel(lambda: launch(d_in, d_out, h_chunk.size), repeat=5).median_ms)
    slope = max((times[1] - times[0]) / (probe[1] - probe[0]), 1e-9)
    return int(min(4000, max(1, round(probe[0] + (copy_ms - times[0]) / slope))))
