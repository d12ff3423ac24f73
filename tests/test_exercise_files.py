"""Every exercise stub has a solution that declares the same kernels, so a learner's finished
stub can replace the solution in its checker."""

import re
from pathlib import Path

import pytest

from helpers.exercises import julia, matrix_index, scale_vector, sepia

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


CHECKERS = [(scale_vector.check_scale_vector, "scale_vector.cu"),
            (matrix_index.check_matrix_index, "matrix_index.cu"),
            (julia.check_julia, "julia.cu"), (sepia.check_sepia, "sepia.cu")]
IDS = [stub for _, stub in CHECKERS]


@pytest.mark.parametrize("check, stub", CHECKERS, ids=IDS)
def test_the_solution_passes_its_checker(check, stub, capsys):
    assert check(f"solutions/{stub}") is True
    assert capsys.readouterr().out.startswith("PASS:")


@pytest.mark.parametrize("check, stub", CHECKERS, ids=IDS)
def test_a_file_that_does_not_compile_is_reported_not_raised(check, stub, tmp_path, capsys):
    bad = tmp_path / stub
    bad.write_text((CUDA_SRC / "solutions" / stub).read_text() + "\nthis is not CUDA\n")
    assert check(str(bad)) is False  # an absolute path is used as it is
    out = capsys.readouterr().out
    assert "NOT YET:" in out and "does not compile" in out, out


@pytest.mark.parametrize("check, stub", CHECKERS, ids=IDS)
def test_a_missing_file_is_reported_not_raised(check, stub, capsys):
    assert check("exercises/no_such_file.cu") is False
    assert "NOT YET:" in capsys.readouterr().out
