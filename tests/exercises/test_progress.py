"""helpers.exercises.status() and reset(): every exercise with its state; a reset that keeps the
learner's version. Also: the copies of the stubs as shipped match the course's stubs."""

import datetime
import shutil

import pytest

from kernel_sources import ROOT, solution, stable_dir, variant

from helpers.backend import BACKEND
from helpers.exercises import catalog, progress, reset, status

NOTEBOOK_05 = "notebooks/05_pinned_memory_and_streams.ipynb"


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.name)
def test_the_copies_as_shipped_are_the_course_stubs(exercise):
    work = catalog.learner_work(exercise, ROOT)
    assert work is not None, f"{exercise.work} is missing"
    assert work.strip() == catalog.as_shipped(exercise).strip(), (
        f"{exercise.work} differs from its copy in helpers/exercises/as_shipped/: a changed stub "
        "must be copied there too (reset and status() read it)")


def test_every_stub_of_the_course_is_in_the_catalog():
    stubs = {str(p.relative_to(ROOT)) for pattern in ("cuda_src/exercises/*", "cuda_src/*/exercises/*")
             for p in ROOT.glob(pattern) if p.is_file()}
    assert stubs == {e.work for e in catalog.EXERCISES if e.is_kernel}, (
        "helpers/exercises/catalog.py's EXERCISES must list every exercise stub (status(), "
        "reset(), the student release and the grader read it)")


def test_status_lists_every_exercise_with_its_state(capsys):
    # A course folder at a fixed path (the compile cache hits on later runs): one exercise
    # solved, one started wrong, the rest as shipped.
    course = stable_dir("course")
    shutil.copytree(ROOT / "cuda_src/exercises", course / "cuda_src/exercises")
    (course / "notebooks").mkdir()
    shutil.copy(ROOT / NOTEBOOK_05, course / NOTEBOOK_05)
    (course / "cuda_src/exercises/scale_vector.cu").write_text(solution("scale_vector.cu"))
    (course / "cuda_src/exercises/sepia.cu").write_text(
        variant(solution("sepia.cu"), ("x >= width || y >= height", "x > width || y > height")))
    states = status(course)
    out = capsys.readouterr().out
    assert states == {"scale_vector": "passing", "sepia": "failing",
                      **{e.name: "not started" for e in catalog.EXERCISES
                         if e.name not in ("scale_vector", "sepia")}}, out
    assert "NOT YET: threads with y == height wrote past the end" in out, out
    assert f"1 of {len(catalog.EXERCISES)} exercises pass." in out


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed (gpu_timing)")
def test_status_tells_a_fast_kernel_from_one_that_only_passes(capsys):
    """A chapter about speed rates a right kernel: FAST, or passing with what is missing."""
    course = stable_dir("course_fast")
    (course / "cuda_src/exercises").mkdir(parents=True, exist_ok=True)
    blur = course / "cuda_src/exercises/box_blur.cu"
    exercise = catalog.find("box_blur")
    blur.write_text(solution("box_blur.cu"))
    assert progress.state(exercise, course) == ("fast", "")
    blur.write_text(variant(solution("box_blur.cu"), (
        "tile[threadIdx.y + dy][threadIdx.x + dx]",
        "in[clamp_index(y - RADIUS + dy, height) * width + clamp_index(x - RADIUS + dx, width)]")))
    state, detail = progress.state(exercise, course)
    assert state == "passing" and "; not yet FAST: " in detail, detail


def test_reset_saves_the_learners_version_then_restores_the_stub(tmp_path, capsys):
    stub = tmp_path / "cuda_src/exercises/julia.cu"
    stub.parent.mkdir(parents=True)
    stub.write_text("my work, half done\n")
    saved = reset("julia", root=tmp_path)
    assert saved.parent == stub.parent and saved.name.startswith("julia.cu.saved-")
    assert saved.read_text() == "my work, half done\n"
    assert stub.read_text() == catalog.as_shipped(catalog.find("julia"))
    assert "Saved your version as" in capsys.readouterr().out
    assert reset("julia", root=tmp_path) is None        # nothing of the learner's to save
    assert sorted(p.name for p in stub.parent.iterdir()) == ["julia.cu", saved.name]


def test_three_resets_in_one_second_keep_all_three_versions(tmp_path, monkeypatch):
    class OneSecond(datetime.datetime):                 # every reset in the same second
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 12, 1, 9, 30, 0)
    monkeypatch.setattr(progress.datetime, "datetime", OneSecond)
    stub = tmp_path / "cuda_src/exercises/julia.cu"
    stub.parent.mkdir(parents=True)
    saved = []
    for version in ("first try\n", "second try\n", "third try\n"):
        stub.write_text(version)
        saved.append(reset("julia", root=tmp_path))
    assert [p.read_text() for p in saved] == ["first try\n", "second try\n", "third try\n"]
    assert [p.name for p in saved] == ["julia.cu.saved-20261201-093000",
                                       "julia.cu.saved-20261201-093000-2",
                                       "julia.cu.saved-20261201-093000-3"]
    assert sorted(p.name for p in stub.parent.iterdir()) == sorted(["julia.cu"] + [p.name for p in saved])


def test_reset_puts_back_a_deleted_stub(tmp_path):
    (tmp_path / "cuda_src/exercises").mkdir(parents=True)
    assert reset("sepia", root=tmp_path) is None
    assert (tmp_path / "cuda_src/exercises/sepia.cu").read_text() == \
        catalog.as_shipped(catalog.find("sepia"))


def test_reset_of_an_unknown_or_notebook_exercise_says_what_to_do(tmp_path):
    with pytest.raises(ValueError, match="the exercises are: scale_vector, matrix_index"):
        reset("scale", root=tmp_path)
    with pytest.raises(ValueError, match="copy the cell as shipped from"):
        reset("pipeline", root=tmp_path)


def test_a_notebook_not_handed_in_is_named_missing(tmp_path, capsys):
    verdict = catalog.check(catalog.find("pipeline"), tmp_path)
    assert not verdict.passed
    assert verdict.problem == f"{NOTEBOOK_05} is missing: the notebook was not handed in", verdict
    (tmp_path / "notebooks").mkdir()
    (tmp_path / NOTEBOOK_05).write_text('{"cells": []}')
    assert catalog.check(catalog.find("pipeline"), tmp_path).problem.startswith("no cell defining")
