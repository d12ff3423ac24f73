"""Checkers read an error's fields, never its English: with the race check's, the time limit's and
the crashes' messages reworded, every verdict on the wrong kernels that meet them stays the same,
word for word.

The simulator's errors carry the facts behind their messages (helpers/sim/errors.py): a race is a
RaceError (both threads and blocks, the array and element, the memory space, the hazard, both
lines), a launch stopped at the time limit a TimeLimitError (the kernel and the seconds), a crash
a LaunchError of its kind (an index past a declared array's size, a warp function's mask) with
the thread, block and line, an access outside the launch's dynamic shared memory an
OutOfBoundsError whose space and offset say on which side of it.
"""

import contextlib
import io

import numpy as np
import pytest

import test_box_blur as box_blur
import test_dot_product as dot_product
import test_histogram_rgb as histogram_rgb
import test_matmul_bt as matmul_bt
import test_scale_vector as scale_vector
from kernel_sources import solution, stable_dir, variant

from helpers.backend import BACKEND
from helpers.exercises import catalog, common

pytestmark = pytest.mark.skipif(BACKEND != "simulator",
                                reason="the simulator's messages are the ones reworded")

# exercise: the wrong kernels that meet the race check (shared and global memory, a tile's and a
# read-modify-write's hints) or the time limit, one of each way a checker reads a race
CASES = {
    "box_blur": [variant(solution("box_blur.cu"), *box_blur.WRONG[name][0])   # a race; a crash
                 for name in ("missing_barrier", "flat_load_split_by_block_x")],
    "matmul_bt": [variant(solution("matmul_bt.cu"),
                          *matmul_bt.WRONG["no_barrier_after_the_products"][0])],
    "histogram_rgb": [source for name, source, _ in histogram_rgb.WRONG
                      if name == "racy_global_bins"],             # a race in global memory
    "block_mean": [catalog.as_shipped(catalog.find("block_mean"))],   # all three planted bugs
    "scale_vector": [scale_vector.ENDLESS],
    "dot_product": [source for name, source, _ in dot_product.WRONG      # crashes of two kinds
                    if name in ("warp_sums_declared_too_small", "shuffle_inside_a_divergent_branch")],
}


@pytest.fixture
def reworded(monkeypatch):
    """The race check's, the time limit's and the crashes' messages replaced by other words,
    facts kept."""
    from helpers.sim import errors
    from helpers.sim.run import launch, report
    from helpers.sim.microscope import racecheck

    def race_error(*args):
        err = original(*args)
        err.args = ("RACE! (reworded: no checker may read this)",)
        return err

    class TimeLimit(errors.TimeLimitError):
        def __init__(self, msg, **facts):
            super().__init__("TOO SLOW (reworded: no checker may read this)", **facts)

    original = racecheck.error
    monkeypatch.setattr(racecheck, "error", race_error)
    monkeypatch.setattr(launch, "TimeLimitError", TimeLimit)
    monkeypatch.setattr(report, "message", lambda *args: "CRASH! (reworded: no checker may read "
                                                         "this)")


def _verdicts(monkeypatch):
    """Each case's verdict, on one worker (with several, the count of a race's hazards across
    blocks depends on how the blocks interleave). The work is written to a folder of the same
    path in every run (stable_dir): the checkers compile it as a file of that path, so the
    modules stay cached from one run to the next (a temporary path made new ones every run)."""
    from helpers.sim.settings import settings

    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    with settings.changed(workers=1):
        return _each_verdict(stable_dir("verdicts-read-fields"))


def _each_verdict(folder):
    said = []
    for name, sources in CASES.items():
        exercise = catalog.find(name)
        for i, source in enumerate(sources):
            work = folder / name / str(i) / exercise.work
            work.parent.mkdir(parents=True, exist_ok=True)
            work.write_text(source)
            with contextlib.redirect_stdout(io.StringIO()):
                said.append(str(catalog.check(exercise, work.parents[2])))
    return said


@pytest.mark.slow
def test_reworded_messages_leave_every_verdict_as_it_was(monkeypatch, request):
    plain = _verdicts(monkeypatch)
    assert all(v.startswith("NOT YET") for v in plain), plain
    assert not any("reworded" in v for v in plain)
    request.getfixturevalue("reworded")
    again = _verdicts(monkeypatch)
    assert again == plain


def test_the_reworded_messages_are_the_ones_raised(reworded):
    """The rewording reaches the errors the checkers see (else the test above proves nothing)."""
    from helpers.sim import driver, gpuarray
    from helpers.sim.compiler import SourceModule
    from helpers.sim.settings import settings

    mod = SourceModule("__global__ void spin(int *x) { volatile int s = 1; while (s) {} }\n"
                       "__global__ void race(int *x) { x[0] = threadIdx.x; }\n"
                       "__global__ void past(int *x) { __shared__ int s[4]; s[threadIdx.x] = 1;"
                       " x[0] = s[0]; }\n"
                       "__global__ void outside(int *x, int k) { extern __shared__ int d[];"
                       " d[k] = 1; }\n")
    x = gpuarray.zeros(1, "int32")
    with settings.changed(time_limit=0.2), pytest.raises(driver.LaunchError) as err:
        mod.get_function("spin")(x, block=(1, 1, 1))
    assert str(err.value).startswith("TOO SLOW") and err.value.kind == "time limit"
    with settings.changed(racecheck=True), pytest.raises(driver.LaunchError) as err:
        mod.get_function("race")(x, block=(2, 1, 1))
    assert str(err.value).startswith("RACE!") and err.value.kind == "race"
    assert (err.value.array, err.value.element, err.value.space) == ("x", 0, "global")
    with pytest.raises(driver.LaunchError) as err:
        mod.get_function("past")(x, block=(8, 1, 1))
    assert "CRASH!" in str(err.value) and err.value.kind == "array bounds"
    for k, offset in [(4, 16), (-1, -4)]:  # past the launch's 16 bytes, before their start
        with pytest.raises(driver.LaunchError) as err:
            mod.get_function("outside")(x, np.int32(k), block=(1, 1, 1), shared=16)
        assert "CRASH!" in str(err.value)
        assert (err.value.kind, err.value.space, err.value.offset) == ("out of bounds", "shared",
                                                                       offset)
