"""tools/mutants.py: one-token changes to the lines a learner writes, run through the checker;
none of notebook 01's first exercise passes, and a checker that raises is reported."""

import sys

from kernel_sources import ROOT, stable_dir

sys.path.insert(0, str(ROOT / "tools"))
import mutants  # noqa: E402

from helpers.exercises import add_constant  # noqa: E402

STUB = "__global__ void k(float *y)\n{\n    // TODO: y[i]\n}\n"
SOLUTION = "__global__ void k(float *y)\n{\n    int i = threadIdx.x;  // the element\n    y[i] = 2 * i;\n}\n"


def test_only_the_lines_the_learner_writes_change_each_source_once():
    found = list(mutants.mutants(SOLUTION, STUB))
    assert {line for line, *_ in found} == {3, 4}
    assert ("y[i] = 2 * i;", "y[i] = 3 * i;") in {(before, after) for _, before, after, _ in found}
    assert all(text.count("__global__ void k(float *y)") == 1 and "// the element" in text
               for *_, text in found)
    assert len({text for *_, text in found}) == len(found)
    left_out = [after for _, _, after, _ in mutants.mutants(SOLUTION, STUB, more=True)]
    assert "(left out)" in left_out


def test_no_one_token_change_of_add_constant_passes():
    # a folder at the same path every run: a mutant's file name is in its source (#line), so
    # that its compiled module stays cached
    found = mutants.audit("add_constant", stable_dir("mutants"))
    assert found and all(outcome in ("compile", "not yet") for *_, outcome, _ in found), found


def test_a_checker_that_raises_is_reported(tmp_path, monkeypatch):
    def broken(path):
        raise AttributeError("'numpy.ndarray' object has no attribute 'host'")

    monkeypatch.setattr(add_constant.EXERCISE, "check_file", broken)
    outcome, line = mutants.check("add_constant", tmp_path / "any.cu")
    assert outcome == "raised" and "AttributeError" in line
