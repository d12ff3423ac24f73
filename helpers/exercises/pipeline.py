"""Checker for the exercise in notebook 05 (section 6 states it in full): the learner's Python
function ``my_pipeline(h_in, h_out, n_chunks, streams, launch)`` streams ``h_in`` through the
chapter's kernel into ``h_out`` in chunks, chunk c on ``streams[c % len(streams)]``, with one
chunk-sized input and output device buffer per stream, and returns once ``h_out`` holds every
result. ``launch(d_in, d_out, count, stream)`` is handed over by the checker and records its
calls, which tells which streams and buffers were used.

``check_pipeline(my_pipeline)`` runs it on awkward sizes and names the first mistake the run shows
(``pipeline_mistakes`` holds the sizes, the NumPy model and the detectors): on both backends,
since the simulator, like a GPU, runs work queued on a stream only when the host waits for it,
and a function that returns early leaves results missing there too. On the simulator, where that
work runs only when the host waits, ``launch`` also notes whether the host had waited for the
chunk before (a synchronize inside the loop, a copy without _async): such a pipeline cannot
overlap on a GPU, and fails there too. How much copies and kernels overlapped only a GPU's timing
can tell (``pipeline_overlap``); on the simulator, which runs the streams' work one operation at a
time, the verdict says plainly that this was not checked, and how to check it.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.function import check_function
from helpers.exercises.hidden import awkward
from helpers.exercises.pipeline_mistakes import (CASES, KERNEL_FILE, KERNEL_NAME, WORK_SMALL,
                                                 mistakes, reference, where)
from helpers.exercises.pipeline_overlap import check_overlap
from helpers.exercises.verdict import Verdict, check_cases, not_yet, passed

SIMULATOR_SUCCESS = (
    f"the results match NumPy in all {len(CASES)} cases (n not a multiple of n_chunks), "
    "one kernel launch a chunk, spread over the streams, each stream with its own "
    "chunk-sized buffers, and every chunk queued before your function waited, which is what "
    "lets copies and kernels overlap on a GPU. How much they overlap was NOT checked: the "
    "simulator runs the streams' work one operation at a time, so only a GPU's timing can "
    "tell; run this check on a machine with a GPU to see it")


def load_kernel():
    """Compile ``cuda_src/streams.cu`` and return ``iterate_sin``."""
    from helpers.backend import compile_cu

    return compile_cu(KERNEL_FILE).get_function(KERNEL_NAME)


def draw(rng):
    """The grader's cases (``helpers.exercises.hidden``): two more, each n not a multiple of
    n_chunks, and more chunks than streams."""
    drawn = []
    for low, high in ((1_000, 20_000), (20_000, 120_000)):
        n_chunks = int(rng.integers(3, 9))
        drawn.append((awkward(rng, n_chunks, low, high), n_chunks,
                      int(rng.integers(2, n_chunks))))
    return drawn


def check_pipeline(fn, hidden: int | None = None) -> Verdict:
    """Run ``fn(h_in, h_out, n_chunks, streams, launch)`` on a few sizes (and the ones drawn
    from the seed ``hidden``, when given); print and return the Verdict."""
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
    verdict = check_cases(cases, lambda case: _mistakes(fn, kernel, case, on_gpu), where,
                          hidden_cases.success(SIMULATOR_SUCCESS, CASES, cases))
    if not (verdict and on_gpu):
        return verdict
    overlap = check_overlap(fn, kernel)   # a pass names the grader's cases, as on the simulator
    return passed(hidden_cases.success(overlap.problem, CASES, cases)) if overlap else overlap


def _mistakes(fn, kernel, case, on_gpu):
    """Run fn once on fresh buffers of the case's size; yield each mistake seen, in order."""
    from helpers.backend import drv

    n = case[0]
    h_in, h_out = drv.pagelocked_empty(n, np.float32), drv.pagelocked_empty(n, np.float32)
    h_in[:] = np.random.default_rng(n).random(n, dtype=np.float32)
    yield from mistakes(fn, case, kernel, WORK_SMALL, h_in, h_out, reference(h_in, WORK_SMALL),
                        on_gpu)
