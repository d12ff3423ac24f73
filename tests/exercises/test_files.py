"""Every exercise stub has a solution that declares the same kernels, so a learner's finished
stub can replace the solution in its checker."""

import re
from pathlib import Path

import pytest

from kernel_sources import stable_file

from helpers.exercises import (attention_tiles, backproject_range, block_mean, box_blur,
                               causal_softmax, column_means, dot_product, histogram_rgb, julia,
                               matmul_bt, matmul_wide, matrix_index, matvec_warp, online_softmax,
                               reverse_chunks, scale_vector, sepia, sepia_x16, warp_vote)

CUDA_SRC = Path(__file__).resolve().parents[2] / "cuda_src"
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
            (julia.check_julia, "julia.cu"), (sepia.check_sepia, "sepia.cu"),
            (backproject_range.check_backproject_range, "backproject_range.cu"),
            (sepia_x16.check_sepia_x16, "sepia_x16.cu"),
            (box_blur.check_box_blur, "box_blur.cu"), (dot_product.check_dot, "dot_product.cu"),
            (histogram_rgb.check_histogram_rgb, "histogram_rgb.cu"),
            (matmul_bt.check_matmul_bt, "matmul_bt.cu"),
            (block_mean.check_block_mean, "block_mean.cu"),
            (warp_vote.check_warp_vote, "warp_vote.cu"),
            (matvec_warp.check_matvec_warp, "matvec_warp.cu"),
            (matmul_wide.check_matmul_wide, "matmul_wide.cu"),
            (column_means.check_column_means, "column_means.cu"),
            (reverse_chunks.check_reverse_chunks, "reverse_chunks.cu"),
            (causal_softmax.check_causal_softmax, "causal_softmax.cu"),
            (online_softmax.check_online_softmax, "online_softmax.cu"),
            (attention_tiles.check_attention_tiles, "attention_tiles.cu")]
IDS = [stub for _, stub in CHECKERS]


TIMED_ON_A_GPU = {"sepia_x16.cu"}  # its checker measures a bandwidth there (tests/conftest.py)


@pytest.mark.parametrize("check, stub", [
    pytest.param(check, stub, id=stub, marks=[pytest.mark.gpu_timing] * (stub in TIMED_ON_A_GPU))
    for check, stub in CHECKERS])
def test_the_solution_passes_its_checker(check, stub, capsys):
    # By its absolute path, as the grader names a file (test_hidden.py's grader run of the same
    # solution then finds this module compiled); a relative path is test_a_missing_file_...'s
    verdict = check(str(CUDA_SRC / "solutions" / stub))
    assert verdict.passed is True
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("check, stub", CHECKERS, ids=IDS)
def test_a_file_that_does_not_compile_is_reported_not_raised(check, stub, capsys):
    # An error the preprocessor finds: the compile stops there, a tenth of a full one.
    bad = stable_file(f"broken_{stub}", (CUDA_SRC / "solutions" / stub).read_text()
                      + "\n#error this is not CUDA\n")
    assert check(bad).passed is False  # an absolute path is used as it is
    out = capsys.readouterr().out
    assert "NOT YET:" in out and "does not compile" in out, out


@pytest.mark.parametrize("check, stub", CHECKERS, ids=IDS)
def test_a_missing_file_is_reported_not_raised(check, stub, capsys):
    verdict = check("exercises/no_such_file.cu")
    assert verdict.passed is False
    assert capsys.readouterr().out == f"{verdict}\n"
    assert "cannot find exercises/no_such_file.cu" in verdict.problem


def test_parameter_lists_are_read_without_qualifiers():
    from helpers.exercises.signature import parameters, signature_mistake

    assert parameters("const float * __restrict__ x, float* y, float alpha, int n") == [
        ("float*", "x"), ("float*", "y"), ("float", "alpha"), ("int", "n")]
    assert parameters("unsigned char rgb[], int") == [("unsigned char*", "rgb"), ("int", "")]
    stub = "__global__ void k(const float *x, int n) {}"
    assert signature_mistake(stub, "k", "const float *x, int n") is None
    assert signature_mistake("/* __global__ void k(double) */ __global__ void k(float *p, int m)",
                             "k", "const float *x, int n") is None
    problem, hint = signature_mistake(stub, "k", "const float *x, int n, int m")
    assert "k takes 2 parameters, but the checker passes 3" in problem
    assert "__global__ void k(const float *x, int n, int m)" in hint
    assert signature_mistake("#define K __global__ void k(\nK double x) {}", "k", "int n") is None
    # the stub's names in another order: the types may agree, the values would not
    problem, hint = signature_mistake("__global__ void k(float fx, float cx, float fy, float cy)",
                                      "k", "float fx, float fy, float cx, float cy")
    assert problem.startswith("parameter 2 of k is cx, but the checker passes fy there"), problem
    assert "__global__ void k(float fx, float fy, float cx, float cy)" in hint
    problem, _ = signature_mistake("__global__ void k(int n, const float *x)", "k",
                                   "const float *x, int n")
    assert problem.startswith("parameter 1 of k is n, but the checker passes x there"), problem
    # other names, in the stub's types: the learner's to choose
    assert signature_mistake("__global__ void k(float a, float b)", "k", "float x, float y") is None
