"""The add_into checker (helpers.exercises.add_into), notebook 02's grid-stride exercise: the
solution passes, the stub as shipped does not, each usual mistake gets its own verdict, and kernels
right in another way pass. The solution and every variant are compiled as one module (and, on
PyCUDA, once more on the simulator, whose race check the checker uses); the variants are in
add_into_variants.py."""

import numpy as np
import pytest

from add_into_variants import HINTS, KERNEL, RIGHT, SIMULATOR_ONLY, WRONG
from kernel_sources import assert_refused_and_named, compile_variant_pairs, simulator_only, variant

from helpers.backend import BACKEND

from helpers.exercises import add_into as checker


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("add_into", {
        "solution": KERNEL, **{name: variant(KERNEL, r) for name, (r, _) in WRONG.items()},
        **{name: variant(KERNEL, r) for name, r in RIGHT.items()}})


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_add_into_kernel(*kernels["solution"])
    assert verdict.passed is True and capsys.readouterr().out.startswith("PASS:")


def test_the_stub_as_shipped_is_not_yet_right(capsys):
    verdict = checker.check_add_into()
    assert verdict.passed is False
    assert verdict.problem.startswith("only the first 64 elements were added"), verdict
    assert "gridDim.x * blockDim.x" in verdict.hint


@pytest.mark.parametrize("name", simulator_only(WRONG, SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(kernels, name, capsys):
    verdict = checker.check_add_into_kernel(*kernels[name])
    assert verdict.passed is False
    assert WRONG[name][1] in verdict.problem, verdict
    assert HINTS.get(name, "") in verdict.hint, verdict
    assert capsys.readouterr().out.count("NOT YET:") == 1


@pytest.mark.parametrize("name", RIGHT)
def test_a_kernel_right_in_another_way_passes(kernels, name):
    assert checker.check_add_into_kernel(*kernels[name]).passed is True


def test_the_grader_s_cases_have_grids_smaller_and_larger_than_n():
    drawn = checker.EXERCISE.draw(np.random.default_rng(7))
    assert [n > block * blocks for n, block, blocks in drawn] == [True, True, False]


# every thread does the whole loop, each addition a load, a pause and a store: two blocks run at
# once on two workers of the simulator lose some of each other's additions (most launches do)
SLOW_ADDITION = ("        y[i] += x[i];", "    {\n        float v = y[i];\n"
                 "        for (volatile int k = 0; k < 1000; k++) {}\n        y[i] = v + x[i];\n    }")


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the threads' additions race: how "
                                                   "many land varies")
def test_every_thread_looping_gets_one_verdict_on_two_workers(capsys):
    from helpers.sim.settings import settings

    source = variant(variant(KERNEL, WRONG["every_thread_loops"][0]), SLOW_ADDITION)
    slow = compile_variant_pairs("add_into", {"slow_addition": source})["slow_addition"]
    with settings.changed(workers=2):
        problems = {checker.check_add_into_kernel(*slow).problem for _ in range(20)}
    assert len(problems) == 1 and WRONG["every_thread_loops"][1] in problems.pop(), problems


@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU kernel cannot be stopped from Python")
def test_a_step_that_does_not_move_i_is_named(capsys, monkeypatch):
    from helpers.exercises import common

    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    endless = compile_variant_pairs("add_into", {"step_not_stored": variant(
        KERNEL, ("i += stride)", "i + stride)"))})["step_not_stored"]
    verdict = checker.check_add_into_kernel(*endless)
    assert verdict.problem.startswith("the loop never ended: only y[0] was added to"), verdict
    assert verdict.hint.startswith("i must move each time round: i += stride"), verdict


# blind audit AI (was 'the loop never ended: only y[0] was added to ... Hint: i must move each
# time round: i += stride stores the next i in i (i + stride alone ...)', a slip not made): a while
# loop with no braces, its step indented under y[i] += x[i] as in Python, so it runs after the loop
@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU kernel cannot be stopped from Python")
def test_a_loop_without_braces_is_named(capsys, monkeypatch):
    from helpers.exercises import common

    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    endless = compile_variant_pairs("add_into", {"loop_without_braces": variant(
        KERNEL, ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
                 "        y[i] += x[i];", "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    while (i < n)\n        y[i] += x[i];\n        i += stride;"))}
    )["loop_without_braces"]
    verdict = checker.check_add_into_kernel(*endless)
    assert verdict.problem.startswith("the loop never ended: the while at line "), verdict
    assert "has no braces, so its body is the one statement y[i] += x[i];" in verdict.problem
    assert "C does not go by indentation: wrap the loop's body in braces" in verdict.hint, verdict
    assert not verdict.hint.startswith("i must move"), verdict


# blind audit TDA-add_into-1: the stride from blockIdx.x, 0 in block 0 (was 'the loop never
# ended: only y[0] was added to ... Hint: i must move each time round: i += stride stores the
# next i in i (i + stride alone ...)', the hint of a step not stored)
@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU kernel cannot be stopped from Python")
def test_a_stride_from_blockidx_is_named(capsys, monkeypatch):
    from helpers.exercises import common

    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    endless = compile_variant_pairs("add_into", {"stride_of_the_block": variant(
        KERNEL, ("int stride = gridDim.x * blockDim.x;", "int stride = blockIdx.x * blockDim.x;"))}
    )["stride_of_the_block"]
    verdict = checker.check_add_into_kernel(*endless)
    assert verdict.problem.startswith("the loop never ended in block 0: the stride is blockIdx.x "
                                      "* blockDim.x = 0 there"), verdict
    assert "stride = gridDim.x * blockDim.x" in verdict.hint, verdict
    assert not verdict.hint.startswith("i must move"), verdict


# Mistakes the compiler refuses, each named from the simulator's record of g++'s first error and
# the source before it: blind audit TIA-add_into-1, a stray ; after the for's header, whose empty
# body leaves the next line outside the loop, where i is not declared (was 'line 10 uses i, which
# nothing declared before it. Hint: declare i with its type before its first use ...')
DOES_NOT_COMPILE = {
    "stray_semicolon_after_the_for": ([("i += stride)\n", "i += stride);\n")],
                                      {"problem": "line 9's for (...) ends with a stray ;",
                                       "hint": "remove the ; after the for's )"}),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    assert_refused_and_named(checker.check_add_into, "add_into", name, *DOES_NOT_COMPILE[name])
