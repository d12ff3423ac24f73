"""The softmaxes and attentions of notebook 14 for bench/course_kernels.py, in FP16 storage with
FP32 arithmetic, against NumPy, CuPy and PyTorch in the same run.

``makers(size, ceil)`` gives the ``Case`` makers in the table's order: the three softmaxes of a
rows x cols matrix (GB/s at 4 bytes an element, read once and written once, as a % of the copy
ceiling), then attention three ways on heads x n x 64 (GFLOP/s at 4 n^2 d FLOPs a head, as a %
of the FMA ceiling): three kernels (S, softmax, P V), fused, tiled. The peers
(``bench.reference.softmax`` and ``attention``): ``torch.softmax`` and PyTorch's fused
``scaled_dot_product_attention``; CuPy's composition of the steps in float16; NumPy's in
float32, on a part (some rows, one head) with its time scaled. Serial C++ and Numba's simulator
have neither and show "-".
"""

from __future__ import annotations

import numpy as np

from bench import reference
from bench.cases import Case, close
from helpers.backend import compile_cu, gpuarray

HEAD_DIM = 64
SCALE = np.float32(HEAD_DIM ** -0.5)
NO_PEER = ("serial C++", "Numba sim")
SOFTMAXES = ("softmax_warp", "softmax_block", "softmax_online")
ATTENTIONS = ("attention_three_kernels", "attention_fused", "attention_tiled")
NUMPY_MAX = {"softmax": 1 << 22, "attention": 1 << 18}   # elements of the output NumPy computes


def softmax_case(kernel, size, ceil):
    rows, cols = size
    x = (np.random.default_rng(14).standard_normal((rows, cols)) * 20).astype(np.float16)
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.empty((rows, cols), np.float16)
    f = compile_cu("attention.cu", no_extern_c=True).get_function(kernel)
    if kernel == "softmax_block":
        launch = lambda: f(x_gpu, y_gpu, np.int32(cols), block=(256, 1, 1),  # noqa: E731
                           grid=(rows, 1))
    else:                                  # a warp a row, 8 warps a block
        launch = lambda: f(x_gpu, y_gpu, np.int32(rows), np.int32(cols),  # noqa: E731
                           block=(256, 1, 1), grid=(-(-rows // 8), 1))

    def sample(m):
        part = max(1, min(rows, m // cols))
        return (x[:part],), np.s_[:part]

    return Case(kernel, "softmax", f"{rows}x{cols} FP16", rows * cols, launch=launch,
                result=y_gpu.get, sample=sample, xp_op=reference.softmax,
                check=close(5e-3, 1e-4), rate=lambda ms: ceil.bandwidth(4 * rows * cols, ms),
                no_peer=NO_PEER,
                notes=["softmax: GB/s at 4 bytes an element (read once, written once); "
                       "PyTorch: torch.softmax, CuPy: exp(x - max) / sum in float16"])


def attention_case(kernel, size, ceil):
    heads, n = size
    rng = np.random.default_rng(41)
    q, k, v = (rng.standard_normal((heads, n, HEAD_DIM)).astype(np.float16) for _ in range(3))
    q_gpu, k_gpu, v_gpu = (gpuarray.to_gpu(a) for a in (q, k, v))
    o_gpu = gpuarray.empty((heads, n, HEAD_DIM), np.float16)
    mod = compile_cu("attention.cu", no_extern_c=True)
    nn, tiles = np.int32(n), -(-n // 16)
    if kernel == "attention_three_kernels":
        s_gpu = gpuarray.empty((heads, n, n), np.float16)
        scores, softmax, values = (mod.get_function(name) for name in (
            "attention_scores", "softmax_block", "attention_values"))

        def launch():
            scores(q_gpu, k_gpu, s_gpu, nn, SCALE, block=(16, 16, 1), grid=(tiles, tiles, heads))
            softmax(s_gpu, s_gpu, nn, block=(256, 1, 1), grid=(heads * n, 1))
            values(s_gpu, v_gpu, o_gpu, nn, block=(16, 16, 1),
                   grid=(HEAD_DIM // 16, tiles, heads))
    elif kernel == "attention_fused":
        f = mod.get_function(kernel)
        launch = lambda: f(q_gpu, k_gpu, v_gpu, o_gpu, nn, SCALE,  # noqa: E731
                           block=(128, 1, 1), grid=(n, heads))
    else:
        f = mod.get_function(kernel)
        launch = lambda: f(q_gpu, k_gpu, v_gpu, o_gpu, nn, SCALE,  # noqa: E731
                           block=(256, 1, 1), grid=(-(-n // 64), heads))

    def sample(m):
        part = max(1, min(heads, m // (n * HEAD_DIM)))
        return (q[:part], k[:part], v[:part]), np.s_[:part]

    def rate(ms):
        per_s = 4 * n * n * HEAD_DIM * heads / (ms * 1e-3)
        return per_s / 1e9, "GFLOP/s", 100 * per_s / ceil.flops

    return Case(kernel, "attention", f"{heads} heads x {n} x {HEAD_DIM} FP16",
                heads * n * HEAD_DIM, launch=launch, result=o_gpu.get, sample=sample,
                xp_op=reference.attention, check=close(1e-2, 2e-3), rate=rate, no_peer=NO_PEER,
                notes=["attention: GFLOP/s at 4 n^2 d FLOPs a head, % of the FMA ceiling; "
                       "PyTorch: scaled_dot_product_attention (its fused kernel, tensor cores), "
                       "CuPy: the composition of the steps in float16"])


def makers(size, ceil):
    """Functions that each return one Case, in the table's order. ``size``: course_kernels'
    sizes for this run ("softmax": rows, cols; "attention": heads, n)."""
    return [*(lambda k=k: softmax_case(k, size["softmax"], ceil) for k in SOFTMAXES),
            *(lambda k=k: attention_case(k, size["attention"], ceil) for k in ATTENTIONS)]
