"""Checker for notebook 05's pipeline (section 6 states it): ``my_pipeline(h_in, h_out, n_chunks,
streams, launch)`` streams h_in through the chapter's kernel into h_out, chunk c on
``streams[c % len(streams)]``. ``pipeline_mistakes`` holds the sizes, model and detectors, for
both backends; only a GPU's timing tells the overlap (``pipeline_overlap``), and on the simulator
the verdict says it was not checked."""

from __future__ import annotations

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.function import check_function
from helpers.exercises.hidden import awkward
from helpers.exercises.pipeline_mistakes import CASES, KERNEL_FILE, KERNEL_NAME, mistakes, where
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
    """The grader's cases: two more, n not a multiple of n_chunks, more chunks than streams."""
    drawn = []
    for low, high in ((1_000, 20_000), (20_000, 120_000)):
        n_chunks = int(rng.integers(3, 9))
        drawn.append((awkward(rng, n_chunks, low, high), n_chunks,
                      int(rng.integers(2, n_chunks))))
    return drawn


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

