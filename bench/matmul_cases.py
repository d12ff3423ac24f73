"""The matrix multiplies of notebook 08 for bench/course_kernels.py: naive, tiled and
register-tiled C = A B against cuBLAS SGEMM (through CuPy and PyTorch) in the same run.

``case(kernel, size, ceil)`` gives the fields of a ``course_kernels.Case`` for one kernel at
``size`` (M = K = N); ``summary(rows)`` the line under the table that says how close the best
course kernel comes to cuBLAS. The rate is GFLOP/s at 2 M N K FLOPs, as a % of the FMA ceiling
measured in the same run. The peers compute in full float32: PyTorch with
``torch.backends.cuda.matmul.allow_tf32 = False``, CuPy without ``CUPY_TF32`` (TF32, the tensor
cores' 10-bit-mantissa mode, would be a different and faster computation). NumPy runs on a few
rows of A (its time scaled per element of C); serial C++ and Numba's simulator have no matrix
multiply and show "-".
"""

from __future__ import annotations

import os

import numpy as np

from helpers.backend import compile_cu, gpuarray

OP = "matmul"
KERNELS = ("matmul_naive", "matmul_tiled", "matmul_register_tiled")
LAUNCH = {"matmul_naive": ((16, 16, 1), 16), "matmul_tiled": ((16, 16, 1), 16),
          "matmul_register_tiled": ((256, 1, 1), 128)}   # block, side of C's square a block does
NUMPY_MAX = 1 << 20      # elements of C NumPy computes (whole rows)
NO_PEER = ("serial C++", "Numba sim")
_INPUTS = {}             # size -> (A, B): one pair of matrices for the three kernels


def _inputs(size):
    if size not in _INPUTS:
        rng = np.random.default_rng(8)
        _INPUTS.clear()
        _INPUTS[size] = tuple(rng.random((size, size), dtype=np.float32) - 0.5 for _ in range(2))
    return _INPUTS[size]


def xp_matmul(peer, a, b):
    """C = A B in NumPy, CuPy or PyTorch, in full float32."""
    if peer.name == "PyTorch":
        peer.xp.backends.cuda.matmul.allow_tf32 = False
    if peer.name == "CuPy" and os.environ.get("CUPY_TF32", "0") != "0":
        raise RuntimeError("CUPY_TF32 is set: CuPy would multiply in TF32")
    return a @ b


def close(got, want):
    """float32 sums of K products, in different orders: equal to about 1e-6 of their size."""
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-3, atol=1e-3))


def case(kernel, size, ceil):
    """The fields of a course_kernels.Case for ``kernel`` on size x size matrices."""
    a, b = _inputs(size)
    a_gpu, b_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    c_gpu = gpuarray.empty((size, size), np.float32)
    f = compile_cu("matmul.cu").get_function(kernel)
    block, side = LAUNCH[kernel]
    grid = (-(-size // side), -(-size // side))
    n = np.int32(size)
    flops = 2 * size ** 3

    def sample(m):
        rows = max(1, min(size, m // size))
        return (a[:rows], b), np.s_[:rows]

    def rate(ms):
        per_s = flops / (ms * 1e-3)
        return per_s / 1e9, "GFLOP/s", 100 * per_s / ceil.flops

    return dict(kernel=kernel, op=OP, size=f"{size}x{size} float32", n=size * size,
                launch=lambda: f(a_gpu, b_gpu, c_gpu, n, n, n, block=block, grid=grid),
                result=c_gpu.get, sample=sample, xp_op=xp_matmul, check=close, rate=rate,
                no_peer=NO_PEER,
                notes=["matmul: GFLOP/s at 2 N^3 FLOPs, % of the FMA ceiling; CuPy and PyTorch "
                       "call cuBLAS SGEMM, in float32 with TF32 off"])


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
