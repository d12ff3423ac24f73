"""A made-up class of eleven, from their copies of the release to their feedback:
tools/collect.py, then tools/grade.py with a points file, on one exercise of each kind (a .cu
kernel, the OpenCL .cl kernel, a function in a notebook cell). Each student's CSV rows, gradebook
row and feedback file say what happened to them, by the ``status`` field, and no text names a
file of the grading machine (the submissions' folders, the instructor's checkout)."""

import csv
import importlib
import inspect
import json
import os
import re
import subprocess
import sys

import pytest

from kernel_sources import ROOT, stable_dir, variant
from test_grading import CLASS, JOBS, KERNEL

from helpers.exercises import catalog
from helpers.exercises.solutions.pipeline import my_pipeline

sys.path.insert(0, str(ROOT / "tools"))
import collect  # noqa: E402

EXERCISES = ("scale_vector", "sepia_opencl", "pipeline")
POINTS = {"pipeline": 2}
WORK = {name: catalog.find(name).work for name in EXERCISES}
CL = (ROOT / "cuda_src" / "opencl" / "solutions" / "sepia.cl").read_text()
PIPELINE = inspect.getsource(my_pipeline)
NOTEBOOK = json.loads((ROOT / WORK["pipeline"]).read_text(encoding="utf-8"))


def notebook(function_source):
    """Notebook 05 with ``function_source`` in the exercise's cell, as a student saves it."""
    cells = [dict(c, source=function_source) if c["cell_type"] == "code"
             and "".join(c["source"]).startswith("def my_pipeline(") else c
             for c in NOTEBOOK["cells"]]
    return json.dumps(dict(NOTEBOOK, cells=cells))


def pipeline_body(body):
    """A my_pipeline whose body is ``body``."""
    return "def my_pipeline(h_in, h_out, n_chunks, streams, launch):\n    " + body + "\n"


# student: ({path in their folder: text}, {exercise: status}); their folder starts as the
# release (every stub as shipped; but a LOOSE student's holds their files alone), and exercises
# left out of the statuses are "not started".
STUDENTS = {
    # first in the roster, so that the wait for the grader's limit overlaps the others' checkers;
    # an endless loop that sleeps (the limit is the wall clock's), so that it leaves the cores to
    # the others' checkers and the rest of the suite (one that spins took a core for 15 s)
    "abe": ({WORK["pipeline"]: notebook(pipeline_body("import time\n    while True:\n"
                                                      "        time.sleep(1)"))},
            {"pipeline": "stopped"}),
    "ada": ({WORK["scale_vector"]: KERNEL, WORK["sepia_opencl"]: CL,
             WORK["pipeline"]: notebook(PIPELINE)},
            {"scale_vector": "passed", "sepia_opencl": "passed", "pipeline": "passed"}),
    "bob": ({WORK["scale_vector"]: CLASS["bob"][0]}, {"scale_vector": "not yet"}),
    "cat": ({WORK["sepia_opencl"]: variant(CL, ("0.769f * g", "0.669f * g"))},
            {"sepia_opencl": "not yet"}),
    "dan": ({WORK["pipeline"]: notebook(variant(PIPELINE, ("enumerate(bounds)",
                                                           "enumerate(bounds[:-1])")))},
            {"pipeline": "not yet"}),
    "eve": ({}, {}),
    "fay": (None, dict.fromkeys(EXERCISES, "not handed in")),
    # on the simulator its launch's time limit stops it: a verdict; on a GPU the grader's
    "gus": ({WORK["scale_vector"]: CLASS["cy"][0]}, {"scale_vector": ("not yet", "stopped")}),
    # a checker that dies is "crashed" (test_grading.py's dee); a student's Python can no longer
    # kill it: the screen refuses the import before any of it runs
    "hal": ({WORK["pipeline"]: notebook(pipeline_body("import os; os.kill(os.getpid(), 9)"))},
            {"pipeline": "not yet"}),
    "ivy": ({WORK["scale_vector"]: CLASS["eve"][0], WORK["sepia_opencl"]: CL + "\nnot OpenCL\n"},
            {"scale_vector": "not yet", "sepia_opencl": "not yet"}),
    # loose files, as uploaded to Gradescope: found by their names
    "jon": ({"scale_vector.cu": KERNEL, "my work/05_pinned_memory_and_streams.ipynb":
             notebook(PIPELINE)},
            {"scale_vector": "passed", "pipeline": "passed", "sepia_opencl": "not handed in"}),
}
LOOSE = {"jon"}
# abe's endless loop runs until the grader stops it, so the fixture waits out the whole limit,
# while the other checkers run beside it. Alone on the simulator, each of them took at most 1.9 s
# with a warm compile cache and 4.5 s with an empty one (gus 3.6 and 6.4 s: his launch is stopped
# by the simulator's own limit; either verdict is right for him); in a whole run of the suite on
# two cores, with the other grading tests' checkers beside them, up to 6.8 s warm, and an 8 s
# limit stopped dan's. On a GPU, nvcc and the device's start-up come on top.
TIME_LIMIT = 15


def release_folder(folder, files):
    """A student's copy of the release (the exercises' files as shipped, and files that are
    not the exercises'), then their own ``files``."""
    for name in EXERCISES:
        exercise = catalog.find(name)
        text = catalog.as_shipped(exercise) if exercise.is_kernel else json.dumps(NOTEBOOK)
        if not any(path.endswith(os.path.basename(exercise.work)) for path in files):
            (folder / exercise.work).parent.mkdir(parents=True, exist_ok=True)
            (folder / exercise.work).write_text(text)
    extras = {"notes.txt": "my notes", "cuda_src/solutions/scale_vector.cu": "// not mine",
              ".ipynb_checkpoints/scale_vector.cu": "// an old copy"}
    for path, text in {**extras, **files}.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)


@pytest.fixture(scope="module")
def graded():
    root = stable_dir("classroom")
    students = root / "students"
    for student, (files, _) in STUDENTS.items():
        (students / student).mkdir(parents=True)
        for path, text in (files or {}).items() if student in LOOSE else ():
            (students / student / path).parent.mkdir(parents=True, exist_ok=True)
            (students / student / path).write_text(text)
        if files is not None and student not in LOOSE:
            release_folder(students / student, files)
    handed_in = collect.collect(students, root / "collected")
    (root / "points.json").write_text(json.dumps(POINTS))
    out = root / "grades.csv"
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), str(root / "collected"),
                          "--out", str(out), "--points", str(root / "points.json"),
                          "--time-limit", str(TIME_LIMIT), "--jobs", str(JOBS)]
                         + [f"--exercise={name}" for name in EXERCISES],
                         capture_output=True, text=True, timeout=900,
                         env=dict(os.environ, CUDA_SIM_TIME_LIMIT="2"))
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out, newline="") as f:
        rows = {(r["student"], r["exercise"]): r for r in csv.DictReader(f)}
    return root, handed_in, rows, run.stdout


def expected_status(student, exercise):
    return STUDENTS[student][1].get(exercise, "not started")


def test_collect_copies_the_exercises_files_and_nothing_else(tmp_path):
    folder = tmp_path / "students" / "ada"
    release_folder(folder, STUDENTS["jon"][0])
    collect.collect(tmp_path / "students", tmp_path / "out")
    copied = sorted(p.relative_to(tmp_path / "out" / "ada").as_posix()
                    for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert copied == sorted(e.work for e in catalog.EXERCISES if e.name in EXERCISES)
    assert (tmp_path / "out/ada" / WORK["scale_vector"]).read_text() == KERNEL  # the loose one


def sharing_work(names):
    """The exercises whose work is that of one of ``names``: a notebook handed in hands in every
    Python exercise it holds (notebook 05's copy_bandwidth and staging_upload with pipeline)."""
    works = {catalog.find(name).work for name in names}
    return sorted(e.name for e in catalog.EXERCISES if e.work in works)


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_collect_finds_what_each_student_handed_in(graded):
    _, handed_in, _, _ = graded
    assert handed_in["fay"] == []
    assert sorted(handed_in["jon"]) == sharing_work(["pipeline", "scale_vector"])
    assert sorted(handed_in["eve"]) == sharing_work(EXERCISES)  # the stubs, as shipped


@pytest.mark.slow
@pytest.mark.gpu_timing
@pytest.mark.parametrize("student", sorted(STUDENTS))
def test_each_student_gets_the_status_of_what_happened(graded, student):
    _, _, rows, _ = graded
    for exercise in EXERCISES:
        row, wanted = rows[student, exercise], expected_status(student, exercise)
        assert row["status"] in ((wanted,) if isinstance(wanted, str) else wanted), row
        assert row["result"] == ("pass" if row["status"] == "passed" else "fail"), row
        points = POINTS.get(exercise, 1)
        assert (row["score"], row["max_score"]) == \
            (str(points if row["status"] == "passed" else 0), str(points)), row


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_a_compile_error_carries_the_compilers_first_error_by_the_students_path(graded):
    _, _, rows, _ = graded
    for exercise in ("scale_vector", "sepia_opencl"):
        row = rows["ivy", exercise]
        assert re.match(re.escape(WORK[exercise]) + r"[:(]\d", row["error"]), row  # g++, nvcc
        assert "error" in row["error"], row
    assert rows["ada", "scale_vector"]["error"] == ""
    assert "imports os" in rows["hal", "pipeline"]["problem"], rows["hal", "pipeline"]


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_the_gradebook_has_nbgraders_columns_and_a_score_an_exercise(graded):
    root, _, _, printed = graded
    with open(root / "grades.gradebook.csv", newline="") as f:
        reader = csv.DictReader(f)
        table = {r["student_id"]: r for r in reader}
    assert reader.fieldnames == ["student_id", "raw_score", "score", "max_score", *EXERCISES]
    assert sorted(table) == sorted(STUDENTS)
    assert table["ada"] == {"student_id": "ada", "raw_score": "4", "score": "4",
                                 "max_score": "4", "scale_vector": "1", "sepia_opencl": "1",
                                 "pipeline": "2"}
    assert table["jon"]["score"] == "3" and table["fay"]["score"] == "0"
    assert "ada                  3 of 3  (4 of 4 points)" in printed, printed


@pytest.mark.slow
@pytest.mark.gpu_timing
@pytest.mark.parametrize("student", sorted(STUDENTS))
def test_each_student_has_a_feedback_file_telling_every_exercise(graded, student):
    root, _, rows, _ = graded
    text = (root / "grades.feedback" / f"{student}.md").read_text()
    page = (root / "grades.feedback" / f"{student}.html").read_text()
    for exercise in EXERCISES:
        status = rows[student, exercise]["status"]
        heading = "## " + exercise.replace("_", "\\_") + ": "
        assert heading in text, text
        assert f"<h2 class=\"{'passed' if status == 'passed' else 'other'}\">{exercise}: " in page
    if student == "ivy":
        assert re.search(r"\*\*First error:\*\*\n\n```\ncuda_src/exercises/scale_vector\.cu[:(]\d",
                         text), text


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_no_text_names_a_file_of_the_grading_machine(graded):
    root, _, _, _ = graded
    for path in [root / "grades.csv", root / "grades.gradebook.csv",
                 *sorted((root / "grades.feedback").iterdir())]:
        text = path.read_text()
        for folder in (root, ROOT):
            assert str(folder) not in text, (path, folder)


def test_paths_in_a_row_are_the_students(tmp_path):
    grade = importlib.import_module("grade")
    student = tmp_path / "subs" / "ada"
    row = {"problem": f"{student}/cuda_src/exercises/julia.cu does not compile", "hint": "h",
           "error": f"{student.resolve()}/cuda_src/exercises/julia.cu:3:1: error: x"}
    assert grade.in_submission(row, student) == {
        "problem": "cuda_src/exercises/julia.cu does not compile", "hint": "h",
        "error": "cuda_src/exercises/julia.cu:3:1: error: x"}
