"""The course as a class's JupyterHub has it: the package installed by pip, not editable, into an
environment of its own, and the learner's copy of the course (cuda_src/ and the notebooks, no
package) somewhere else. Notebook 01 and a checker run from inside the copy; a program outside
any copy finds it through CUDA_COURSE_ROOT, and without it says where it looked
(helpers/course.py).

One environment serves every test here: a venv made with this interpreter's packages on its path
(a .pth file: nothing is downloaded) and the package built from a copy of its source by
``pip install --no-deps --no-build-isolation``, as an administrator installs it.
"""

import json
import os
import shutil
import site
import subprocess
import types
import venv
from pathlib import Path

import pytest

from helpers import settings
from kernel_sources import stable_dir

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json
import helpers
from helpers import course
from helpers.backend import compile_cu
from helpers.exercises.scale_vector import check_scale_vector
try:
    compile_cu("vector_add.cu").get_function("vector_add")
    found = {"root": str(course.root()),
             "passed": check_scale_vector("solutions/scale_vector.cu").passed}
except course.CourseNotFound as err:
    found = {"searched": [str(p) for p in err.searched], "setting": err.setting}
print(json.dumps({"helpers": helpers.__file__, **found}))
"""
"""What a learner's code asks of the course, printed as JSON on its last line."""
RUN_NOTEBOOK = """
import os
import sys
import nbformat
from nbclient import NotebookClient
notebook, probe = nbformat.read(sys.argv[1], as_version=4), sys.argv[2]
notebook.cells.append(nbformat.v4.new_code_cell(probe))
NotebookClient(notebook, timeout=300, kernel_name="python3",
               resources={"metadata": {"path": os.path.dirname(sys.argv[1])}}).execute()
print("".join(o.get("text", "") for o in notebook.cells[-1].outputs))
"""
"""Notebook 01 with the probe as its last cell, run where JupyterLab runs it: in its folder, in a
kernel of the interpreter that runs this script (jupyter_client's python3 kernel)."""


def _environment(folder: Path) -> Path:
    """A venv in ``folder`` that sees this interpreter's packages; its python."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(folder)
    python = folder / ("Scripts" if os.name == "nt" else "bin") / "python"
    where = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    # Plain folders in a .pth are put on the path as they are: their own .pth files (this
    # environment's editable install of the course among them) are not read. Packages installed
    # into a folder on PYTHONPATH (as on a GPU machine without a package index) count too; the
    # checkout itself does not.
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
             if p and Path(p).resolve() != ROOT]
    (Path(where) / "outer_packages.pth").write_text("\n".join([*site.getsitepackages(), *extra])
                                                    + "\n")
    return python


def _env(**changes):
    """This process's environment, without what would import this checkout's helpers or name
    a course, and with ``changes``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", settings.COURSE_ROOT)}
    return {**env, **changes}


@pytest.fixture(scope="module")
def installed():
    # at the same path in every run, so that what the checker compiles from the copy is found in
    # the compile cache the next time (in a new folder each run, its module was compiled again in
    # every warm run; notebook 01 compiles one new module a run on purpose, to show the cache)
    folder = stable_dir("installed").resolve()
    source, course = folder / "source", folder / "course"
    junk = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "helpers", source / "helpers", ignore=junk)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "cuda_src", course / "cuda_src", ignore=junk)
    (course / "notebooks").mkdir()
    shutil.copy2(ROOT / "notebooks" / "01_hello_cuda.ipynb", course / "notebooks")
    python = _environment(folder / "venv")
    pip = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                          "--no-input", "--no-cache-dir", "--disable-pip-version-check",
                          str(source)],
                         capture_output=True, text=True, env=_env())
    assert pip.returncode == 0, pip.stdout + pip.stderr
    site = subprocess.run([python, "-c", "import helpers; print(helpers.__file__)"],
                          capture_output=True, text=True, env=_env(), cwd=folder, check=True)
    package = Path(site.stdout.strip()).parent
    assert (folder / "venv") in package.parents, package  # the install, not this checkout
    return types.SimpleNamespace(python=python, course=course, folder=folder, package=package)


def _found(run) -> dict:
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_notebook_01_and_a_checker_run_in_a_copy_of_the_course(installed):
    notebook = installed.course / "notebooks" / "01_hello_cuda.ipynb"
    run = subprocess.run([installed.python, "-c", RUN_NOTEBOOK, str(notebook), PROBE],
                         capture_output=True, text=True, env=_env(), cwd=installed.folder,
                         timeout=600)
    found = _found(run)
    assert Path(found["helpers"]).parent == installed.package
    assert found["root"] == str(installed.course) and found["passed"]


def test_outside_any_copy_the_setting_finds_it_and_without_it_the_error_says_where_it_looked(
        installed):
    outside = installed.folder / "elsewhere"
    outside.mkdir()
    run = lambda env: subprocess.run([installed.python, "-c", PROBE],  # noqa: E731
                                     capture_output=True, text=True, env=env, cwd=outside)
    found = _found(run(_env(**{settings.COURSE_ROOT: str(installed.course)})))
    assert found["root"] == str(installed.course) and found["passed"]
    found = _found(run(_env()))
    assert found["setting"] == ""
    assert found["searched"] == [str(p) for p in [outside, *outside.parents,
                                                  installed.package.parent]]
