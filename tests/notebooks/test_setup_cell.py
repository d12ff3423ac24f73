"""A notebook opened alone (on Colab, downloaded by itself) says in its first code cell what to
run, rather than failing with ``ModuleNotFoundError: helpers`` (tools/setup_cell.py).

The cell runs here as a learner meets it: in IPython, in a fresh interpreter whose path holds
the standard library and this interpreter's packages but no course (the folders alone, without
their .pth files, so the course's editable install is not on it) and no PYTHONPATH, started in an
empty folder. Colab is stood in for by a folder holding an empty ``google/colab`` package, a GPU
runtime by an ``nvidia-smi`` on PATH.
"""

import importlib.util
import re
import site
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("setup_cell", ROOT / "tools" / "setup_cell.py")
setup_cell = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(setup_cell)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
RUN_CELL = """
import sys
sys.path += sys.argv[2:]
from IPython.core.interactiveshell import InteractiveShell
result = InteractiveShell.instance().run_cell(open(sys.argv[1]).read())
print("RAISED", type(result.error_in_exec).__name__)
"""
"""Runs the cell in IPython, with the folders given on the path; prints what it raised last."""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_notebook_starts_with_the_one_setup_cell(path):
    nb = nbformat.read(path, as_version=4)
    assert setup_cell.holds_it(nb), (
        f"{path.name}: its first code cell is not tools/setup_cell.py's: "
        "python tools/setup_cell.py writes it")


def test_writing_it_touches_no_other_cell_and_replaces_an_old_copy():
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    others = [c for c in nb.cells if c.get("id") != setup_cell.CELL_ID]
    stale = nbformat.v4.new_notebook(cells=[others[0], setup_cell.setup_cell(), *others[1:]])
    stale.cells[1].source, stale.cells[1].execution_count = "print('an older set-up')", 1
    for without in (nbformat.v4.new_notebook(cells=list(others)), stale):
        assert not setup_cell.holds_it(without)
        setup_cell.put(without)
        assert setup_cell.holds_it(without)
        assert [c for c in without.cells if c.get("id") != setup_cell.CELL_ID] == others
    assert stale.cells[[c.get("id") for c in stale.cells].index(
        setup_cell.CELL_ID)].execution_count == 1


def _run(tmp_path, *, colab=False, gpu=False, course=False):
    """(what the learner sees, what was raised) after the cell ran in a fresh interpreter."""
    cell, bin_dir, home = tmp_path / "cell.py", tmp_path / "bin", tmp_path / "home"
    cell.write_text(setup_cell.SOURCE)
    for folder in (bin_dir, home):
        folder.mkdir(exist_ok=True)
    folders = []
    if colab:
        (tmp_path / "colab" / "google" / "colab").mkdir(parents=True, exist_ok=True)
        (tmp_path / "colab" / "google" / "colab" / "__init__.py").write_text("")
        folders.append(str(tmp_path / "colab"))
    if gpu:
        (bin_dir / "nvidia-smi").write_text("#!/bin/sh\n")
        (bin_dir / "nvidia-smi").chmod(0o755)
    if course:
        folders.append(str(ROOT))
    # IPython, without the .pth files of these folders (the editable install's among them), and
    # wherever else this Python finds it (PYTHONPATH's folder of wheels, on the GPU machine)
    ipython = str(Path(importlib.util.find_spec("IPython").origin).parents[1])
    folders += dict.fromkeys([*site.getsitepackages(), ipython])
    env = {"PATH": str(bin_dir), "HOME": str(home), "IPYTHONDIR": str(home / ".ipython")}
    run = subprocess.run([sys.executable, "-S", "-s", "-c", RUN_CELL, str(cell), *folders],
                         cwd=home, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    seen, _, raised = run.stdout.rpartition("RAISED ")
    return seen, raised.strip()


def _commands(seen):
    return [line[4:] for line in seen.splitlines() if line.startswith("    ")]


@pytest.mark.slow
def test_where_the_course_is_installed_it_prints_nothing(tmp_path):
    assert _run(tmp_path, course=True, colab=True) == ("", "NoneType")


@pytest.mark.slow
def test_on_colab_it_gives_the_commands_that_fetch_and_install_the_course_then_stops(tmp_path):
    seen, raised = _run(tmp_path, colab=True)
    clone = (f"!git clone -q --depth 1 {setup_cell.REPOSITORY} {setup_cell.COLAB_FOLDER} && "
             f'pip install -q "{setup_cell.COLAB_FOLDER}"')
    assert _commands(seen) == [clone, f"%cd {setup_cell.COLAB_FOLDER}/notebooks"], seen
    assert raised == "CourseNotInstalled"
    assert "Traceback" not in seen and seen.rstrip().endswith(
        "(stopped here: the cells below need the course)"), seen
    seen, _ = _run(tmp_path, colab=True, gpu=True)   # a GPU runtime: PyCUDA too
    assert _commands(seen)[0] == clone.replace('course"', 'course[gpu]"'), seen


@pytest.mark.slow
def test_elsewhere_it_gives_the_readme_commands_then_stops(tmp_path):
    seen, raised = _run(tmp_path, gpu=True)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```sh\n(.*?)```", readme, flags=re.S).group(1).splitlines()
    assert _commands(seen) == first_block == list(setup_cell.README_COMMANDS), seen
    assert f"git clone {setup_cell.REPOSITORY}" in seen and raised == "CourseNotInstalled"


def test_the_readme_binder_badge_opens_the_repository_pyproject_names():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    owner_repo = setup_cell.REPOSITORY.removeprefix("https://github.com/")
    badges = re.findall(r"https://mybinder\.org/v2/gh/([^/]+/[^/]+)/", readme)
    assert badges and set(badges) == {owner_repo}, badges


def test_the_readme_colab_section_gives_the_cell_s_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Colab\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, flags=re.S).group(1).splitlines()
    folder, repository = setup_cell.COLAB_FOLDER, setup_cell.REPOSITORY
    assert block == [f"!git clone -q --depth 1 {repository} {folder} && "
                     f'pip install -q "{folder}[gpu]"', f"%cd {folder}/notebooks"], block
