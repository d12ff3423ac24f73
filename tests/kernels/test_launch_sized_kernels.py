"""The kernels of notebooks 06 and 07 whose shared memory the launch sizes, and the count with
__reduce_add_sync: stencil_dynamic and stencil_weighted (cuda_src/stencil.cu, the radius and the
weights given at run time, the weights in __constant__ memory), reverse_chunk
(cuda_src/block_reverse.cu, 64 KiB a block after the opt-in) and count_above_shuffle and
count_above_reduce (cuda_src/reduction.cu). Against NumPy, on whichever backend helpers.backend
chose, outputs pre-filled with NaN, sizes that are not multiples of the block."""

import numpy as np
import pytest

from helpers.backend import compile_cu, drv, gpuarray
from kernel_sources import moving_average

RNG = np.random.default_rng(29)


@pytest.fixture(scope="module")
def stencil():
    return compile_cu("stencil.cu")


def run_stencil(stencil, name, x, radius, block):
    out = gpuarray.to_gpu(np.full(x.size, np.nan, np.float32))
    stencil.get_function(name)(gpuarray.to_gpu(x), out, np.int32(x.size), np.int32(radius),
                               block=(block, 1, 1), grid=((x.size + block - 1) // block, 1),
                               shared=4 * (block + 2 * radius))
    return out.get()


@pytest.mark.parametrize("n, radius, block", [(1, 3, 256), (1000, 3, 256), (70001, 3, 256),
                                              (257, 10, 64), (83, 40, 32), (5000, 0, 128)])
def test_the_radius_given_at_launch_gives_numpys_moving_average_bit_for_bit(stencil, n, radius,
                                                                           block):
    x = RNG.standard_normal(n).astype(np.float32)
    assert np.array_equal(run_stencil(stencil, "stencil_dynamic", x, radius, block),
                          moving_average(x, radius))


@pytest.mark.parametrize("n, radius, block", [(1000, 3, 256), (4099, 32, 128), (17, 5, 32)])
def test_weights_in_constant_memory_give_numpys_weighted_average(stencil, n, radius, block):
    x = RNG.standard_normal(n).astype(np.float32)
    w = RNG.random(2 * radius + 1).astype(np.float32)
    drv.memcpy_htod(stencil.get_global("weights")[0], w)
    padded = np.pad(x.astype(np.float64), radius, mode="edge")
    want = sum(float(w[k]) * padded[k:k + n] for k in range(2 * radius + 1))
    got = run_stencil(stencil, "stencil_weighted", x, radius, block)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(w).sum())


def test_the_weights_symbol_holds_65_floats(stencil):
    assert stencil.get_global("weights")[1] == 4 * 65


@pytest.mark.parametrize("chunk, block", [(256, 256), (1000, 96), (16384, 256)])
def test_reverse_chunk_reverses_each_chunk(chunk, block):
    reverse = compile_cu("block_reverse.cu").get_function("reverse_chunk")
    if 4 * chunk > 48 * 1024:
        reverse.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 4 * chunk)
    x = RNG.standard_normal(3 * chunk).astype(np.float32)
    out = gpuarray.to_gpu(np.full(x.size, np.nan, np.float32))
    reverse(gpuarray.to_gpu(x), out, np.int32(chunk), block=(block, 1, 1), grid=(3, 1),
            shared=4 * chunk)
    assert np.array_equal(out.get(), x.reshape(3, chunk)[:, ::-1].ravel())


@pytest.mark.parametrize("kernel", ["count_above_shuffle", "count_above_reduce"])
@pytest.mark.parametrize("n, block, grid", [(1, 32, 1), (1003, 96, 2), (100001, 256, 7),
                                            (4096, 1024, 40)])
def test_the_counts_equal_numpys(kernel, n, block, grid):
    x = RNG.random(n, dtype=np.float32)
    out = gpuarray.zeros(1, np.uint32)
    compile_cu("reduction.cu").get_function(kernel)(gpuarray.to_gpu(x), out, np.int32(n),
                                                    np.float32(0.5), block=(block, 1, 1),
                                                    grid=(grid, 1))
    assert int(out.get()[0]) == int(np.count_nonzero(x > np.float32(0.5)))
