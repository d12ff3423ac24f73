"""The pipeline checker's part that runs on a GPU only: does the learner's pipeline overlap its
copies and kernels?

``check_overlap(fn, kernel)`` times the same chunks run one after another in a single stream (the
baseline, with events around each stage), then the learner's function three times, and asks it to
beat the baseline by at least half the kernel time. Before that it runs the same mistake
detectors as the simulator's cases (``pipeline.diagnose``) on each run, with the timing mistakes
only a GPU shows: results not there yet when the function returned.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.pipeline_mistakes import (ATOL, BIG_CHUNKS, BIG_N, BIG_STREAMS, RTOL,
                                                 RecordingLaunch, diagnose, exception_problem,
                                                 make_launch, reference)
from helpers.exercises.verdict import Verdict, first_mistake, not_yet, passed


def one_stream_pipeline(h_in, h_out, n_chunks, stream, launch, events=None):
    """The same chunks, one after another, in one stream (the checker's baseline).

    With ``events`` (a list), appends (before-copy-in, after-copy-in, after-kernel,
    after-copy-out) events of every chunk to it.
    """
    from helpers.backend import drv

    n = h_in.size
    chunk = -(-n // n_chunks)
    d_in = drv.mem_alloc(chunk * h_in.itemsize)
    d_out = drv.mem_alloc(chunk * h_out.itemsize)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        ev = [drv.Event() for _ in range(4)] if events is not None else None
        if ev:
            ev[0].record(stream)
        drv.memcpy_htod_async(d_in, h_in[lo:hi], stream)
        if ev:
            ev[1].record(stream)
        launch(d_in, d_out, hi - lo, stream)
        if ev:
            ev[2].record(stream)
        drv.memcpy_dtoh_async(h_out[lo:hi], d_out, stream)
        if ev:
            ev[3].record(stream)
            events.append(ev)
    stream.synchronize()


def calibrate_work(kernel, d_in, d_out, count, target_ms, probe=(16, 64)) -> int:
    """The ``work`` at which ``kernel`` on ``count`` elements takes about ``target_ms``.

    Times two values of work and fits a straight line (a launch has a fixed cost too).
    """
    from helpers.timing import time_kernel

    times = []
    for w in probe:
        launch = make_launch(kernel, w)
        times.append(time_kernel(lambda: launch(d_in, d_out, count), repeat=5).median_ms)
    slope = max((times[1] - times[0]) / (probe[1] - probe[0]), 1e-9)
    return int(min(4000, max(1, round(probe[0] + (target_ms - times[0]) / slope))))


def _time_call(call) -> float:
    """Milliseconds from an event before ``call()`` to one after it, both in the default
    stream, which waits for the work of every other stream queued before it."""
    from helpers.backend import drv

    start, end = drv.Event(), drv.Event()
    drv.Context.synchronize()
    start.record()
    call()
    end.record()
    end.synchronize()
    return start.time_till(end)


def _work_like_copy(kernel, h_chunk) -> int:
    """The work at which the kernel on ``h_chunk.size`` elements takes about as long as copying
    ``h_chunk`` (page-locked) to the device."""
    from helpers.backend import drv
    from helpers.timing import time_kernel

    d_in = drv.mem_alloc(h_chunk.nbytes)
    d_out = drv.mem_alloc(h_chunk.nbytes)
    copy_ms = time_kernel(lambda: drv.memcpy_htod(d_in, h_chunk), repeat=5).median_ms
    return calibrate_work(kernel, d_in, d_out, h_chunk.size, copy_ms)


def check_overlap(fn, kernel) -> Verdict:
    """The verdict on ``fn``'s overlap, on a GPU, after its results were found right."""
    from helpers.backend import drv

    n, n_chunks = BIG_N, BIG_CHUNKS
    h_in = drv.pagelocked_empty(n, np.float32)
    h_in[:] = np.random.default_rng(5).random(n, dtype=np.float32)
    h_out = drv.pagelocked_empty(n, np.float32)
    work = _work_like_copy(kernel, h_in[:-(-n // n_chunks)])
    base = _baseline(kernel, work, h_in, h_out)
    if isinstance(base, Verdict):
        return base
    want, serial, (h2d, kern, d2h) = base
    where = f" (n = {n}, n_chunks = {n_chunks}, {BIG_STREAMS} streams)"
    times = []
    for _ in range(3):
        run = first_mistake(_timed_run, fn, kernel, work, h_in, h_out, want, times)
        if run is not None:
            return not_yet(run[0] + where, run[1])
    yours = min(times)
    figures = (f"your pipeline took {yours:.2f} ms; the same {n_chunks} chunks one after "
               f"another in one stream take {serial:.2f} ms (copies in {h2d:.2f} ms, kernels "
               f"{kern:.2f} ms, copies out {d2h:.2f} ms)")
    if yours > serial - 0.5 * kern:
        return not_yet(
            "the results are right, but the copies and kernels did not overlap: " + figures
            + where,
            "use drv.memcpy_htod_async / drv.memcpy_dtoh_async with the chunk's stream (the plain "
            "memcpy_htod waits for every stream), and synchronize once, after the loop, not "
            "after each chunk")
    return passed(f"the results match NumPy and the work overlapped: {figures}")


def _baseline(kernel, work, h_in, h_out):
    """``(right output, one-stream ms, (copy-in, kernel, copy-out ms))``, or a Verdict when the
    checker's own pipeline disagrees with NumPy."""
    from helpers.backend import drv

    launch = make_launch(kernel, work)
    stream = drv.Stream()
    events: list = []
    one_stream_pipeline(h_in, h_out, BIG_CHUNKS, stream, launch)  # warm-up
    one_stream_pipeline(h_in, h_out, BIG_CHUNKS, stream, launch, events)
    stages = tuple(sum(e[k].time_till(e[k + 1]) for e in events) for k in range(3))
    want = h_out.copy()
    sample = slice(0, h_in.size, 257)
    if not np.allclose(want[sample], reference(h_in[sample], work), rtol=RTOL, atol=ATOL):
        return not_yet("the checker's own one-stream pipeline disagrees with NumPy on this GPU",
                       "this is a bug in the checker or the kernel, not in your function: "
                       "report it")
    serial = min(_time_call(lambda: one_stream_pipeline(h_in, h_out, BIG_CHUNKS, stream, launch))
                 for _ in range(3))
    return want, serial, stages


def _timed_run(fn, kernel, work, h_in, h_out, want, times):
    """One timed run of ``fn``: appends its ms to ``times``; yields the mistakes it shows."""
    from helpers.backend import drv

    streams = [drv.Stream() for _ in range(BIG_STREAMS)]
    launch = RecordingLaunch(kernel, work)
    h_out.fill(np.nan)
    drv.Context.synchronize()
    start, end = drv.Event(), drv.Event()
    start.record()
    try:
        fn(h_in, h_out, BIG_CHUNKS, streams, launch)
        end.record()
        at_return = h_out.copy()
        end.synchronize()
        drv.Context.synchronize()
    except Exception as err:  # noqa: BLE001 - a learner's bug is reported, not raised
        yield exception_problem(err)
        return
    yield from diagnose(h_in, h_in, at_return, h_out, want, BIG_CHUNKS, streams, launch.calls,
                        True)
    times.append(start.time_till(end))
