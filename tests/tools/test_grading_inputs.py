"""tools/grade.py on what a student hands in that no checker need run on: a notebook that is
JSON but not a notebook, a file too large to read, a link to another's work, a folder that is a
link. Each is that student's row, ``not handed in``, and the class is still graded (the red-team
audit's round AV, and the grader's own reads)."""

import importlib.util

import pytest

from kernel_sources import ROOT
from test_grading import KERNEL

from helpers.exercises import catalog


def _grade_module():
    spec = importlib.util.spec_from_file_location("grade", ROOT / "tools" / "grade.py")
    grade = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grade)
    return grade


@pytest.mark.parametrize("name", ["pipeline", "scale_vector"])
def test_a_file_larger_than_the_grader_reads_is_not_handed_in(tmp_path, name):
    """A notebook of gigabytes would be read whole in the grader's own process, before any
    sandbox: past WORK_BYTES it is that row's ``not handed in``, with its size, unread."""
    grade = _grade_module()
    work = tmp_path / "zed" / catalog.find(name).work
    work.parent.mkdir(parents=True)
    with open(work, "wb") as f:
        f.truncate(grade.WORK_BYTES + 1)           # sparse: no disk, and nothing is read
    row = grade.grade(tmp_path / "zed", catalog.find(name), grade.Limits(20, 2048, 64),
                      tmp_path, tmp_path / "logs")
    assert (row["result"], row["status"]) == ("fail", "not handed in"), row
    assert f"{catalog.find(name).work} is 64 MiB, more than the grader reads" in row["problem"]
    assert ("Clear Outputs" in row["hint"]) == (name == "pipeline"), row


@pytest.mark.parametrize("text", ['{"cells": [1]}', '{"cells": {}}', "[]", "[" * 100_000])
def test_a_notebook_that_is_json_but_not_a_notebook_is_not_handed_in(tmp_path, text):
    """Read in the grader's own process, before any checker runs: it never raises there (round
    AV of the red-team audit, AVB-17)."""
    grade = _grade_module()
    work = tmp_path / "zed" / catalog.find("pipeline").work
    work.parent.mkdir(parents=True)
    work.write_text(text)
    row = grade.grade(tmp_path / "zed", catalog.find("pipeline"), grade.Limits(20, 2048, 64),
                      tmp_path, tmp_path / "logs")
    assert (row["result"], row["status"]) == ("fail", "not handed in"), row
    assert "not a notebook" in row["problem"], row


def test_a_work_file_that_is_a_link_is_not_handed_in(tmp_path):
    """A submission's file that is a symbolic link (to another student's, to a solution), or
    reached through one out of the student's folder, is never checked (round AV of the red-team
    audit, AVB-23)."""
    grade = _grade_module()
    (tmp_path / "alice" / "cuda_src" / "exercises").mkdir(parents=True)
    (tmp_path / "alice" / "cuda_src" / "exercises" / "scale_vector.cu").write_text(KERNEL)
    (tmp_path / "mallory" / "cuda_src" / "exercises").mkdir(parents=True)
    (tmp_path / "mallory" / "cuda_src" / "exercises" / "scale_vector.cu").symlink_to(
        tmp_path / "alice" / "cuda_src" / "exercises" / "scale_vector.cu")
    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "cuda_src").symlink_to(tmp_path / "alice" / "cuda_src")
    for student, why in (("mallory", "a symbolic link"), ("dave", "reached through a symbolic")):
        row = grade.grade(tmp_path / student, catalog.find("scale_vector"),
                          grade.Limits(20, 2048, 64), tmp_path, tmp_path / "logs")
        assert (row["result"], row["status"]) == ("fail", "not handed in"), row
        assert f"cuda_src/exercises/scale_vector.cu is {why}" in row["problem"], row
        assert str(tmp_path) not in row["problem"] + row["hint"], row


def test_a_student_folder_that_is_a_link_is_not_graded(monkeypatch, tmp_path, capsys):
    """eve -> alice would be graded with alice's work (AVB-24): she is left out, with a warning."""
    grade = _grade_module()
    monkeypatch.setattr(grade, "run_child", lambda *args: (
        {"passed": True, "fast": False, "problem": "right", "hint": "", "error": "", "slow": ""},
        None, b"PASS", 0.4))
    (tmp_path / "subs" / "alice" / "cuda_src" / "exercises").mkdir(parents=True)
    (tmp_path / "subs" / "alice" / "cuda_src" / "exercises" / "scale_vector.cu").write_text(KERNEL)
    (tmp_path / "subs" / "eve").symlink_to("alice")
    rows = grade.grade_class(tmp_path / "subs", tmp_path / "grades.csv",
                             grade.Limits(20, 2048, 64), ["scale_vector"])
    assert [row["student"] for row in rows] == ["alice"], rows
    assert "eve is a symbolic link (to alice)" in capsys.readouterr().err


def test_grades_go_into_a_folder_not_made_yet_though_no_checker_ran(tmp_path):
    (tmp_path / "subs" / "nobody").mkdir(parents=True)     # nothing handed in: no checker runs
    grade = _grade_module()
    grade.grade_class(tmp_path / "subs", tmp_path / "out" / "grades.csv",
                      grade.Limits(20, 2048, 64), ["scale_vector"])
    assert (tmp_path / "out" / "grades.csv").is_file()
