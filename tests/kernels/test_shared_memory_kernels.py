"""The kernels of chapters 06-08 (cuda_src/transpose.cu, reduction.cu, matmul.cu,
matmul_warp_tiled.cu, matmul_async.cu) against NumPy.

Runs on whichever backend helpers.backend chose (the simulator in CI, PyCUDA on a GPU), with
sizes that are not multiples of the tiles, so that every edge guard is exercised. Outputs start
filled with NaN, so an element no thread writes is caught.
"""

import numpy as np
import pytest

from bench import sgemm_sweep
from helpers.backend import compile_cu, gpuarray

RNG = np.random.default_rng(7)


def _blocks(n, size):
    return (n + size - 1) // size


# ---- transpose ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def transpose():
    return compile_cu("transpose.cu")


@pytest.mark.parametrize("kernel", ["transpose_naive", "transpose_tiled", "transpose_padded"])
@pytest.mark.parametrize("height, width", [(64, 96), (45, 77), (1, 33)])
def test_transpose(transpose, kernel, height, width):
    a = RNG.random((height, width), dtype=np.float32)
    out = gpuarray.to_gpu(np.full((width, height), np.nan, np.float32))
    transpose.get_function(kernel)(gpuarray.to_gpu(a), out, np.int32(width), np.int32(height),
                                   block=(32, 8, 1), grid=(_blocks(width, 32), _blocks(height, 32)))
    assert np.array_equal(out.get(), a.T)


# ---- reduction ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reduction():
    return compile_cu("reduction.cu")


PER_BLOCK = {"reduce_interleaved_divergent": 256, "reduce_interleaved": 256,
             "reduce_sequential": 256, "reduce_first_add": 512, "reduce_warp_shuffle": 512}


def _sum_by_blocks(fn, x, per_block):
    """Launch the block-sum kernel until one value is left (the course's host loop)."""
    data = gpuarray.to_gpu(x)
    while True:
        n = data.size
        data, before = gpuarray.to_gpu(np.full(_blocks(n, per_block), np.nan, np.float32)), data
        fn(before, data, np.int32(n), block=(256, 1, 1), grid=(_blocks(n, per_block), 1))
        if data.size == 1:
            return data.get()[0]


@pytest.mark.parametrize("kernel", sorted(PER_BLOCK))
@pytest.mark.parametrize("n", [1, 1000, 70001])
def test_block_sum_kernels_sum_any_n(reduction, kernel, n):
    x = RNG.random(n, dtype=np.float32)
    got = _sum_by_blocks(reduction.get_function(kernel), x, PER_BLOCK[kernel])
    assert got == pytest.approx(x.astype(np.float64).sum(), rel=1e-5)


def test_the_first_step_writes_one_sum_per_block(reduction):
    x = RNG.random(3 * 512 + 17, dtype=np.float32)
    out = gpuarray.to_gpu(np.full(4, np.nan, np.float32))
    reduction.get_function("reduce_warp_shuffle")(gpuarray.to_gpu(x), out, np.int32(x.size),
                                                  block=(256, 1, 1), grid=(4, 1))
    want = np.pad(x, (0, 4 * 512 - x.size)).reshape(4, 512).sum(1)
    assert np.allclose(out.get(), want, rtol=1e-5)


@pytest.mark.parametrize("kernel", ["reduce_grid_stride", "reduce_grid_stride_x4"])
@pytest.mark.parametrize("grid, n", [(1, 100_003), (7, 100_003), (64, 100_003), (64, 3), (2, 8195)])
def test_grid_stride_reduction_in_one_launch(reduction, kernel, grid, n):
    # n % 4 != 0: the x4 kernel's tail; n = 3: no whole float4 at all; 8195 with 2 blocks: each
    # thread does an odd number of float4s (the loop's second sum stays behind by one)
    x = RNG.random(n, dtype=np.float32)
    out = gpuarray.zeros(1, np.float32)
    reduction.get_function(kernel)(gpuarray.to_gpu(x), out, np.int32(x.size),
                                   block=(256, 1, 1), grid=(grid, 1))
    assert out.get()[0] == pytest.approx(x.astype(np.float64).sum(), rel=1e-5)


# ---- matrix multiply ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def matmul():
    return compile_cu("matmul.cu")


# kernel: (block, the side of C's square a block computes)
MATMUL = {"matmul_naive": ((16, 16, 1), 16), "matmul_tiled": ((16, 16, 1), 16),
          "matmul_register_tiled": ((256, 1, 1), 128), "matmul_warp_tiled": ((256, 1, 1), 128)}


@pytest.mark.parametrize("kernel", sorted(MATMUL))
@pytest.mark.parametrize("m, k, n", [(64, 48, 32), (37, 50, 21), (1, 17, 1), (130, 9, 131),
                                     (129, 130, 127), (256, 64, 128)])
def test_matmul(matmul, kernel, m, k, n):
    # Odd K and N make the register-tiled kernel load and store float by float; multiples of
    # 4 make it use float4; 129 and 130 leave a block with a single row or column of C.
    a = RNG.random((m, k), dtype=np.float32) - 0.5
    b = RNG.random((k, n), dtype=np.float32) - 0.5
    c = gpuarray.to_gpu(np.full((m, n), np.nan, np.float32))
    block, side = MATMUL[kernel]
    f = compile_cu("matmul_warp_tiled.cu").get_function(kernel) if kernel == "matmul_warp_tiled" \
        else matmul.get_function(kernel)
    f(gpuarray.to_gpu(a), gpuarray.to_gpu(b), c, np.int32(m), np.int32(k), np.int32(n),
      block=block, grid=(_blocks(n, side), _blocks(m, side)))
    assert np.allclose(c.get(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("m, k, n", [(128, 16, 128), (36, 50, 20), (132, 17, 260), (4, 1, 4),
                                     (256, 300, 128)])
def test_matmul_async(m, k, n):
    """matmul_async.cu's kernel, which takes A transposed: M and N multiples of 4, any K; tiles
    with rows and columns past the matrices' (copied as zeros) on the sizes no tile divides."""
    a = RNG.random((m, k), dtype=np.float32) - 0.5
    b = RNG.random((k, n), dtype=np.float32) - 0.5
    c = gpuarray.to_gpu(np.full((m, n), np.nan, np.float32))
    compile_cu("matmul_async.cu", no_extern_c=True).get_function("matmul_async")(
        gpuarray.to_gpu(np.ascontiguousarray(a.T)), gpuarray.to_gpu(b), c, np.int32(m), np.int32(k),
        np.int32(n), block=(256, 1, 1), grid=(_blocks(n, 128), _blocks(m, 128)))
    assert np.allclose(c.get(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("options", list(sgemm_sweep.CONFIGS.values()))
def test_every_shape_the_sweep_tries_computes_the_same(options):
    """bench/sgemm_sweep.py's shapes of the warp-tiled kernel, on sizes no tile divides."""
    m, k, n = 261, 37, 259
    a = RNG.random((m, k), dtype=np.float32) - 0.5
    b = RNG.random((k, n), dtype=np.float32) - 0.5
    c = gpuarray.to_gpu(np.full((m, n), np.nan, np.float32))
    threads, sizes = sgemm_sweep.threads(options)
    f = compile_cu("matmul_warp_tiled.cu", options=options).get_function("matmul_warp_tiled")
    f(gpuarray.to_gpu(a), gpuarray.to_gpu(b), c, np.int32(m), np.int32(k), np.int32(n),
      block=(threads, 1, 1), grid=(_blocks(n, sizes["WT_BN"]), _blocks(m, sizes["WT_BM"])))
    assert np.allclose(c.get(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("define", ["-DMIN_BLOCKS=1", "-DMIN_BLOCKS=4", "-DAS_PAD=0"])
def test_register_tiled_variants_compute_the_same(define):
    """The notebook compiles the register-tiled kernel with other register caps and without
    the padding: only the speed may change."""
    m, k, n = 140, 36, 200
    a = RNG.random((m, k), dtype=np.float32) - 0.5
    b = RNG.random((k, n), dtype=np.float32) - 0.5
    c = gpuarray.to_gpu(np.full((m, n), np.nan, np.float32))
    f = compile_cu("matmul.cu", options=[define]).get_function("matmul_register_tiled")
    f(gpuarray.to_gpu(a), gpuarray.to_gpu(b), c, np.int32(m), np.int32(k), np.int32(n),
      block=(256, 1, 1), grid=(_blocks(n, 128), _blocks(m, 128)))
    assert np.allclose(c.get(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5)
