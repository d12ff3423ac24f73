"""tools/gradescope.py: the zip holds what Gradescope runs (setup.sh, run_autograder, the course
without its solutions), and its run_autograder, started in a stand-in of Gradescope's folders
(AUTOGRADER_ROOT: never the real /autograder), grades the submission on the simulator and
writes results/results.json with a score, a maximum and a test an exercise."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from kernel_sources import ROOT
from test_grading import CLASS, KERNEL

from helpers.exercises import catalog

sys.path.insert(0, str(ROOT / "tools"))
import gradescope  # noqa: E402

POINTS = {"sepia_opencl": 3}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gradescope")
    (folder / "points.json").write_text(json.dumps(POINTS))
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "gradescope.py"), "build",
                          str(folder / "autograder.zip"), "--points", str(folder / "points.json"),
                          "--time-limit", "30"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return folder / "autograder.zip"


@pytest.mark.slow
def test_the_zip_has_setup_and_run_autograder_at_its_top_and_no_solution(bundle):
    with zipfile.ZipFile(bundle) as z:
        names = z.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
        setup = z.read("setup.sh").decode()
        apt = z.read("course/apt.txt").decode().split()
        settings = json.loads(z.read("course/gradescope.json"))
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert "apt-get install" in setup and "course/apt.txt" in setup and "bubblewrap" in setup
    assert apt == ["g++", "binutils"]
    assert "pip install -e /autograder/source/course" in setup
    assert "course/tools/grade.py" in names and "course/helpers/exercises/catalog.py" in names
    assert not [n for n in names if "/solutions/" in n or n.startswith("course/tests/")]
    assert settings["points"]["sepia_opencl"] == 3 and settings["points"]["julia"] == 1
    assert settings["time_limit"] == 30
    for script in ("setup.sh", "run_autograder"):
        check = subprocess.run(["bash", "-n", "/dev/stdin"], input=z_text(bundle, script),
                               capture_output=True, text=True)
        assert check.returncode == 0, (script, check.stderr)


def z_text(bundle, name):
    with zipfile.ZipFile(bundle) as z:
        return z.read(name).decode()


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_run_autograder_grades_a_submission_in_gradescopes_folders(bundle, tmp_path):
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    (root / "submission" / "uploaded").mkdir(parents=True)
    (root / "submission" / "scale_vector.cu").write_text(KERNEL)            # loose, right
    (root / "submission" / "uploaded" / "julia.cu").write_text(CLASS["eve"][0])  # no compile
    (root / "submission" / "sepia.cl").write_text(catalog.as_shipped(catalog.find("sepia_opencl")))
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True,
                         text=True, timeout=600,
                         env=dict(os.environ, AUTOGRADER_ROOT=str(root),
                                  AUTOGRADER_PYTHON=sys.executable))
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    tests = {t["name"].split()[0]: t for t in results["tests"]}
    assert sorted(tests) == sorted(e.name for e in catalog.EXERCISES)
    assert (results["score"], results["max_score"]) == (1, len(catalog.EXERCISES) + 2), \
        json.dumps(tests["scale_vector"], indent=1)   # the right kernel's row, where it failed
    assert all(set(t) >= {"name", "score", "max_score", "output", "status"} for t in tests.values())
    assert (tests["scale_vector"]["score"], tests["scale_vector"]["status"]) == (1, "passed")
    assert tests["sepia_opencl"]["max_score"] == 3
    assert tests["sepia_opencl"]["output"].startswith("**not started**")
    assert tests["julia"]["output"].startswith("**not yet**")
    assert "```\ncuda_src/exercises/julia.cu:" in tests["julia"]["output"]
    assert tests["matmul_bt"]["output"].startswith("**not handed in**")
    assert str(root) not in json.dumps(results)


def test_results_json_scores_each_exercise(monkeypatch):
    rows = [{"student": "s", "exercise": "julia", "status": "passed", "score": "2",
             "max_score": "2", "problem": "checked", "hint": "", "error": ""},
            {"student": "s", "exercise": "sepia", "status": "not handed in", "score": "0",
             "max_score": "1", "problem": "not handed in", "hint": "hand it in", "error": ""}]
    results = gradescope.results_json(rows)
    assert (results["score"], results["max_score"]) == (2, 3)
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in results["tests"]] == \
        [("julia (03_mandelbrot.ipynb)", 2, 2, "passed"),
         ("sepia (04_grayscale.ipynb)", 0, 1, "failed")]


def test_run_outside_a_bundle_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(gradescope, "ROOT", tmp_path)
    with pytest.raises(SystemExit, match="gradescope.json is missing"):
        gradescope.run(tmp_path / "autograder")
    assert not (tmp_path / "autograder").exists()
