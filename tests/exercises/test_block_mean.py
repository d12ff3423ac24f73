"""The exercise of notebook 09, a kernel with three planted bugs: the checker confirms each fix on
its own. The stub (all three bugs) and every kernel with some of them fixed get a verdict that
names exactly the bugs still there; the solution passes; kernels that fixed the bugs but got the
rest wrong are named too. All variants are compiled as one module (and, on a GPU, once more on
the simulator, whose checks look for the planted bugs)."""

import pytest

from block_mean_variants import BUG, NAMES, RIGHT, SIMULATOR_ONLY, SOLUTION, WITH_BUGS, WRONG
from kernel_sources import compile_variants, simulator_only, variant

from helpers.backend import BACKEND
from helpers.exercises.block_mean import KERNEL, check_block_mean, check_block_mean_kernel


def _sources():
    sources = {"solution": SOLUTION}
    sources.update({name: variant(SOLUTION, *(BUG[b] for b in bugs))
                    for name, bugs in WITH_BUGS.items()})
    sources.update({name: variant(SOLUTION, *r) for name, (r, _) in WRONG.items()})
    sources.update({name: variant(SOLUTION, *r) for name, r in RIGHT.items()})
    return sources


@pytest.fixture(scope="module")
def kernels():
    """name -> (kernel on the backend, the same compiled by the simulator)."""
    sources = _sources()
    on_backend = compile_variants(KERNEL, sources)
    if BACKEND == "simulator":
        return {name: (k, k) for name, k in on_backend.items()}
    from helpers.sim.compiler import SourceModule

    on_sim = compile_variants(KERNEL, sources, source_module=SourceModule)
    return {name: (on_backend[name], on_sim[name]) for name in sources}


def test_the_solution_passes(kernels, capsys):
    assert check_block_mean_kernel(*kernels["solution"]).passed is True
    assert capsys.readouterr().out.startswith("PASS: all 3 planted bugs are fixed")


@pytest.mark.parametrize("name", sorted(WITH_BUGS))
def test_the_verdict_names_exactly_the_bugs_still_there(kernels, name, capsys):
    verdict = check_block_mean_kernel(*kernels[name])
    assert verdict.passed is False
    there = WITH_BUGS[name]
    assert f"{3 - len(there)} of the 3 planted bugs fixed" in verdict.problem
    still = verdict.problem.split("still there:")[1]
    for bug, words in NAMES.items():
        assert (words in still) == (bug in there), (bug, verdict.problem)
    finder = {1: "the bounds checks: block (3, 0, 0), thread (232, 0, 0): a read",
              2: "the race check: a data race on tile[", 3: "the init check: means[0]"}
    for bug in there:
        assert finder[bug] in still, verdict.problem
    assert verdict.hint.startswith({1: "in the last block", 2: "thread 0 reads every tile[k]",
                                    3: "means[blockIdx.x] += ..."}[there[0]])
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_other_mistakes_are_named_once_the_bugs_are_fixed(kernels, name):
    verdict = check_block_mean_kernel(*kernels[name])
    assert verdict.passed is False
    expected = WRONG[name][1]
    for words in [expected] if isinstance(expected, str) else expected:
        assert words in str(verdict), verdict


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(kernels, name):
    verdict = check_block_mean_kernel(*kernels[name])
    assert verdict.passed is True, verdict


def test_the_stub_as_shipped_has_all_three_bugs(capsys):
    verdict = check_block_mean("exercises/block_mean.cu")
    assert verdict.passed is False
    assert "0 of the 3 planted bugs fixed" in verdict.problem
    assert all(words in verdict.problem for words in NAMES.values())
