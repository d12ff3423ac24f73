#!/usr/bin/env python3
"""The first code cell of every notebook: silent where the course is installed, and where it is
not (a notebook opened alone: from GitHub in Colab, downloaded by itself), the commands that
install it, in place of a ``ModuleNotFoundError: helpers`` one cell down.

    python tools/setup_cell.py           # write it into every notebook, as its first code cell
    python tools/setup_cell.py --check   # exit 1 naming the notebooks whose copy is missing or differs

Its text stands here once; each notebook holds a copy, as its first code cell, with the id
``course-setup`` (tests/notebooks/test_setup_cell.py checks every copy against SOURCE), tagged
``remove-cell`` so that the website (tools/build_site.py), whose readers run nothing, leaves it
out. Writing it touches no other cell, so the outputs the other cells stored on the GPU stay as they
were. It prints nothing when the course's package imports, so it stores no output, and a notebook
whose other cells were stored before it was added keeps it unnumbered (test_notebook_format.py).

It runs before anything of the course exists, so it uses the standard library only. Where the
course is missing it prints what to do and stops the notebook's run (Run All stops at an error)
with one line, not a traceback: IPython shows what an exception's ``_render_traceback_`` returns
in place of the traceback. On Colab (where ``google.colab`` imports) the commands fetch the
course and install it, with PyCUDA built against Colab's CUDA toolkit on a GPU runtime
(``nvidia-smi`` is there) or for the simulator on a CPU one; elsewhere they are the README's.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import store_outputs  # noqa: E402 - after the path is set

NOTEBOOKS = store_outputs.NOTEBOOKS
CELL_ID = "course-setup"
REPOSITORY = re.search(r'^Repository = "([^"]+)"', (store_outputs.ROOT / "pyproject.toml").read_text(
    encoding="utf-8"), flags=re.M).group(1)
"""Where the course is published: pyproject.toml's one setting ([project.urls], read without
tomllib, which Python 3.10 lacks), which the README repeats."""
COLAB_FOLDER = "/content/cuda-course"
README_COMMANDS = (
    "make lab     # set up .venv, then open JupyterLab on the course, at notebook 01",
    "make test    # set up .venv, then run every test, notebooks included")
"""The README's two commands, as its first code block gives them (a test compares them)."""
SOURCE = f'''\
# Set-up: prints nothing where the course is installed; otherwise what to run, then stops.
import importlib.util
import shutil
if not importlib.util.find_spec("helpers") or not importlib.util.find_spec("helpers.course"):
    if importlib.util.find_spec("google") and importlib.util.find_spec("google.colab"):
        gpu = "[gpu]" if shutil.which("nvidia-smi") else ""  # a CPU runtime: the simulator
        say = ["Run, in a new cell:", "!git clone -q --depth 1 {REPOSITORY} {COLAB_FOLDER} && "
               f'pip install -q "{COLAB_FOLDER}{{gpu}}"', "%cd {COLAB_FOLDER}/notebooks"]
    else:
        say = ["Get it (git clone {REPOSITORY}), and in its folder run:",
               "{README_COMMANDS[0]}",
               "{README_COMMANDS[1]}"]
    print("This notebook is part of a course that is not installed here.", say[0],
          *("    " + step for step in say[1:]), "then run this notebook again.", sep="\\n")

    class CourseNotInstalled(Exception):
        def _render_traceback_(self):  # what IPython shows in place of a traceback
            return ["(stopped here: the cells below need the course)"]
    raise CourseNotInstalled
'''


def setup_cell():
    return nbformat.v4.new_code_cell(SOURCE, id=CELL_ID, metadata={"tags": ["remove-cell"]})


def first_code(nb) -> int:
    """The index of the notebook's first code cell (len(nb.cells) when it has none)."""
    return next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))


def holds_it(nb) -> bool:
    """True when the first code cell is this one, as SOURCE and setup_cell() give it."""
    i = first_code(nb)
    if i == len(nb.cells) or nb.cells[i].get("id") != CELL_ID:
        return False
    cell = nb.cells[i]
    return cell.source == SOURCE and cell.metadata == setup_cell().metadata and not cell.outputs


def put(nb) -> None:
    """The first code cell becomes this one: replaced where an older copy stands there,
    inserted before it otherwise. Its execution count is kept (None, or the one a run gave)."""
    cell, i = setup_cell(), first_code(nb)
    if i < len(nb.cells) and nb.cells[i].get("id") == CELL_ID:
        cell.execution_count = nb.cells[i].execution_count
        nb.cells[i] = cell
    else:
        nb.cells.insert(i, cell)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which notebooks differ")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb"))
    differ = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if holds_it(nb):
            continue
        differ.append(path.name)
        if not args.check:
            put(nb)
            store_outputs.write(nb, path)
    if args.check and differ:
        print(f"the set-up cell is missing or differs in: {', '.join(differ)} "
              "(python tools/setup_cell.py writes it)")
        return 1
    print(f"{'checked' if args.check else 'wrote'}: {len(paths)} notebooks"
          + ("" if args.check else f", {len(differ)} changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
