"""The kernels of notebook 06 besides the transposes (cuda_src/stencil.cu, block_reverse.cu,
block_sums.cu): results against NumPy on whichever backend helpers.backend chose, outputs
pre-filled with NaN, sizes that are not multiples of the block; and, on the simulator whatever the
backend, the race check (the kernels with their barrier are race-free, the one without is caught)
and the init check (the block sums that add shared elements no thread stored are caught)."""

import numpy as np
import pytest

from helpers.backend import compile_cu, gpuarray, read_cu
from helpers.sim import driver as sim_drv
from helpers.sim import gpuarray as sim_gpuarray
from helpers.sim.compiler import SourceModule as SimSourceModule
from helpers.sim.settings import settings
from kernel_sources import moving_average as reference

RADIUS = 3
RNG = np.random.default_rng(13)


def moving_average(x, radius=RADIUS):
    """kernel_sources.moving_average at this file's radius."""
    return reference(x, radius)


@pytest.fixture(scope="module")
def stencil():
    return compile_cu("stencil.cu")


@pytest.mark.parametrize("kernel", ["stencil_global", "stencil_shared"])
@pytest.mark.parametrize("n", [1, 2, 5, 256, 257, 1000, 70001])
def test_the_moving_average_equals_numpys_bit_for_bit(stencil, kernel, n):
    x = RNG.standard_normal(n).astype(np.float32)
    out = gpuarray.to_gpu(np.full(n, np.nan, np.float32))
    stencil.get_function(kernel)(gpuarray.to_gpu(x), out, np.int32(n), block=(256, 1, 1),
                                 grid=((n + 255) // 256, 1))
    assert np.array_equal(out.get(), moving_average(x))


def test_the_shared_stencil_works_with_another_block_size_and_radius():
    mod = compile_cu("stencil.cu", options=["-DBLOCK_SIZE=16", "-DRADIUS=5"])
    x = RNG.standard_normal(83).astype(np.float32)
    out = gpuarray.to_gpu(np.full(83, np.nan, np.float32))
    mod.get_function("stencil_shared")(gpuarray.to_gpu(x), out, np.int32(83), block=(16, 1, 1),
                                       grid=(6, 1))
    assert np.array_equal(out.get(), moving_average(x, 5))


def test_reverse_block_reverses_each_block():
    x = RNG.standard_normal(256 * 5).astype(np.float32)
    out = gpuarray.to_gpu(np.full(x.size, np.nan, np.float32))
    compile_cu("block_reverse.cu").get_function("reverse_block")(
        gpuarray.to_gpu(x), out, block=(256, 1, 1), grid=(5, 1))
    assert np.array_equal(out.get(), x.reshape(5, 256)[:, ::-1].ravel())


@pytest.mark.parametrize("n", [256, 1000, 2048 - 100])
def test_block_sums_adds_up_each_block(n):
    x = RNG.standard_normal(n).astype(np.float32)
    blocks = (n + 255) // 256
    sums = gpuarray.to_gpu(np.full(blocks + 1, np.nan, np.float32))  # and one past the end
    compile_cu("block_sums.cu").get_function("block_sums")(
        gpuarray.to_gpu(x), sums, np.int32(n), block=(256, 1, 1), grid=(blocks, 1))
    got = sums.get()
    want = np.add.reduceat(x.astype(np.float64), np.arange(0, n, 256))
    assert np.allclose(got[:blocks], want, rtol=1e-5, atol=1e-4) and np.isnan(got[blocks])


# ---- the race check and the init check (the simulator, whatever the backend) -------------------
def _checked(file, kernel, *args, check="racecheck", **launch):
    function = SimSourceModule(read_cu(file)).get_function(kernel)
    with settings.changed(**{check: True}):
        function(*args, **launch)


def test_the_kernels_with_their_barrier_have_no_race():
    x = sim_gpuarray.to_gpu(RNG.standard_normal(1000).astype(np.float32))
    out = sim_gpuarray.empty(1000, np.float32)
    _checked("stencil.cu", "stencil_shared", x, out, np.int32(1000), block=(256, 1, 1),
             grid=(4, 1))
    assert np.array_equal(out.get(), moving_average(x.get()))
    _checked("block_reverse.cu", "reverse_block", x[:768], out[:768], block=(256, 1, 1),
             grid=(3, 1))


def test_the_reverse_without_its_barrier_is_caught_naming_both_lines():
    x = sim_gpuarray.to_gpu(np.arange(512, dtype=np.float32))
    with pytest.raises(sim_drv.LaunchError) as err:
        _checked("block_reverse.cu", "reverse_block_unsynced", x, sim_gpuarray.empty_like(x),
                 block=(256, 1, 1), grid=(2, 1))
    race = err.value
    assert (race.kind, race.kernel, race.array, race.space) == (
        "race", "reverse_block_unsynced", "s", "shared")
    lines = (read_cu("block_reverse.cu")).splitlines()
    store = next(i for i, line in enumerate(lines) if "s[t] = in[i];" in line
                 and "each thread" not in line)        # the line numbers count the #line too
    assert {race.first.line, race.second.line} == {f"block_reverse.cu:{store}",
                                                   f"block_reverse.cu:{store + 1}"}


def test_the_kernels_of_the_chapter_read_no_shared_memory_they_did_not_write():
    x = sim_gpuarray.to_gpu(RNG.standard_normal(1000).astype(np.float32))
    out = sim_gpuarray.empty(1000, np.float32)
    _checked("stencil.cu", "stencil_shared", x, out, np.int32(1000), block=(256, 1, 1),
             grid=(4, 1), check="initcheck")                      # the halo is loaded first
    _checked("block_reverse.cu", "reverse_block", x[:768], out[:768], block=(256, 1, 1),
             grid=(3, 1), check="initcheck")
    _checked("block_sums.cu", "block_sums", x, out[:4], np.int32(1000), block=(256, 1, 1),
             grid=(4, 1), check="initcheck")


def test_the_block_sums_past_the_end_are_caught_by_the_init_check():
    x = sim_gpuarray.to_gpu(np.ones(1000, np.float32))
    with pytest.raises(sim_drv.LaunchError) as err:
        _checked("block_sums.cu", "block_sums_unguarded", x, sim_gpuarray.empty(4, np.float32),
                 np.int32(1000), block=(256, 1, 1), grid=(4, 1), check="initcheck")
    lines = read_cu("block_sums.cu").splitlines()
    add = next(i for i, line in enumerate(lines) if "sum += s[k];" in line)  # (the #line counts)
    facts = (err.value.kind, err.value.space, err.value.array, err.value.element,
             err.value.thread, err.value.block, err.value.line)
    assert facts == ("uninitialised read", "shared", "s", 1000 - 3 * 256, (0, 0, 0), (3, 0, 0),
                     f"block_sums.cu:{add}")
