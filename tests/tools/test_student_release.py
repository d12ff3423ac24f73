"""tools/student_release.py: the release holds no solution, its stubs are as shipped, and every
notebook in it runs (nbval, with the release's own helpers package)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernel_sources import ROOT

from helpers.exercises import catalog

sys.path.insert(0, str(ROOT / "tools"))
import student_release  # noqa: E402

SOLUTIONS = sorted((ROOT / "cuda_src" / "solutions").glob("*.cu")) + sorted(
    (ROOT / "cuda_src" / "solutions").glob("*.py")) + sorted(
    (ROOT / "cuda_src" / "opencl" / "solutions").glob("*.cl")) + sorted(
    p for p in (ROOT / "helpers" / "exercises" / "solutions").glob("*.py")
    if p.name != "__init__.py")


def code_lines(text):
    """Lines of code, comments and blank lines dropped, spaces collapsed."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = (re.sub(r"(//|#).*$", "", line) for line in text.splitlines())
    return [" ".join(line.split()) for line in lines if line.strip() not in ("", "{", "}")]


def windows(text, width=3):
    """Every run of ``width`` consecutive code lines of a text."""
    lines = code_lines(text)
    return {tuple(lines[i:i + width]) for i in range(len(lines) - width + 1)}


# What the course shows on purpose: its own kernels (mandelbrot.cu guards and indexes as the
# exercises do), the code its stubs hand out (sepia_x16.cu's helper functions; a Python
# exercise's cell as shipped, whose loop over the chunks its solution keeps, as the skeleton rule
# asks) and its checkers (the pipeline checker's baseline copies, launches and copies back one
# chunk at a time, as the notebook's section 4 does).
TAUGHT = set().union(*(windows(p.read_text()) for p in [
    *(ROOT / "cuda_src").glob("*.cu"), *(ROOT / "cuda_src" / "exercises").glob("*"),
    *(ROOT / "cuda_src" / "opencl").glob("*.cl"),
    *(ROOT / "cuda_src" / "opencl" / "exercises").glob("*.cl"),
    *(ROOT / "helpers" / "exercises").glob("*.py"),
    *(ROOT / "helpers" / "exercises" / "as_shipped").glob("*.py")]))


def answer_windows(solution):
    """The runs of three code lines of a solution that the course does not show elsewhere: a
    file that holds one holds a good part of the answer. (Single lines are left to the hints,
    which name the guard or the index formula on purpose.)"""
    return windows(solution.read_text()) - TAUGHT


def texts(path):
    """The text a file shows a reader: for a notebook, its cells' sources and outputs."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        parts = ["".join(c["source"]) for c in cells]
        for c in cells:
            for output in c.get("outputs", []):
                parts.append("".join(output.get("text", "")))
                parts.append("".join(output.get("data", {}).get("text/plain", "")))
        return "\n".join(parts)
    return path.read_text(errors="replace")


def leaks(text):
    """The solutions whose answer a text holds."""
    runs = windows(text)
    return [s.name for s in SOLUTIONS if answer_windows(s) & runs]


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "course"
    student_release.release(out)
    return out


def test_without_git_the_course_is_its_files_less_what_gitignore_ignores(tmp_path):
    """A ZIP download has no .git: its files, less the learner's own (.venv, caches, saved
    copies), are the course, and they are the files git tracks in a checkout."""
    copy = tmp_path / "zip"
    for name in student_release.tracked_files():
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    for made in (".venv/bin/python", "helpers/__pycache__/backend.cpython-312.pyc",
                 "cuda_src/exercises/julia.cu.saved-20261201-093000", "bench/out/table.csv",
                 "cuda_course.egg-info/PKG-INFO", "notebooks/.ipynb_checkpoints/01-checkpoint.ipynb"):
        (copy / made).parent.mkdir(parents=True, exist_ok=True)
        (copy / made).write_text("the learner's, not the course's")
    assert student_release.unignored_files(copy) == sorted(
        n for n in student_release.tracked_files() if (ROOT / n).is_file())


def test_a_stub_whose_folder_git_does_not_track_is_written_as_shipped(tmp_path):
    """A checkout where git tracks none of an exercise folder's files (on the H200 machine,
    cuda_src/opencl/exercises/): its stub is still written, folder and all."""
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "README.md").write_text("# The course\n")
    try:
        for cmd in (["git", "init", "-q"], ["git", "add", "README.md"]):
            subprocess.run(cmd, cwd=root, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"git does not work here: {err}")
    student_release.release(tmp_path / "out", root)
    for exercise in catalog.EXERCISES:
        if exercise.is_kernel:
            assert (tmp_path / "out" / exercise.work).read_text() == catalog.as_shipped(exercise)


def test_the_leak_check_finds_a_solution_where_there_is_one():
    assert all(answer_windows(s) for s in SOLUTIONS)
    for solution in SOLUTIONS:   # (sepia.cl, the port, holds sepia.cu's answer too)
        assert solution.name in leaks("some text\n" + solution.read_text() + "\nmore")
    assert leaks((ROOT / "cuda_src/vector_add.cu").read_text()) == []


def test_no_solution_survives_in_the_release(release):
    files = [p for p in release.rglob("*") if p.is_file()]
    assert not [p for p in files if "solutions" in p.relative_to(release).parts]
    assert not (release / "tests").exists()
    found = {str(p.relative_to(release)): leaks(texts(p)) for p in files
             if p.suffix in (".cu", ".py", ".ipynb", ".md", ".txt", ".h")}
    assert not {name: hit for name, hit in found.items() if hit}


def test_the_release_has_the_stubs_as_shipped_and_says_what_it_is(release):
    for exercise in catalog.EXERCISES:
        if exercise.is_kernel:
            assert (release / exercise.work).read_text() == catalog.as_shipped(exercise)
    assert (release / "README.md").read_text().startswith("> **Student release.**")
    with pytest.raises(SystemExit, match="already exists"):
        student_release.release(release)


def test_pytest_reads_and_runs_each_notebook_from_the_release(tmp_path):
    """The notebooks' nbval run is the release's (conftest.py): each notebook keeps its test id
    and is read, and its kernel started, from the release's copy, with the release's helpers
    first on the kernel's path, as a GPU of compute capability 7.5 on the simulator. (Seen at the
    first cell's setup, before the kernel starts.)"""
    (tmp_path / "show_notebooks.py").write_text(
        "import os\nimport pytest\n"
        "def pytest_collection_finish(session):\n"
        "    print('NODEID', session.items[0].nodeid)\n"
        "    print('READ', session.items[0].parent.fspath)\n"
        "    print('RELEASE', os.environ['CUDA_COURSE_RELEASE_UNDER_TEST'])\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_runtest_setup(item):\n"
        "    print('KERNEL_PATH', os.environ['PYTHONPATH'].split(os.pathsep)[0])\n"
        "    print('KERNEL_CC', os.environ['CUDA_SIM_COMPUTE_CAPABILITY'])\n"
        "    pytest.exit('seen', returncode=0)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]))
    env.pop("CUDA_SIM_COMPUTE_CAPABILITY", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "show_notebooks",
                          "-p", "no:xdist", "notebooks/01_hello_cuda.ipynb"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    said = dict(line.split(" ", 1) for line in run.stdout.splitlines()
                if line.startswith(("NODEID ", "READ ", "RELEASE ", "KERNEL_PATH ", "KERNEL_CC ")))
    assert said.get("NODEID") == "notebooks/01_hello_cuda.ipynb::Cell 0", run.stdout + run.stderr
    release = Path(said["RELEASE"])
    assert Path(said["READ"]) == release / "notebooks" / "01_hello_cuda.ipynb"
    assert Path(said["KERNEL_PATH"]) == release
    assert said["KERNEL_CC"] == "7.5"   # on the simulator, the lowest GPU learners have


def test_the_tests_release_holds_a_new_file_git_does_not_track_yet(tmp_path):
    """The notebooks' tests run in a release of the work at hand (conftest.py): a module added
    but not yet given to git is in it (an H200 run whose git index predated two new modules
    failed 101 notebook cells on their imports); an ignored file is not, and the release to hand
    out holds what git tracks."""
    root = tmp_path / "checkout"
    (root / "helpers").mkdir(parents=True)
    (root / "README.md").write_text("# The course\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "helpers" / "new.py").write_text("NEW = 1\n")
    (root / "helpers" / "run.log").write_text("noise\n")
    try:
        for cmd in (["git", "init", "-q"], ["git", "add", "README.md", ".gitignore"]):
            subprocess.run(cmd, cwd=root, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"git does not work here: {err}")
    work = student_release.release(tmp_path / "work", root, working_tree=True)
    handed_out = student_release.release(tmp_path / "out", root)
    assert "helpers/new.py" in work and "helpers/run.log" not in work
    assert "helpers/new.py" not in handed_out
