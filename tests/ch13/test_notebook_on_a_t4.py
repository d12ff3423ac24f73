"""Notebook 13 on a T4 (compute capability 7.5, Colab's free GPU): its tensor cores take FP16 and
no BF16 or TF32, which need 8.0 (Ampere). The cells that run and time the products run FP16 alone
there, and each says in one line what it skipped and why (helpers/capability.py); none reports a
BF16 or TF32 figure. The suite's nbval run (at 7.5) proves only that every cell runs, and that
the checked cells print what the H200 run stored: this runs notebook 13's cells up to the
shared-tile checks on the simulator at 7.5 and at 9.0 (the H200's) and reads what they showed."""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.capability import NEEDS_NEWER_GPU
from kernel_sources import ROOT

NOTEBOOK = ROOT / "notebooks" / "13_tensor_cores.ipynb"
CELLS = ("setup", "one-tile", "sizes", "warp-tiles-run", "warp-tiles-check", "shared-run",
         "shared-check")
"""The ids of the cells run: the set-up, the kernels' module (one-tile), the products and checks."""


def _run(cc):
    """{cell id: (what it printed, the NEEDS_NEWER_GPU records it displayed)} at capability cc."""
    whole = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.v4.new_notebook(cells=[c for c in whole.cells if c.get("id") in CELLS])
    with pytest.MonkeyPatch.context() as env:   # the notebook's kernel inherits them
        env.setenv("CUDA_COURSE_BACKEND", "simulator")
        env.setenv("CUDA_SIM_COMPUTE_CAPABILITY", cc)
        env.setenv("PYTHONPATH", str(ROOT), prepend=os.pathsep)   # this checkout's helpers first
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return {c.id: ("".join(o.get("text", "") for o in c.outputs),
                   [o["data"][NEEDS_NEWER_GPU] for o in c.outputs
                    if NEEDS_NEWER_GPU in o.get("data", {})]) for c in nb.cells}


@pytest.fixture(scope="module")
def shown():
    return {cc: _run(cc) for cc in ("7.5", "9.0")}


@pytest.mark.slow
def test_on_a_t4_fp16_runs_and_bf16_and_tf32_are_skipped_with_the_reason(shown):
    t4 = shown["7.5"]
    assert list(t4) == list(CELLS), "a cell id of notebook 13 changed"
    for cell, kinds, what in (("warp-tiles-run", ("bf16", "tf32"), "warp tiles bf16 and tf32"),
                              ("shared-run", ("bf16",), "shared tiles bf16")):
        printed, skipped = t4[cell]
        assert [s["needs"] for s in skipped] == ["compute capability 8.0"], (cell, skipped)
        assert skipped[0]["has"] == "compute capability 7.5" and what in skipped[0]["what"]
        assert "fp16" in printed and "TFLOP/s" in printed, printed   # timed and checked
        assert not any(kind in printed for kind in kinds), printed    # no figure for those
    for cell in ("warp-tiles-check", "shared-check"):
        printed, _ = t4[cell]
        assert printed.rstrip().endswith("kernel that ran is within the tensor cores' bound of "
                                         "NumPy's product of the rounded inputs: True"), printed


@pytest.mark.slow
def test_on_an_h200_every_format_runs_and_the_checks_print_what_they_print_on_a_t4(shown):
    h200 = shown["9.0"]
    assert all(not skipped for _, skipped in h200.values())
    for kind in ("fp16", "bf16", "tf32"):
        assert f"warp tiles {kind}" in h200["warp-tiles-run"][0]
    assert "shared tiles bf16" in h200["shared-run"][0]
    for cell in ("warp-tiles-check", "shared-check"):   # as nbval compares them with the store
        assert h200[cell][0] == shown["7.5"][cell][0]
