"""CUDA's asynchronous copies on the simulator (include/cuda_pipeline_primitives.h): each copy is
made at once by the thread that asks; the checks see it as that thread's load and store at its
line, and a copy against CUDA's rules stops the launch naming the line."""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import RaceError
from helpers.sim.settings import settings

STAGE = r"""
#include <cuda_pipeline_primitives.h>
__global__ void stage(const float *in, float *out, int offset, int zfill) {
    __shared__ __align__(16) float tile[64];
    __pipeline_memcpy_async(&tile[threadIdx.x * 4], in + threadIdx.x * 4 + offset, 16, zfill);
    __pipeline_commit();
    __pipeline_wait_prior(0);
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
    assert {err.value.first.line.split(":")[-1], err.value.second.line.split(":")[-1]} == {"5", "11"}
