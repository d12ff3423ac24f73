"""The box-blur exercise of notebook 06 (helpers.exercises.box_blur): the solution passes, the stub
fails, and each known mistake fails with the hint written for it: a missing barrier (found by the race
check, whatever order the threads ran in), a halo off by one, edges not clamped, threads that return
before loading their part of the tile. A right blur that reads its window from global memory, or its
tile with bank conflicts, passes but is not FAST on the simulator (its trace); on a GPU the speed is
timed (``gpu_timing``). The solution and its variants are compiled as one module (on a GPU, a second
time by the simulator, which runs the race check and the trace)."""

import re

import numpy as np
import pytest

from box_blur_variants import KERNEL, RIGHT, SLOW, WRONG
from kernel_sources import simulator_only, assert_mistake_named, compile_variant_pairs, variant

from helpers.backend import BACKEND
from helpers.exercises import box_blur as checker

HELPER = re.compile(r"\bclamp_index\b")


def _sources():
    sources = {"solution": KERNEL, **{name: variant(KERNEL, *r) for name, r in RIGHT.items()},
               **{name: variant(KERNEL, *r) for name, (r, _) in {**WRONG, **SLOW}.items()}}
    return {name: HELPER.sub(f"clamp_index__{name}", text) for name, text in sources.items()}


@pytest.fixture(scope="module")
def kernels():
    """name -> (kernel on this backend, the same on the simulator)."""
    return compile_variant_pairs("box_blur", _sources())


def run_checker(pair, capsys):
    verdict = checker.check_box_blur_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_the_solution_passes(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.passed is True, out
    assert "no race" in verdict.problem, out


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed: gpu_timing")
def test_on_the_simulator_the_solution_is_fast_by_its_trace(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert (verdict.level, verdict.slow) == ("FAST", ""), out
    assert out.startswith("FAST:") and "global load requests" in out, out


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed: gpu_timing")
@pytest.mark.parametrize("name", sorted(SLOW))
def test_on_the_simulator_a_slow_blur_passes_but_is_not_fast(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert (verdict.level, verdict.fast) == ("PASS", False), out
    assert all(words in verdict.slow + verdict.hint for words in SLOW[name][1]), out
    assert "not yet FAST" in out, out


@pytest.mark.parametrize("name", sorted(SLOW))
def test_the_trace_rule_finds_a_slow_blur_on_any_backend(name, kernels):
    from helpers.exercises.kernel import Kernels

    assert next(checker._traced(Kernels(None, kernels[name][1])), None) is not None
    assert next(checker._traced(Kernels(None, kernels["solution"][1])), None) is None


@pytest.mark.gpu_timing
@pytest.mark.skipif(BACKEND != "pycuda", reason="the event-timed rule needs a GPU")
def test_on_a_gpu_the_solution_is_fast_and_a_transposed_tile_or_a_target_past_the_copy_is_not(
        kernels, capsys, monkeypatch):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.level == "FAST" and "of a device-to-device copy" in out, out
    verdict, out = run_checker(kernels["tile_transposed"], capsys)   # bank conflicts: 12%
    assert verdict.level == "PASS" and "where FAST takes 20%" in verdict.slow, out
    monkeypatch.setattr(checker, "TARGET", 1.5)
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.level == "PASS" and "where FAST takes 150%" in verdict.slow, out


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.passed is True, out


def test_the_stub_fails_saying_nothing_is_blurred(capsys):
    verdict = checker.check_box_blur()
    out = capsys.readouterr().out
    assert verdict.passed is False, out
    assert "unchanged: nothing is blurred yet" in out, out


# The simulator only: on a GPU an index past a shared array's end may be an illegal address,
# which leaves the CUDA context unusable for every test after it in the process.
SIMULATOR_ONLY = dict.fromkeys((  # (on a GPU, rows never loaded hold garbage)
    "tile_declared_too_small", "tile_indices_swapped", "tile_loop_bounds_swapped", "tile_rows_step_by_block_x", "window_from_minus_radius",
    "tile_loop_from_threadIdx_x_plus_1", "flat_load_split_by_block_x", "flat_load_split_by_tile_y", "radius_added_twice",
    "window_at_image_coordinates", "tile_halo_on_one_side",
    "tile_declared_sides_swapped"), "an overrun of shared memory may break the GPU's context")
SIMULATOR_ONLY.update(tile_not_shared="its window reads elements of a thread's own array no thread loaded: garbage on a GPU",
                      barrier_inside_the_loop="a race: on a GPU the values depend on the warps' order",
                      tile_stored_at_the_threads_slot="on a GPU, the slots never stored hold garbage",
                      tile_rows_from_0="a race, and tile rows never loaded: garbage on a GPU")


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_a_known_mistake_fails_with_its_hint(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, WRONG[name][1])


def test_every_run_gets_images_of_its_own():
    """A kernel that reads tile elements it never loaded gets what the previous launch left in
    shared memory: on a GPU, the same block of the solution's launch on the same image would
    have left the right values there, and the mistake would pass."""
    first, again = (checker._launch(checker.CASES[0]).model for _ in range(2))
    assert not np.array_equal(first, again)


def test_a_missing_barrier_is_found_even_where_the_result_is_right(kernels):
    """The race check does not depend on the values: the simulator, which runs a barrier-free
    kernel's threads one at a time, gets most of them wrong, a GPU may get them all right."""
    from helpers.exercises.kernel import Kernels
    from helpers.exercises.microscope import observe

    launch = checker._launch(checker.CASES[0])
    seen = observe(Kernels(None, kernels["missing_barrier"][1]), launch)
    assert (seen.error.kind, seen.error.space, seen.error.array, seen.stats) == (
        "race", "shared", "tile", None)
    seen = observe(Kernels(None, kernels["solution"][1]), launch)
    assert seen.error is None and seen.stats.shared_ld.requests > 0
