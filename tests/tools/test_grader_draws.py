"""tools/grader_draws.py: the reference solutions through the grader's draws of many seeds; a
seed whose draws a solution fails is printed with its verdict, and the exit status says so."""

import sys

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import grader_draws  # noqa: E402

from helpers.exercises import catalog  # noqa: E402
from helpers.exercises.verdict import not_yet  # noqa: E402


def test_the_solutions_pass_the_draws_of_two_seeds(capsys):
    assert grader_draws.main(["add_constant", "gray_split", "--seeds", "3:5"]) == 0
    out = capsys.readouterr().out
    assert "add_constant       0 of 2 seeds failed" in out and "gray_split         0 of 2" in out


def test_a_seed_the_solution_fails_is_printed_with_its_verdict(monkeypatch, capsys):
    check = catalog.check

    def fails_seed_7(exercise, root, hidden=None):
        verdict = check(exercise, root, hidden)
        return not_yet("the draw of seed 7", "a hint") if hidden == 7 else verdict

    monkeypatch.setattr(catalog, "check", fails_seed_7)
    assert grader_draws.main(["add_constant", "--seeds", "6:9"]) == 1
    out = capsys.readouterr().out
    assert "add_constant       1 of 3 seeds failed" in out, out
    assert "    seed 7: NOT YET: the draw of seed 7. Hint: a hint" in out, out


def test_one_seed_alone_is_a_range_of_one():
    assert grader_draws.seed_range("5") == range(5, 6)
    assert grader_draws.seed_range("0:40") == range(0, 40)
