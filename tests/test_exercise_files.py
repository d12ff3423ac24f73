"""Every exercise stub has a solution that declares the same kernels, so a learner's finished
stub can replace the solution in its checker."""

import re
from pathlib import Path

import pytest

CUDA_SRC = Path(__file__).resolve().parent.parent / "cuda_src"
STUBS = sorted((CUDA_SRC / "exercises").glob("*.cu"))


def kernel_signatures(path):
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", path.read_text(), flags=re.S)
    return [" ".join(m.split()) for m in re.findall(r"__global__\s+void\s+\w+\s*\([^)]*\)", text)]


@pytest.mark.parametrize("stub", STUBS, ids=[p.name for p in STUBS])
def test_stub_and_solution_declare_the_same_kernels(stub):
    solution = CUDA_SRC / "solutions" / stub.name
    assert solution.is_file(), f"no solution for {stub.name}"
    assert kernel_signatures(stub) and kernel_signatures(stub) == kernel_signatures(solution)


def test_there_are_exercises():
    assert len(STUBS) >= 4
