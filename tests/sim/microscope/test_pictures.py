"""Pictures of a memory trace (helpers/sim/microscope/pictures.py): every kept access as a table
that names its thread, array and element, one warp's request, and the three pictures drawn
from them. One module, traced once for the file. These run the simulator whatever backend is
chosen."""

import matplotlib
import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.microscope import pictures
from helpers.sim.microscope.trace import trace

matplotlib.use("Agg")

SOURCE = r"""
__global__ void strided(const float *in, float *out) { out[threadIdx.x] = in[32 * threadIdx.x]; }
__global__ void gather(const float *in, float *out) { out[threadIdx.x] = in[2 * threadIdx.x]; }
__global__ void stride32(float *out) {
    __shared__ float t[32 * 32];
    t[threadIdx.x * 32] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = t[threadIdx.x * 32];
}
"""
STRIDED, GATHER, SHARED_STORE = 2, 3, 6  # their lines


@pytest.fixture(scope="module")
def launches():
    mod = SourceModule(SOURCE)
    a, b = gpuarray.to_gpu(np.arange(64 * 32, dtype=np.float32)), gpuarray.zeros(64, np.float32)
    with trace() as t:
        mod.get_function("strided")(a, b, block=(64, 1, 1))
        mod.get_function("gather")(a, b, block=(32, 1, 1))
        mod.get_function("stride32")(gpuarray.zeros(32, np.float32), block=(32, 1, 1))
    return t.launches


def test_every_access_names_its_thread_array_and_element(launches):
    acc = launches[1].accesses()
    reads, writes = acc[~acc["write"]], acc[acc["write"]]
    assert set(reads["array"]) == {"in"} and set(writes["array"]) == {"out"}
    assert sorted(reads["thread"]) == list(range(32))
    assert (reads["index"] == 2 * reads["thread"]).all() and (writes["index"] == writes["thread"]).all()
    assert (reads["offset"] == 8 * reads["thread"]).all() and (reads["line"] == GATHER).all()
    shared = launches[2].accesses()
    stores = shared[shared["shared"] & shared["write"]]
    assert set(stores["array"]) == {"t"} and (stores["index"] == 32 * stores["thread"]).all()


def test_a_request_is_one_row_a_lane_of_one_warp(launches):
    req = pictures.request(launches[0], line=STRIDED, warp=1)
    assert list(req.lane) == list(range(32)) and set(req.array) == {"in"} and not req.write.any()
    assert list(req.offset) == [4 * 32 * (32 + lane) for lane in range(32)]
    with pytest.raises(ValueError, match="warp 2 of block 0"):
        pictures.request(launches[0], line=STRIDED, warp=2)


def test_pictures_of_threads_sectors_and_banks(launches):
    ax = pictures.threads(launches[0], "out", shape=(8, 8))
    assert "which thread wrote each element of out" in ax.get_title()
    assert np.array_equal(ax.images[0].get_array(), np.arange(64).reshape(8, 8))
    ax = pictures.sectors(launches[0], line=STRIDED)
    assert "32 lanes, 32 sectors" in ax.get_title()
    ax = pictures.banks(launches[2], line=SHARED_STORE)
    assert "32 wavefronts" in ax.get_title()
    conflicting = ax.collections[1].get_offsets()  # the red points: lanes in a conflicting bank
    assert len(conflicting) == 32
    with pytest.raises(ValueError, match=f"no shared memory access of line {STRIDED}"):
        pictures.banks(launches[0], line=STRIDED)
