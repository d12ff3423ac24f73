"""bench/tensor_core_cases.py: the line under make bench's table that sets the best tensor-core
kernel beside notebook 08's FP32 kernels and cuBLAS, the sizes the kernels can take, and the
peers (bench/reference.py's matmul16): float16 and bfloat16 inputs multiplied with FP32 sums,
PyTorch told to keep them."""

import types

import numpy as np

from bench import course_kernels, reference, tensor_core_cases as tcc
from helpers.ch13.numbers import bfloat16_value


def row(kernel, rate, ms, peers=None, ok=True, size="4096x4096 fp16"):
    return types.SimpleNamespace(kernel=kernel, rate=rate, ms=ms, ok=ok, size=size,
                                 peers=peers or {})


def test_the_summary_sets_the_best_beside_notebook_08_and_cublas():
    rows = [row("matmul_warp_tiled", 42e3, 3.2, size="4096x4096 float32"),
            row("matmul_register_tiled", 35e3, 3.9, size="4096x4096 float32"),
            row("shared_tiles_fp16", 160.0, 0.8, {"CuPy": 0.45, "PyTorch": 0.5}),
            row("shared_tiles_bf16", 150.0, 0.85, {"CuPy": "-", "PyTorch": 0.48},
                size="4096x4096 bf16")]
    assert tcc.summary(rows, 4096, 4096) == (
        "tensor cores: the best course kernel, shared_tiles_fp16, runs at 160 TFLOP/s "
        "(4096x4096 fp16), 4.0x notebook 08's matmul_warp_tiled in FP32, 45% of cuBLAS fp16 "
        "through CuPy, 50% of cuBLAS fp16 through PyTorch")


def test_the_summary_compares_with_notebook_08_only_at_one_size():
    rows = [row("matmul_warp_tiled", 1e-3, 2.0, size="64x64 float32"),
            row("shared_tiles_bf16", 1e-3, 4.0, {"NumPy": 0.01}, size="128x128 bf16")]
    assert tcc.summary(rows, 128, 64) == (
        "tensor cores: the best course kernel, shared_tiles_bf16, runs at 0.001 TFLOP/s "
        "(128x128 bf16)")


def test_no_summary_without_a_right_result():
    assert tcc.summary([row("matmul_warp_tiled", 1.0, 1.0)], 64, 64) is None
    assert tcc.summary([row("shared_tiles_fp16", 1.0, 1.0, ok=False)], 64, 64) is None


def test_every_size_of_the_bench_is_one_the_kernels_take():
    """The kernels read no edge: a side that is not a multiple of 128 would leave C unfinished."""
    assert all(n % tcc.TILE == 0 for n in course_kernels.SIZES["tensor_cores"])


def test_bfloat16_inputs_are_the_notebooks_rounded_values_as_int16():
    a16, _ = tcc.inputs("fp16", 128)
    bits, _ = tcc.inputs("bf16", 128)
    assert bits.dtype == np.int16                 # PyTorch takes int16, not uint16, from NumPy
    widened = bfloat16_value(bits.view(np.uint16))
    assert np.abs(widened - a16.astype(np.float32)).max() < 2.0 ** -8   # one draw, rounded twice


def test_numpy_multiplies_the_widened_inputs_in_float32():
    rng = np.random.default_rng(0)
    a, b = (rng.random((4, 4), dtype=np.float32) - 0.5 for _ in range(2))
    half = reference.matmul16(reference.NUMPY, a.astype(np.float16), b.astype(np.float16))
    assert half.dtype == np.float32
    assert np.allclose(half, a.astype(np.float16).astype(np.float32)
                       @ b.astype(np.float16).astype(np.float32), rtol=1e-6, atol=0)
    bits = [tcc.bfloat16_bits(x).view(np.int16) for x in (a, b)]
    got = reference.matmul16(reference.NUMPY, *bits)
    want = (bfloat16_value(bits[0].view(np.uint16)).astype(np.float64)
            @ bfloat16_value(bits[1].view(np.uint16)).astype(np.float64))
    assert np.allclose(got, want, rtol=1e-6, atol=1e-7)
    assert not np.allclose(got, a @ b, rtol=1e-4, atol=0)   # bfloat16's rounding shows


def test_pytorch_keeps_its_sums_in_float32_and_views_int16_as_bfloat16():
    flags = types.SimpleNamespace(allow_fp16_reduced_precision_reduction=True,
                                  allow_bf16_reduced_precision_reduction=True)
    viewed = []

    class Tensor(np.ndarray):
        def view(self, dtype):
            viewed.append(dtype)
            return np.asarray(self).astype(np.float32)

    torch = types.SimpleNamespace(int16=np.int16, bfloat16="bfloat16", backends=types.SimpleNamespace(
        cuda=types.SimpleNamespace(matmul=flags)))
    a = np.eye(2, dtype=np.int16).view(Tensor)
    got = reference.matmul16(types.SimpleNamespace(name="PyTorch", xp=torch), a, 3 * a)
    assert not flags.allow_fp16_reduced_precision_reduction
    assert not flags.allow_bf16_reduced_precision_reduction
    assert viewed == ["bfloat16", "bfloat16"] and np.array_equal(got, 3 * np.eye(2))
