"""A notebook's stored outputs come from one GPU run (tools/store_outputs.py): the verdict line a
stub got there is what a learner reads before running anything. A checker changed afterwards
must not leave that line behind, so each stub, checked now on the simulator, gets the very line
its notebook stores; a checker change that rewords a stub's verdict waits for a run that can
store the notebook again.

Six stubs get another line on the simulator, each for a reason of the GPU run (``ON_THE_GPU``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import course
from helpers.backend import BACKEND
from helpers.exercises import catalog

ROOT = Path(__file__).resolve().parents[2]

ON_THE_GPU = {
    "copy_bandwidth": "its verdict names the bytes copied, the GPU's size (the simulator's is "
                      "smaller)",
    "staging_upload": "its verdict names n and the chunk, the GPU's sizes",
    "depth_range": "the stub's stores race: which depth a GPU kept is that run's",
    "halo_exchange": "notebook 11's stored run, on two GPUs, has no cell for it",
    "split_sum": "notebook 11's stored run, on two GPUs, has no cell for it",
    "group_sum_opencl": "the GPU run's OpenCL is NVIDIA's, whose barriers give another first "
                        "mistake than Oclgrind's race check",
}


def stored_verdicts(notebook: str) -> set[str]:
    """Every verdict line (NOT YET, PASS, FAST) in the stored outputs of ``notebook``."""
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    return {line.strip() for cell in cells for output in cell.get("outputs", [])
            for line in "".join(output.get("text", "")).splitlines()
            if line.startswith(("NOT YET:", "PASS:", "FAST:"))}


@pytest.mark.skipif(BACKEND != "simulator", reason="the stored lines are compared on the "
                    "simulator; a GPU run stores them")
@pytest.mark.parametrize("exercise", [
    pytest.param(e, id=e.name, marks=[pytest.mark.skip(reason=ON_THE_GPU[e.name])]
                 if e.name in ON_THE_GPU else []) for e in catalog.EXERCISES])
def test_the_stub_gets_the_verdict_its_notebook_stores(exercise, capsys):
    line = str(catalog.check(exercise, course.root())).strip()
    assert line in stored_verdicts(exercise.notebook), (
        f"{exercise.name}'s stub now gets\n  {line}\nwhich {exercise.notebook} does not store")


def test_the_gpu_s_reasons_name_exercises_of_the_course():
    assert set(ON_THE_GPU) <= {e.name for e in catalog.EXERCISES}
