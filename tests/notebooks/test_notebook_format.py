"""Every notebook is valid, numbered, canonically formatted, and either stripped or stored whole.

Stored outputs must come from one top-to-bottom run by tools/store_outputs.py, which also
records the backend and device in the metadata; committed notebooks without outputs have
none at all. `python tools/store_outputs.py --format` rewrites a notebook in the canonical
format, `--strip` removes its outputs.
"""

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("store_outputs", ROOT / "tools" / "store_outputs.py")
store_outputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(store_outputs)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SETUP_CELL = "course-setup"  # tools/setup_cell.py's CELL_ID
NAME = re.compile(r"^(\d\d)_[a-z0-9]+(_[a-z0-9]+)*\.ipynb$")


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no .ipynb file"


def test_names_are_numbered_in_teaching_order_and_listed_in_the_readme():
    bad = [p.name for p in NOTEBOOKS if not NAME.match(p.name)]
    assert not bad, f"names must look like NN_topic_words.ipynb: {bad}"
    numbers = [int(NAME.match(p.name).group(1)) for p in NOTEBOOKS]
    assert numbers[0] == 1 and len(set(numbers)) == len(numbers), (
        f"numbers must be unique and start at 01: {[p.name for p in NOTEBOOKS]}")
    # Chapters may land out of order (a later one before an earlier one is written): the
    # README's table of notebooks is what a learner follows, so it lists exactly those present.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\d\d_[a-z0-9_]+)` \|", readme, flags=re.M)
    assert listed == [p.stem for p in NOTEBOOKS], (
        f"README.md's notebook table lists {listed}; notebooks/ holds "
        f"{[p.stem for p in NOTEBOOKS]}")


def code_cells(nb):
    """Code cells that a run executes (nbclient and nbval skip empty ones)."""
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


@pytest.fixture(params=NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def notebook(request):
    path = request.param
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    return path, text, nb


def test_valid_nbformat_v4(notebook):
    path, _, nb = notebook
    assert nb.nbformat == 4, f"{path.name} is nbformat {nb.nbformat}, not 4"
    nbformat.validate(nb)


def test_canonical_format(notebook):
    path, text, nb = notebook
    expected = nbformat.writes(nb, version=4)
    if not expected.endswith("\n"):
        expected += "\n"
    assert text == expected, (
        f"{path.name} is not in nbformat's canonical format: "
        f"python tools/store_outputs.py --format {path.relative_to(ROOT)}")


def test_starts_with_markdown_title(notebook):
    path, _, nb = notebook
    assert nb.cells and nb.cells[0].cell_type == "markdown", f"{path.name}: first cell not markdown"
    first = next((ln for ln in nb.cells[0].source.splitlines() if ln.strip()), "")
    assert first.startswith("# "), f"{path.name}: first cell must start with a '# Title' line"


def test_no_notebook_loads_the_wurlitzer_extension(notebook):
    # ipykernel 6 and newer already forward file descriptor 1 (where kernel printf goes) into the
    # running cell; `%load_ext wurlitzer` on top of that sends the output to the kernel's terminal
    # instead (minrk/wurlitzer#93). tests/sim/run/test_printed.py checks that the lines show.
    path, _, nb = notebook
    loads = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and "%load_ext wurlitzer" in c.source]
    assert not loads, f"{path.name}: cells {loads} load wurlitzer, which hides kernel printf"


def test_the_last_code_cell_reports_what_the_notebook_used(notebook):
    # helpers.workload.report(): an instructor running a class on one server reads each
    # notebook's peak memory and the class size it ran for there (README, "A class on one server")
    path, _, nb = notebook
    last = [c for c in nb.cells if c.cell_type == "code"][-1]
    assert re.search(r"^report\(\)", last.source, flags=re.M), (
        f"{path.name}: its last code cell does not call report() (from helpers.workload)")


def test_no_stored_error_traceback_machine_path_or_warning(notebook):
    path, _, nb = notebook
    problems = store_outputs.unfit_outputs(nb)
    assert not problems, f"{path.name} stores outputs a reader should never see: {problems}"


def test_the_unfit_outputs_are_found():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[
        nbformat.v4.new_output("stream", name="stderr",
                               text="/work/x/helpers/backend.py:101: UserWarning: said"),
        nbformat.v4.new_output("stream", name="stdout",
                               text="Traceback (most recent call last):\n  File \"<string>\""),
        nbformat.v4.new_output("stream", name="stdout",
                               text="========= Warning: Error buffer overflow (compute-sanitizer)"),
        nbformat.v4.new_output("error", ename="ValueError", evalue="", traceback=[])])])
    assert store_outputs.unfit_outputs(nb) == [
        (0, "a machine path"), (0, "a Python warning"), (0, "a traceback"),
        (0, "an error (ValueError)")]


def test_stripped_or_stored_from_one_run(notebook):
    path, _, nb = notebook
    cells = code_cells(nb)
    if cells and cells[0].get("id") == SETUP_CELL and cells[0].execution_count is None:
        # The set-up cell (tools/setup_cell.py), added after the run: where the course is
        # installed it prints nothing, which is all a run would have stored of it.
        assert not cells[0].outputs, f"{path.name}: the set-up cell stores outputs"
        cells = cells[1:]
    counts = [c.execution_count for c in cells]
    has_outputs = any(c.outputs for c in nb.cells if c.cell_type == "code")
    if not has_outputs and all(n is None for n in counts):
        assert "cuda_course" not in nb.metadata, (
            f"{path.name} has no outputs but metadata.cuda_course says it was run")
        return
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..{len(cells)} in order: store outputs "
        "with tools/store_outputs.py (one top-to-bottom run), or remove them with --strip")
    meta = nb.metadata.get("cuda_course")
    assert isinstance(meta, dict), f"{path.name} has outputs but no metadata.cuda_course"
    for key in ("backend", "device", "executed_at"):
        assert meta.get(key), f"{path.name}: metadata.cuda_course.{key} is missing or empty"
    assert meta["backend"] in ("pycuda", "simulator"), f"{path.name}: backend {meta['backend']!r}"
