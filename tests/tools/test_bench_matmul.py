"""bench/matmul_cases.py: the line under make bench's table that says how close the best course
matrix multiply comes to cuBLAS, and the peers (bench/reference.py's matmul) kept in full
float32."""

import types

import numpy as np
import pytest

from bench import matmul_cases, reference


def row(kernel, rate, peers, ok=True):
    return types.SimpleNamespace(kernel=kernel, rate=rate, ms=1.0, ok=ok, size="4096x4096 float32",
                                 peers=peers)


def test_the_summary_names_the_fastest_kernel_against_each_cublas_run():
    rows = [row("matmul_naive", 5e3, {"CuPy": 0.1, "PyTorch": 0.11}),
            row("matmul_register_tiled", 3e4, {"CuPy": 0.62, "PyTorch": 0.6}),
            row("matmul_tiled", 9e3, {"CuPy": 0.2, "PyTorch": 0.2}),
            row("vector_add", 9e9, {"CuPy": 5.0})]
    assert matmul_cases.summary(rows) == (
        "matmul: the best course kernel, matmul_register_tiled, reaches 62% of cuBLAS SGEMM "
        "through CuPy and 60% of cuBLAS SGEMM through PyTorch (4096x4096 float32)")


def test_no_summary_without_cublas_or_without_a_right_result():
    assert matmul_cases.summary([row("matmul_tiled", 1.0, {"NumPy": 0.5})]) is None
    assert matmul_cases.summary([row("matmul_tiled", 1.0, {"CuPy": "WRONG"})]) is None
    assert matmul_cases.summary([row("matmul_tiled", 1.0, {"CuPy": 0.5}, ok=False)]) is None


def test_cupy_is_refused_in_tf32(monkeypatch):
    peer = types.SimpleNamespace(name="CuPy", xp=np)
    monkeypatch.setenv("CUPY_TF32", "1")
    with pytest.raises(RuntimeError, match="TF32"):
        reference.matmul(peer, np.ones((2, 2)), np.ones((2, 2)))


def test_pytorch_is_told_to_keep_float32():
    flags = types.SimpleNamespace(allow_tf32=True)
    torch = types.SimpleNamespace(backends=types.SimpleNamespace(
        cuda=types.SimpleNamespace(matmul=flags)))
    a = np.eye(2, dtype=np.float32)
    got = reference.matmul(types.SimpleNamespace(name="PyTorch", xp=torch), a, 2 * a)
    assert flags.allow_tf32 is False and np.array_equal(got, 2 * a)
