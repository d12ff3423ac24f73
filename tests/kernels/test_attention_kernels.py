"""Notebook 14's kernels (cuda_src/attention.cu) against NumPy in float64.

Runs on whichever backend helpers.backend chose: the three softmaxes on rows shorter than a warp,
rows not a multiple of 32 or of the block, more warps than rows, and scores of about 100 (where
exp overflows a float unless the max is subtracted); attention three ways on sequence lengths
that are not multiples of the tiles (16 for the three kernels, 64 queries and 32 keys for the
tiled one), shorter than one tile, and on two heads, so that each head's offset is used.
"""

import numpy as np
import pytest

from helpers.backend import compile_cu, gpuarray

RNG = np.random.default_rng(14)
D = 64
SCALE = np.float32(D ** -0.5)


@pytest.fixture(scope="module")
def attention():
    return compile_cu("attention.cu", no_extern_c=True)   # cuda_fp16.h is C++


def softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def nan_array(shape):
    return gpuarray.to_gpu(np.full(shape, np.nan, np.float16))


@pytest.mark.parametrize("rows, cols", [(5, 20), (13, 100), (3, 1000), (1, 1)])
@pytest.mark.parametrize("kernel", ["softmax_warp", "softmax_block", "softmax_online"])
def test_softmax_matches_numpy_with_large_scores(attention, kernel, rows, cols):
    x = (RNG.standard_normal((rows, cols)) * 3 + 95).astype(np.float16)
    x[::2] -= 95                                    # small rows and large ones
    y = nan_array((rows, cols))
    f = attention.get_function(kernel)
    if kernel == "softmax_block":
        f(gpuarray.to_gpu(x), y, np.int32(cols), block=(128, 1, 1), grid=(rows, 1))
    else:                                           # 4 warps a block: more warps than rows
        f(gpuarray.to_gpu(x), y, np.int32(rows), np.int32(cols), block=(128, 1, 1),
          grid=(-(-rows // 4), 1))
    assert np.allclose(y.get(), softmax(x), rtol=4e-3, atol=1e-4)


def launch(attention, way, q, k, v, o):
    heads, n, _ = q.shape
    f, nn, tiles = attention.get_function, np.int32(n), -(-n // 16)
    if way == "three kernels":
        s = gpuarray.empty((heads, n, n), np.float16)
        f("attention_scores")(q, k, s, nn, SCALE, block=(16, 16, 1), grid=(tiles, tiles, heads))
        f("softmax_block")(s, s, nn, block=(256, 1, 1), grid=(heads * n, 1))
        f("attention_values")(s, v, o, nn, block=(16, 16, 1), grid=(D // 16, tiles, heads))
    elif way == "fused":
        f("attention_fused")(q, k, v, o, nn, SCALE, block=(128, 1, 1), grid=(n, heads))
    else:
        f("attention_tiled")(q, k, v, o, nn, SCALE, block=(256, 1, 1), grid=(-(-n // 64), heads))


@pytest.mark.parametrize("heads, n", [(2, 100), (1, 7), (1, 64)])
@pytest.mark.parametrize("way", ["three kernels", "fused", "tiled"])
def test_attention_matches_numpy(attention, way, heads, n):
    q, k, v = (RNG.standard_normal((heads, n, D)).astype(np.float16) for _ in range(3))
    o = nan_array((heads, n, D))
    launch(attention, way, *(gpuarray.to_gpu(a) for a in (q, k, v)), o)
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * float(SCALE)
    assert np.allclose(o.get(), softmax(s) @ v.astype(np.float64), rtol=1e-2, atol=2e-3)
