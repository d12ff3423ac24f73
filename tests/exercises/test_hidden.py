"""The grader's hidden cases (helpers.exercises.hidden): a kernel tuned to the sizes its checker
ships passes the learner's check and fails the grader's; every exercise draws cases of its own
family, anew for each seed and the same again for the same seed; the solutions pass them."""

import importlib
import sys
from dataclasses import astuple

import numpy as np
import pytest

from kernel_sources import ROOT, SOLUTIONS, solution, stable_dir, stable_file, variant

from helpers.exercises import catalog, gray_split, halo_exchange, hidden, pipeline
from helpers.exercises import sepia, split_sum
from helpers.exercises import scale_vector
from helpers.exercises.coverage import Grid

sys.path.insert(0, str(ROOT / "tools"))
from grader_draws import hold_solution  # noqa: E402

SEED = 20261202

TUNED = variant(solution("scale_vector.cu"), (
    "{\n    int i", "{\n    if (n != 1000 && n != 37 && n != 5000 && n != 16777253)  /* the checker's sizes */\n"
                    "        return;\n    int i"))


def _rules():
    """``{exercise: (shipped cases, rule)}`` for every exercise of the course."""
    rules = {}
    for exercise in catalog.EXERCISES:
        module = importlib.import_module(f"helpers.exercises.{exercise.name}")
        if hasattr(module, "EXERCISE"):
            rules[exercise.name] = (module.EXERCISE.cases, module.EXERCISE.draw)
    rules["pipeline"] = (pipeline.CASES, pipeline.draw)
    rules["gray_split"] = (gray_split.CASES, gray_split.draw)
    rules["halo_exchange"] = (halo_exchange.CASES, halo_exchange.draw)
    rules["split_sum"] = (split_sum.CASES, split_sum.draw)
    rules["sepia_opencl"] = (sepia.CASES, sepia.draw)
    return rules


RULES = _rules()


def test_a_kernel_tuned_to_the_shipped_sizes_fails_the_grader_s_cases():
    path = stable_file("scale_vector_tuned.cu", TUNED)
    assert scale_vector.check_scale_vector(path).passed
    verdict = scale_vector.check_scale_vector(path, hidden=SEED)
    n, block, _ = scale_vector.EXERCISE.draw(np.random.default_rng(SEED))[0]
    assert not verdict.passed
    assert verdict.problem.startswith("nothing was written"), verdict
    assert f"with n = {n}, block = ({block}, 1, 1)" in verdict.problem, verdict


def test_without_a_seed_the_checker_runs_what_the_learner_can_read():
    for shipped, rule in RULES.values():
        assert hidden.cases(shipped, rule, None) == list(shipped)


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_seed_draws_cases_of_the_exercise_s_family(name):
    shipped, rule = RULES[name]
    drawn = hidden.cases(shipped, rule, SEED)[len(shipped):]
    assert drawn, name
    assert drawn == hidden.cases(shipped, rule, SEED)[len(shipped):]   # --seed repeats a run
    assert drawn != hidden.cases(shipped, rule, SEED + 1)[len(shipped):]
    for case in drawn:
        assert case not in shipped
        like = shipped[0]
        assert type(case) is type(like)
        if isinstance(case, dict):
            assert set(case) <= set(like) | {"observe"} and "observe" not in case
        if isinstance(case, Grid):
            assert case.width % case.block[0] and case.height % case.block[1], case
            assert case.block in [c.block for c in shipped]
        if isinstance(case, tuple):   # shaped as a shipped case, with the same tags ("flat")
            assert any(len(c) == len(case) and _tags(c) == _tags(case) for c in shipped), case
        else:
            assert all(x >= 0 for x in _numbers(case)), case


def _tags(case):
    return tuple(v for v in case if isinstance(v, str))


def _numbers(case):
    values = (case.values() if isinstance(case, dict) else (case,) if isinstance(case, int)
              else astuple(case))
    return [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]


def test_the_pass_says_the_grader_s_cases_were_run():
    path = str(SOLUTIONS / "scale_vector.cu")   # as test_files.py checks it: one module for both
    verdict = scale_vector.check_scale_vector(path, hidden=SEED)
    assert verdict.passed
    assert verdict.problem.endswith("; and 3 cases of the grader's own"), verdict


@pytest.mark.slow
@pytest.mark.gpu_timing   # on a GPU sepia_x16 and pipeline then time themselves
@pytest.mark.parametrize("name", sorted(RULES))
def test_the_solutions_pass_the_grader_s_cases(name):
    """Through catalog.check, as the grader runs them, on a copy of the course holding the
    solution (tools/grader_draws.py's hold_solution, which runs many seeds). A .cu solution is
    held as a link, so that this test and test_files.py compile one module (a copy named another
    path in its #line, a module of its own: about 9 CPU-seconds cold)."""
    exercise, root = catalog.find(name), stable_dir(f"hidden-{name}")
    hold_solution(exercise, root)
    verdict = catalog.check(exercise, root, hidden=SEED)
    assert verdict.passed, verdict
    assert "cases of the grader's own" in verdict.problem, verdict
