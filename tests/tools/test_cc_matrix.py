"""tools/cc_matrix.py runs a notebook on the simulator at a compute capability and reports whether
it ran, the cell that failed, and the cells that skipped for want of a newer GPU (their facts,
from what helpers/capability.py displayed). The course's notebooks themselves run at 7.5 in the
suite's nbval run (conftest.py); the other capabilities are the script's, run by hand."""

import importlib.util
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("cc_matrix", ROOT / "tools" / "cc_matrix.py")
cc_matrix = sys.modules["cc_matrix"] = importlib.util.module_from_spec(_spec)  # its dataclass
_spec.loader.exec_module(cc_matrix)                                            # looks it up

pytestmark = pytest.mark.slow


def _notebook(folder, *sources):
    cells = [nbformat.v4.new_code_cell(s, id=f"c{i}") for i, s in enumerate(sources)]
    path = folder / "probe.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return path


def test_a_cell_that_needs_a_newer_gpu_is_reported_skipped_and_a_failing_one_failed(tmp_path):
    path = _notebook(tmp_path,
                     "from helpers.capability import has_compute_capability\n"
                     "from helpers.backend import drv\n"
                     "print(drv.Context.get_device().compute_capability())",
                     "if has_compute_capability((8, 0), '__reduce_add_sync'):\n    print('ran')",
                     "assert drv.Context.get_device().compute_capability() >= (8, 0), 'old'",
                     "print('not reached')")
    old = cc_matrix.run(path, "7.5")
    assert (old.failed_cell, old.error) == ("c2", "AssertionError: old")
    assert old.skipped == [{"cell": "c1", "what": "__reduce_add_sync",
                            "needs": "compute capability 8.0", "has": "compute capability 7.5"}]
    new = cc_matrix.run(path, "8.6")
    assert (new.failed_cell, new.skipped, new.passed) == (None, [], True)
    assert "passed" in new.line() and "FAILED at cell c2" in old.line()


def test_a_checked_cell_that_prints_another_text_fails(tmp_path):
    path = _notebook(tmp_path, "# NBVAL_CHECK_OUTPUT\nprint('7.5')",
                     "# NBVAL_CHECK_OUTPUT\nprint('same')")
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="9.0\n")]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="same\n")]
    nbformat.write(nb, path)
    result = cc_matrix.run(path, "7.5")
    assert (result.failed_cell, result.differs, result.passed) == (None, ["c0"], False)
