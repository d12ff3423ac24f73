"""The gradient exercise of notebook 06 (helpers.exercises.gradient): the solution is FAST, the
stub fails, each usual mistake fails with its own hint (a missing barrier, found by the race
check; no halo; the halo not clamped; threads past n that return before loading; the sign turned;
not halved; a static array too small for the largest block), kernels right in other ways pass,
and a right kernel that reads its neighbours from global memory passes but is not FAST: by its
trace on the simulator, by events against a copy on a GPU (``gpu_timing``). All are compiled as
one module (on a GPU, a second time by the simulator, for the race check and the trace)."""

import re

import pytest

from gradient_variants import KERNEL, RIGHT, SIMULATOR_ONLY, SLOW, WRONG
from kernel_sources import simulator_only, assert_mistake_named, compile_variant_pairs, variant

from helpers.backend import BACKEND
from helpers.exercises import gradient as checker

pytestmark = pytest.mark.gpu_timing  # on a GPU every right kernel is timed (tests/conftest.py)

HELPER = re.compile(r"\bclamp_index\b")


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{name: variant(KERNEL, *r) for name, (r, _) in WRONG.items()},
               **{name: variant(KERNEL, *r) for name, r in {**RIGHT, **SLOW}.items()}}
    return compile_variant_pairs("gradient", {name: HELPER.sub(f"clamp_index__{name}", text)
                                              for name, text in sources.items()})


def run_checker(pair, capsys):
    verdict = checker.check_gradient_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_the_solution_is_fast(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert (verdict.level, "no race" in verdict.problem) == ("FAST", True), out


def test_the_stub_fails_saying_nothing_is_computed(capsys):
    verdict = checker.check_gradient()
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, "stub", ["every output is 0: nothing is computed yet"])


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_a_known_mistake_fails_with_its_hint(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, WRONG[name][1])


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_is_fast(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.level == "FAST", out


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the L1 cache may serve the "
                    "neighbours: there the rule is the bandwidth (next test)")
def test_on_the_simulator_neighbours_read_from_global_memory_are_not_fast(kernels, capsys):
    verdict, out = run_checker(kernels["neighbours_from_global_memory"], capsys)
    assert (verdict.level, "not yet FAST" in out) == ("PASS", True), out
    assert "load requests to global memory" in verdict.slow, out


@pytest.mark.skipif(BACKEND != "pycuda", reason="the event-timed rule needs a GPU")
def test_on_a_gpu_a_target_past_the_copy_is_not_met(kernels, capsys, monkeypatch):
    monkeypatch.setattr(checker, "TARGET", 1.5)
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.level == "PASS" and "where FAST takes 150%" in verdict.slow, out
