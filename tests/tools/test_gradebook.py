"""tools/gradebook.py: an exercise's points come from the catalog unless the instructor's
points file (JSON, or TOML on Python 3.11+) says otherwise; a passed exercise scores its points;
the gradebook has a row a student with nbgrader's columns and a column an exercise."""

import json
import sys

import pytest

from kernel_sources import ROOT

from helpers.exercises import catalog

sys.path.insert(0, str(ROOT / "tools"))
import gradebook  # noqa: E402


def row(student, exercise, status):
    return {"student": student, "exercise": exercise, "status": status}


def test_without_a_file_each_exercise_is_worth_its_catalogs_points():
    assert gradebook.load_points() == {e.name: e.points for e in catalog.EXERCISES}


@pytest.mark.parametrize("suffix, text", [(".json", json.dumps({"julia": 2, "sepia": 0.5})),
                                          (".toml", "julia = 2\nsepia = 0.5\n")])
def test_a_points_file_overrides_the_exercises_it_names(tmp_path, suffix, text):
    if suffix == ".toml":
        pytest.importorskip("tomllib")
    path = tmp_path / f"points{suffix}"
    path.write_text(text)
    points = gradebook.load_points(path)
    assert (points["julia"], points["sepia"], points["matmul_bt"]) == (2, 0.5, 1)


@pytest.mark.parametrize("text, words", [('{"juila": 2}', "no exercise called 'juila'"),
                                         ('{"julia": -1}', "julia = -1"),
                                         ('{"julia": "two"}', "julia = 'two'"),
                                         ('[2]', "give an object"),
                                         ('{"julia": 2', "not valid JSON")])
def test_a_wrong_points_file_is_refused_with_what_is_wrong(tmp_path, text, words):
    path = tmp_path / "points.json"
    path.write_text(text)
    with pytest.raises(SystemExit, match=words.replace("(", r"\(")):
        gradebook.load_points(path)


def test_scores_and_totals():
    points = gradebook.load_points() | {"julia": 2.5}
    rows = gradebook.scored([row("ada", "julia", "passed"), row("ada", "sepia", "not yet"),
                             row("bob", "julia", "not handed in"),
                             row("bob", "sepia", "passed")], points)
    assert [(r["score"], r["max_score"]) for r in rows] == [("2.5", "2.5"), ("0", "1"),
                                                            ("0", "2.5"), ("1", "1")]
    assert gradebook.totals(rows) == [
        {"student_id": "ada", "raw_score": "2.5", "score": "2.5", "max_score": "3.5",
         "julia": "2.5", "sepia": "0"},
        {"student_id": "bob", "raw_score": "1", "score": "1", "max_score": "3.5", "julia": "0",
         "sepia": "1"}]


def test_write_and_read_back(tmp_path):
    rows = gradebook.scored([{**row("ada", "julia", "passed"), "result": "pass", "problem": "p",
                              "hint": "", "error": "", "slow": "", "seconds": "1.0"}],
                            gradebook.load_points())
    gradebook.write(rows, tmp_path / "grades.csv")
    assert gradebook.read(tmp_path / "grades.csv") == rows
    assert (tmp_path / "grades.gradebook.csv").read_text().splitlines() == [
        "student_id,raw_score,score,max_score,julia", "ada,1,1,1,1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv", "grades.gradebook.csv"]


def test_toml_without_tomllib_asks_for_json(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tomllib", None)  # as on Python 3.10
    (tmp_path / "points.toml").write_text("julia = 2\n")
    with pytest.raises(SystemExit, match="needs Python 3.11 or newer; write the same as JSON"):
        gradebook.load_points(tmp_path / "points.toml")
