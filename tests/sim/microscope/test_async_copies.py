"""CUDA's asynchronous copies on the simulator (include/cuda_pipeline_primitives.h): a copy reads
global memory when its thread asks for it and lands in shared memory at the wait that covers its
batch, the latest moment a GPU allows; the checks see a load at the copy's line and a store at
the wait's, and a copy against CUDA's rules stops the launch naming the line."""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import RaceError, UninitialisedReadError
from helpers.sim.settings import settings

STAGE = r"""
#include <cuda_pipeline_primitives.h>
__global__ void stage(const float *in, float *out, int offset, int zfill) {
    __shared__ __align__(16) float tile[64];
    __pipeline_memcpy_async(&tile[threadIdx.x * 4], in + threadIdx.x * 4 + offset, 16, zfill);
#ifndef NO_COMMIT
    __pipeline_commit();
#endif
#ifndef NO_WAIT
    __pipeline_wait_prior(0);
#endif
#ifndef NO_BARRIER
    __syncthreads();
#endif
    out[threadIdx.x] = tile[(threadIdx.x * 4 + 5) % 64];   // another thread's copy
}
"""


def launch(offset=0, zfill=0, options=()):
    x = np.arange(80, dtype=np.float32)
    out = gpuarray.zeros(16, np.float32)
    SourceModule(STAGE, options=list(options)).get_function("stage")(
        gpuarray.to_gpu(x), out, np.int32(offset), np.int32(zfill), block=(16, 1, 1), grid=(1, 1))
    return out.get()


def test_a_copy_then_a_barrier_gives_every_thread_the_others_floats():
    assert launch().tolist() == [(4 * t + 5) % 64 for t in range(16)]
    zeros = launch(zfill=8)   # the last 8 bytes of each 16 are zeros, not read
    assert zeros.tolist() == [(4 * t + 5) % 64 if (4 * t + 5) % 4 < 2 else 0 for t in range(16)]


def test_a_copy_from_a_misaligned_address_stops_the_launch_at_its_line():
    with pytest.raises(drv.LaunchError) as err:
        launch(offset=1)
    assert (err.value.kind, err.value.line.split(":")[-1]) == ("assert", "5")


def test_reading_another_threads_copy_without_the_barrier_is_a_race():
    with settings.changed(racecheck=True), pytest.raises(RaceError) as err:
        launch(options=["-DNO_BARRIER"])
    assert err.value.space == "shared"
    # the copy lands at the wait (line 10), another thread reads it at line 15
    assert {err.value.first.line.split(":")[-1], err.value.second.line.split(":")[-1]} == {"10", "15"}


@pytest.mark.parametrize("left_out", ["NO_WAIT", "NO_COMMIT"])
def test_a_tile_read_before_its_copies_are_waited_for_is_shared_memorys_junk(left_out):
    assert np.isnan(launch(options=[f"-D{left_out}"])).all()   # the junk's floats are NaN
    with settings.changed(initcheck=True), pytest.raises(UninitialisedReadError) as err:
        launch(options=[f"-D{left_out}"])
    assert (err.value.space, err.value.line.split(":")[-1]) == ("shared", "15")


BATCHES = r"""
#include <cuda_pipeline_primitives.h>
__global__ void batches(const float *in, float *out) {
    __shared__ float first[32], second[32];
    __pipeline_memcpy_async(&first[threadIdx.x], in + threadIdx.x, 4);
    __pipeline_commit();
    __pipeline_memcpy_async(&second[threadIdx.x], in + 32 + threadIdx.x, 4);
    __pipeline_commit();
    __pipeline_wait_prior(1);   // the first batch has landed, the second may not have
    out[threadIdx.x] = first[threadIdx.x];
    out[32 + threadIdx.x] = second[threadIdx.x];
    __pipeline_wait_prior(0);
    out[64 + threadIdx.x] = second[threadIdx.x];
}
"""


def test_a_wait_leaving_one_batch_in_flight_lands_only_the_older():
    out = gpuarray.zeros(96, np.float32)
    SourceModule(BATCHES).get_function("batches")(
        gpuarray.to_gpu(np.arange(64, dtype=np.float32)), out, block=(32, 1, 1), grid=(1, 1))
    got = out.get()
    assert got[:32].tolist() == list(range(32)) and got[64:].tolist() == list(range(32, 64))
    assert np.isnan(got[32:64]).all()
