"""The warp matrix functions' cases (bench/wmma_kernels.cu), their inputs and their NumPy model:
shared by the test (tests/kernels/test_wmma.py) and the probe that stores an H200's results
(bench/wmma_probe.py).

Inputs are drawn in memory as the kernel reads them, each matrix in its layout with a leading
dimension larger than the matrix (the gap poisoned with NaN, so that a load that strays into it
shows), already rounded to the input type. The model multiplies the rounded values exactly
(float64 holds every product and sum of these), and a result is right when it lies within the
bound that the tensor cores' order of accumulation allows:

    |D - exact| <= (K + 1) * 2**-23 * (|c| + sum over k of |a b|)      (each element)

K + 1 additions in FP32, each rounded (or truncated, as tensor cores may) by less than one unit
in the last place, 2**-23 relative; a __half accumulator adds one rounding to a half (2**-11).
Integers (signed char or unsigned char inputs, int accumulators) are exact: the bound is 0 (C is
drawn small enough that no sum leaves an int).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.ch13.numbers import bfloat16_bits, bfloat16_value, tf32_read, to_tf32

SHAPES16 = [(16, 16, 16), (32, 8, 16), (8, 32, 16)]


@dataclass(frozen=True)
class Case:
    inputs: str        # "half", "bfloat16", "tf32", "s8" or "u8"
    shape: tuple       # (M, N, K)
    accumulator: str   # "float", "half" or "int"

    @property
    def kernel(self):
        m, n, k = self.shape
        return f"mma_{self.inputs}_{m}x{n}x{k}_{self.accumulator}"


CASES = ([Case("half", s, acc) for acc in ("float", "half") for s in SHAPES16]
         + [Case("bfloat16", s, "float") for s in SHAPES16] + [Case("tf32", (16, 16, 8), "float")]
         + [Case(inputs, s, "int") for inputs in ("s8", "u8") for s in SHAPES16])
INTEGERS = {"s8": (np.int8, -128, 128), "u8": (np.uint8, 0, 256), "int": (np.int32, -2**20, 2**20)}
LAYOUTS = range(16)   # bits: 1 A column-major, 2 B, 4 C, 8 D (the kernels' `layouts`)


def stored(values, kind):
    """Values as the kernel's memory holds them (half, bfloat16 bits, float, or an integer type,
    whose gap, NaN in float64, becomes 99)."""
    if kind in INTEGERS:
        return np.where(np.isnan(values), 99, values).astype(INTEGERS[kind][0])
    if kind == "half":
        return values.astype(np.float16)
    if kind == "bfloat16":
        return bfloat16_bits(values)
    return values.astype(np.float32)


def value(memory, kind):
    """The float64 values of memory that holds `kind`."""
    if kind == "bfloat16":
        return bfloat16_value(memory).astype(np.float64)
    return np.asarray(memory).astype(np.float64)


def in_memory(matrix, column_major, align):
    """matrix laid out with a leading dimension `align` elements (16 bytes) or more past its row's
    (or column's) length, a multiple of align as PTX requires; the gap NaN."""
    m = matrix.T if column_major else matrix
    ld = -(-(m.shape[1] + align) // align) * align
    out = np.full((m.shape[0], ld), np.nan, dtype=np.float64)
    out[:, :m.shape[1]] = m
    return out, out.shape[1]


def from_memory(memory, shape, column_major):
    rows, cols = shape
    return memory[:cols, :rows].T if column_major else memory[:rows, :cols]


def draw(case, layouts, seed):
    """The kernel's arguments' arrays for one run: a, lda, b, ldb, c, ldc, d's shape and ldd, and
    the values (float64) A, B, C that the model multiplies."""
    m, n, k = case.shape
    rng = np.random.default_rng(seed)
    align = {"half": 8, "bfloat16": 8, "tf32": 4}.get(case.inputs, 16)  # 16 bytes of each
    acc_align = 8 if case.accumulator == "half" else 4

    def values(kind, shape):
        if kind in INTEGERS:
            return rng.integers(*INTEGERS[kind][1:], size=shape).astype(np.float64)
        return rng.standard_normal(shape)

    a_mem, lda = in_memory(values(case.inputs, (m, k)), layouts & 1, align)
    b_mem, ldb = in_memory(values(case.inputs, (k, n)), layouts & 2, align)
    c_mem, ldc = in_memory(values(case.accumulator, (m, n)), layouts & 4, acc_align)
    a, b, c = stored(a_mem, case.inputs), stored(b_mem, case.inputs), stored(c_mem, case.accumulator)
    d_rows, ldd = (n, m + acc_align) if layouts & 8 else (m, n + acc_align)
    A = from_memory(value(a, case.inputs), (m, k), layouts & 1)
    B = from_memory(value(b, case.inputs), (k, n), layouts & 2)
    C = from_memory(value(c, case.accumulator), (m, n), layouts & 4)
    return dict(a=a, lda=lda, b=b, ldb=ldb, c=c, ldc=ldc, d_shape=(d_rows, ldd), ldd=ldd), (A, B, C)


def model(A, B, C, inputs, round_tf32):
    """The exact D = A B + C of the values the tensor core reads, and the bound on its error."""
    if inputs == "tf32":
        A, B = (to_tf32(X) if round_tf32 else tf32_read(X) for X in (A, B))
        A, B = A.astype(np.float64), B.astype(np.float64)
    exact = A @ B + C
    if inputs in INTEGERS:
        return exact, np.zeros_like(exact)
    bound = (A.shape[1] + 1) * 2.0**-23 * (np.abs(A) @ np.abs(B) + np.abs(C))
    return exact, bound


def expected(case, layouts, seed, round_tf32=0):
    """The exact D of one run's inputs, and the bound on a tensor core's error (a __half
    accumulator's result rounded once more, by at most 2**-11 of it)."""
    _, (A, B, C) = draw(case, layouts, seed)
    exact, bound = model(A, B, C, case.inputs, round_tf32)
    return exact, bound + (np.abs(exact) * 2.0**-11 if case.accumulator == "half" else 0)


def fraction(error, bound):
    """error / bound, elementwise; 0 where both are 0 (an exact integer), inf where only bound is."""
    return np.divide(error, bound, out=np.where(error == 0, 0.0, np.inf), where=bound > 0)


def run(module, backend, case, layouts, seed, round_tf32=0):
    """D (as float64, in the model's orientation), and the model's exact D and bound."""
    args, _ = draw(case, layouts, seed)
    d = np.zeros(args["d_shape"], {"half": np.float16, "int": np.int32}.get(case.accumulator, np.float32))
    module.get_function(case.kernel)(
        backend.In(args["a"]), np.int32(args["lda"]), backend.In(args["b"]), np.int32(args["ldb"]),
        backend.In(args["c"]), np.int32(args["ldc"]), backend.Out(d), np.int32(args["ldd"]),
        np.int32(layouts), np.int32(round_tf32), block=(32, 1, 1), grid=(1, 1))
    m, n, _ = case.shape
    return (from_memory(d.astype(np.float64), (m, n), layouts & 8),
            *expected(case, layouts, seed, round_tf32))
