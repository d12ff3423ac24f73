"""The matrix multiplies of notebook 08 for bench/course_kernels.py: naive, tiled, register-tiled,
warp-tiled and asynchronous-copy C = A B against cuBLAS SGEMM (through CuPy and PyTorch) in the same run.

``case(kernel, size, ceil)`` gives the ``Case`` of one kernel at ``size`` (M = K = N);
``summary(rows)`` the line under the table that says how close the best course kernel comes to
cuBLAS. The rate is GFLOP/s at 2 M N K FLOPs, as a % of the FMA ceiling measured in the same run.
The peers compute in full float32 (``bench.reference.matmul``: PyTorch with
``torch.backends.cuda.matmul.allow_tf32 = False``, CuPy without ``CUPY_TF32``). NumPy runs on a
few rows of A (its time scaled per element of C); serial C++ and Numba's simulator have no matrix
multiply and show "-".
"""

from __future__ import annotations

import numpy as np

from bench import reference
from bench.cases import Case, close
from helpers.backend import compile_cu, gpuarray

OP = "matmul"
KERNELS = ("matmul_naive", "matmul_tiled", "matmul_register_tiled", "matmul_warp_tiled",
           "matmul_async")
LAUNCH = {"matmul_naive": ((16, 16, 1), 16), "matmul_tiled": ((16, 16, 1), 16),
          "matmul_register_tiled": ((256, 1, 1), 128),
          "matmul_warp_tiled": ((256, 1, 1), 128),
          "matmul_async": ((256, 1, 1), 128)}   # block, side of C's square a block does
FILE = {"matmul_warp_tiled": "matmul_warp_tiled.cu", "matmul_async": "matmul_async.cu"}
# (the others are in matmul.cu)
NUMPY_MAX = 1 << 20      # elements of C NumPy computes (whole rows)
NO_PEER = ("serial C++", "Numba sim")
_INPUTS = {}             # size -> (A, B): one pair of matrices for all the kernels


def _inputs(size):
    if size not in _INPUTS:
        rng = np.random.default_rng(8)
        _INPUTS.clear()
        _INPUTS[size] = tuple(rng.random((size, size), dtype=np.float32) - 0.5 for _ in range(2))
    return _INPUTS[size]


def case(kernel, size, ceil):
    """The Case of ``kernel`` on size x size matrices."""
    a, b = _inputs(size)
    a_gpu, b_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    c_gpu = gpuarray.empty((size, size), np.float32)
    f = compile_cu(FILE.get(kernel, "matmul.cu"),
                   no_extern_c=kernel == "matmul_async").get_function(kernel)
    block, side = LAUNCH[kernel]
    grid = (-(-size // side), -(-size // side))
    n = np.int32(size)
    flops = 2 * size ** 3
    launch = lambda: f(a_gpu, b_gpu, c_gpu, n, n, n, block=block, grid=grid)  # noqa: E731
    notes = ["matmul: GFLOP/s at 2 N^3 FLOPs, % of the FMA ceiling; CuPy and PyTorch call cuBLAS "
             "SGEMM, in float32 with TF32 off"]
    if kernel == "matmul_async":  # it reads A transposed: the transpose is part of its time
        transpose = compile_cu("transpose.cu").get_function("transpose_padded")
        at_gpu = gpuarray.empty((size, size), np.float32)

        def launch():
            transpose(a_gpu, at_gpu, n, n, block=(32, 8, 1), grid=(-(-size // 32), -(-size // 32)))
            f(at_gpu, b_gpu, c_gpu, n, n, n, block=block, grid=grid)
        notes.append("matmul_async: A transposed first (notebook 06's transpose_padded), "
                     "in its time")

    def sample(m):
        rows = max(1, min(size, m // size))
        return (a[:rows], b), np.s_[:rows]

    def rate(ms):
        per_s = flops / (ms * 1e-3)
        return per_s / 1e9, "GFLOP/s", 100 * per_s / ceil.flops

    # float32 sums of K products, in different orders: equal to about 1e-6 of their size
    return Case(kernel, OP, f"{size}x{size} float32", size * size,
                launch=launch, result=c_gpu.get, sample=sample, xp_op=reference.matmul,
                check=close(1e-3, 1e-3), rate=rate, no_peer=NO_PEER, notes=notes)


def summary(rows, peers=("CuPy", "PyTorch")):
    """The line saying how close the best course matmul comes to cuBLAS (None without one)."""
    mine = [r for r in rows if r.kernel in KERNELS and r.ok and r.ms]
    if not mine:
        return None
    best = max(mine, key=lambda r: r.rate)
    against = {p: best.peers[p] for p in peers if isinstance(best.peers.get(p), float)}
    if not against:
        return None
    return (f"matmul: the best course kernel, {best.kernel}, reaches "
            + " and ".join(f"{v:.0%} of cuBLAS SGEMM through {p}" for p, v in against.items())
            + f" ({best.size})")
