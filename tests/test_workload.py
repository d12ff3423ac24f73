"""The class-size setting (helpers.workload): each learner's share of the notebooks' sizes, a
clear error for a bad value, and notebook 05 run at a class size of 30."""

import os

import pytest

from kernel_sources import ROOT

from helpers import workload


@pytest.mark.parametrize("class_size, size, minimum, expected", [
    (1, 256 * 2**20, 2**20, 256 * 2**20),      # one learner: unchanged
    (30, 256 * 2**20, 2**20, 8 * 2**20),       # 8.5 MiB, rounded down to a power of two
    (30, 2**26, 2**16, 2**21),
    (1000, 16 * 2**20, 4 * 2**20, 4 * 2**20),  # never below the notebook's minimum
])
def test_share(monkeypatch, class_size, size, minimum, expected):
    monkeypatch.setattr(workload, "CLASS_SIZE", class_size)
    assert workload.share(size, minimum) == expected


@pytest.mark.parametrize("text", ["0", "thirty", "-2"])
def test_a_bad_class_size_says_what_to_give(text):
    with pytest.raises(ValueError, match="a whole number of at least 1"):
        workload._class_size(text)


def test_report_prints_the_memory_used_and_the_class_size(capsys):
    workload.report()
    out = capsys.readouterr().out
    assert "This notebook's process used at most" in out and "MiB of host memory" in out
    assert f"for a class of {workload.CLASS_SIZE} sharing this machine" in out


@pytest.mark.slow
def test_notebook_05_runs_for_a_class_of_30(monkeypatch):
    """The notebook that holds the most memory, at a class's sizes, prints what it used."""
    import nbformat
    from nbclient import NotebookClient

    path = ROOT / "notebooks" / "05_pinned_memory_and_streams.ipynb"
    nb = nbformat.read(path, as_version=4)
    monkeypatch.setenv("CUDA_COURSE_CLASS_SIZE", "30")  # the notebook's kernel inherits it
    # and this checkout's helpers first: its folder (notebooks/) is not the repository (else an
    # editable install of another checkout, in a worktree sharing its venv, ran the notebook)
    monkeypatch.setenv("PYTHONPATH", str(ROOT), prepend=os.pathsep)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.outputs)
    assert "Sizes were chosen for a class of 30 sharing this machine" in printed
