"""The tensor-core matrix multiplies of notebook 13 for bench/course_kernels.py: the shared-tile
WMMA kernels (cuda_src/tensor_cores.cu) in FP16 and BF16 with FP32 accumulators, against cuBLAS
through CuPy (FP16; CuPy has no bfloat16) and PyTorch (both) in the same run.

``makers(size)`` gives the ``Case`` makers at ``size`` (M = K = N, a multiple of 128 as the
kernels require); ``summary(rows, size, fp32_size)`` the line under the table that sets the best
of them beside notebook 08's best FP32 kernel and cuBLAS. The rate is TFLOP/s at 2 N^3 FLOPs,
with no % of a ceiling: the run measures the FP32 units' FMA ceiling, which tensor cores pass
by far, and no tensor-core ceiling. The peers (``bench.reference.matmul16``) accumulate in FP32
as the kernels do and write C in the inputs' 16-bit type (the kernels write float32); NumPy
multiplies the widened inputs in float32 on a few rows of A. Serial C++ and Numba's simulator
have no matrix multiply and show "-".
"""

from __future__ import annotations

import numpy as np

from bench import reference
from bench.cases import Case, close
from helpers.backend import compile_cu, gpuarray
from helpers.ch13.numbers import bfloat16_bits

KERNELS = ("shared_tiles_fp16", "shared_tiles_bf16")
TILE = 128                 # the side of C's square a block of 256 threads computes
NUMPY_MAX = {"matmul_fp16": 1 << 20, "matmul_bf16": 1 << 20}   # elements of C (whole rows)
NO_PEER = {"fp16": ("serial C++", "Numba sim"), "bf16": ("serial C++", "Numba sim", "CuPy")}
# half an output's unit in the last place, twice over: the peers round C to 16 bits
RTOL = {"fp16": 2.0 ** -10, "bf16": 2.0 ** -7}
FP32_KERNELS = ("matmul_register_tiled", "matmul_warp_tiled")   # notebook 08's, taking A as it is


def inputs(kind, size):
    """A and B drawn as notebook 13 draws them (uniform in [-0.5, 0.5)), in ``kind``'s 16 bits:
    float16, or bfloat16's bit patterns as int16 (NumPy has no bfloat16, and PyTorch takes int16
    arrays, not uint16 ones, and views them as bfloat16)."""
    rng = np.random.default_rng(13)
    pair = [rng.random((size, size), dtype=np.float32) - 0.5 for _ in range(2)]
    if kind == "fp16":
        return tuple(x.astype(np.float16) for x in pair)
    return tuple(bfloat16_bits(x).view(np.int16) for x in pair)


def case(kernel, size):
    """The Case of ``kernel`` on size x size matrices (size a multiple of TILE)."""
    kind = kernel.rsplit("_", 1)[1]
    a, b = inputs(kind, size)
    a_gpu, b_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    c_gpu = gpuarray.empty((size, size), np.float32)
    f = compile_cu("tensor_cores.cu", no_extern_c=True).get_function(kernel)
    grid = (size // TILE, size // TILE)
    n = np.int32(size)

    def sample(m):
        rows = max(1, min(size, m // size))
        return (a[:rows], b), np.s_[:rows]

    def rate(ms):
        return 2 * size ** 3 / (ms * 1e-3) / 1e12, "TFLOP/s", None

    return Case(kernel, f"matmul_{kind}", f"{size}x{size} {kind}", size * size,
                launch=lambda: f(a_gpu, b_gpu, c_gpu, n, n, n, block=(256, 1, 1), grid=grid),
                result=c_gpu.get, sample=sample, xp_op=reference.matmul16,
                check=close(RTOL[kind], 1e-4), rate=rate, no_peer=NO_PEER[kind],
                notes=["tensor cores: TFLOP/s at 2 N^3 FLOPs, no % (no tensor-core ceiling "
                       "measured); CuPy and PyTorch call cuBLAS on the same 16-bit inputs, "
                       "accumulating in FP32 (PyTorch's reduced-precision reductions off) and "
                       "writing C in 16 bits; NumPy multiplies the widened inputs in float32"])


def makers(size):
    """Functions that each return one Case, in the table's order."""
    return [lambda k=k: case(k, size) for k in KERNELS]


def summary(rows, size, fp32_size, peers=("CuPy", "PyTorch")):
    """The line that sets the fastest tensor-core kernel beside notebook 08's fastest FP32 kernel
    (when both ran at one size) and beside cuBLAS on its inputs (None without a right result)."""
    mine = [r for r in rows if r.kernel in KERNELS and r.ok and r.ms]
    if not mine:
        return None
    best = max(mine, key=lambda r: r.rate)
    parts = [f"tensor cores: the best course kernel, {best.kernel}, runs at {best.rate:.3g} "
             f"TFLOP/s ({best.size})"]
    fp32 = [r for r in rows if r.kernel in FP32_KERNELS and r.ok and r.ms]
    if fp32 and size == fp32_size:
        base = max(fp32, key=lambda r: r.rate)
        parts.append(f"{base.ms / best.ms:.1f}x notebook 08's {base.kernel} in FP32")
    against = {p: best.peers[p] for p in peers if isinstance(best.peers.get(p), float)}
    kind = best.kernel.rsplit("_", 1)[1]
    parts += [f"{v:.0%} of cuBLAS {kind} through {p}" for p, v in against.items()]
    return ", ".join(parts)
