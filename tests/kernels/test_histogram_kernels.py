"""Notebook 07's histogram kernels (cuda_src/histogram.cu) against np.bincount.

Runs on whichever backend helpers.backend chose, on sizes that are not multiples of 16 (the x16
kernels' tail) or of the block, blocks that do not divide the 256 bins, grids with fewer threads
than pixels (the grid-stride loops), and a one-colour image (every thread on one bin). The wrong
kernel, histogram_racy, is run on the simulator's race check, which must find its race whatever
order the threads ran in.
"""

import numpy as np
import pytest

from helpers.backend import compile_cu, gpuarray, read_cu

RNG = np.random.default_rng(11)
PRIVATE = ["histogram_shared", "histogram_shared_x16", "histogram_shared_runs"]


@pytest.fixture(scope="module")
def histogram():
    return compile_cu("histogram.cu")


def _bins():
    return gpuarray.zeros(256, np.uint32)


def _image(kind, n):
    if kind == "one colour":
        return np.full(n, 77, np.uint8)
    if kind == "smooth":   # runs of equal values, as in a photograph's flat areas
        return np.repeat(RNG.integers(0, 256, n // 7 + 1, dtype=np.uint8), 7)[:n].copy()
    return RNG.integers(0, 256, n, dtype=np.uint8)


@pytest.mark.parametrize("kind", ["random", "one colour", "smooth"])
@pytest.mark.parametrize("n", [1, 15, 100_003])
def test_global_atomics_count_every_pixel(histogram, kind, n):
    pixels = _image(kind, n)
    bins = _bins()
    histogram.get_function("histogram_global")(gpuarray.to_gpu(pixels), bins, np.int32(n),
                                               block=(256, 1, 1), grid=((n + 255) // 256, 1))
    assert np.array_equal(bins.get(), np.bincount(pixels, minlength=256))


@pytest.mark.parametrize("kernel", PRIVATE)
@pytest.mark.parametrize("kind", ["random", "one colour", "smooth"])
@pytest.mark.parametrize("n, block, grid", [(100_003, 256, 7), (100_003, 96, 64), (15, 256, 1),
                                            (33, 32, 3), (1, 512, 2)])
def test_privatised_kernels_count_every_pixel(histogram, kernel, kind, n, block, grid):
    pixels = _image(kind, n)
    bins = _bins()
    histogram.get_function(kernel)(gpuarray.to_gpu(pixels), bins, np.int32(n),
                                   block=(block, 1, 1), grid=(grid, 1))
    assert np.array_equal(bins.get(), np.bincount(pixels, minlength=256))


@pytest.mark.parametrize("kernel", PRIVATE)
def test_the_bins_are_added_to_not_overwritten(histogram, kernel):
    pixels = _image("random", 5000)
    bins = gpuarray.to_gpu(np.full(256, 1000, np.uint32))
    histogram.get_function(kernel)(gpuarray.to_gpu(pixels), bins, np.int32(pixels.size),
                                   block=(256, 1, 1), grid=(4, 1))
    assert np.array_equal(bins.get(), 1000 + np.bincount(pixels, minlength=256))


@pytest.mark.parametrize("kind", ["random", "one colour"])
@pytest.mark.parametrize("n, block, grid", [(100_003, 256, 7), (15, 256, 1), (33, 32, 3),
                                            (100_003, 1024, 64)])
def test_one_launch_writes_the_bins_and_leaves_scratch_ready(histogram, kind, n, block, grid):
    pixels = gpuarray.to_gpu(_image(kind, n))
    bins, scratch = gpuarray.to_gpu(np.full(256, 7, np.uint32)), gpuarray.zeros(257, np.uint32)
    fn = histogram.get_function("histogram_once")
    for _ in range(2):     # the second launch starts from what the first left in scratch
        fn(pixels, bins, scratch, np.int32(n), block=(block, 1, 1), grid=(grid, 1))
        assert np.array_equal(bins.get(), np.bincount(pixels.get(), minlength=256))
        assert not scratch.get().any()


def test_the_race_check_finds_the_racy_histogram_whatever_the_order():
    from helpers.sim import driver as sim_drv, gpuarray as sim_gpuarray
    from helpers.sim.compiler import SourceModule as SimSourceModule
    from helpers.sim.settings import settings

    racy = SimSourceModule(read_cu("histogram.cu")).get_function("histogram_racy")
    pixels = sim_gpuarray.to_gpu(_image("random", 4096))
    bins = sim_gpuarray.zeros(256, np.uint32)
    with settings.changed(workers=1):     # one thread at a time: right by luck, as feared
        racy(pixels, bins, np.int32(4096), block=(256, 1, 1), grid=(16, 1))
    assert bins.get().sum() == 4096
    lines = read_cu("histogram.cu").splitlines()
    increment = next(i for i, line in enumerate(lines) if "bins[pixels[i]]++;" in line)  # (the #line counts)
    for workers in (1, 2):
        with settings.changed(racecheck=True, workers=workers):
            with pytest.raises(sim_drv.LaunchError) as err:
                racy(pixels, bins, np.int32(4096), block=(256, 1, 1), grid=(16, 1))
        race = err.value
        assert (race.kind, race.kernel, race.array, race.space) == (
            "race", "histogram_racy", "bins", "global")
        # a read-modify-write on one line: the lost update
        assert race.first.line == race.second.line == f"histogram.cu:{increment}"
