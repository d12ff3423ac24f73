"""The classic warp-synchronous reduction (Mark Harris's reduction #6, PMPP's first editions): the
last warp unrolled on a volatile shared array, with no __syncwarp().

On a GPU (an H200) its lanes run in step in practice and the sums are right. The simulator runs
them one after another, so its sums differ: it says so when the source is compiled (a
WarpSynchronousWarning naming the line), and its race check reports the race that the idiom is by
CUDA's rules since Volta. On PyCUDA the test checks the sums.
"""

import warnings

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray

REDUCE6 = r"""
__device__ void warpReduce(volatile int *sdata, unsigned int tid) {
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}
__global__ void reduce6(const int *g_idata, int *g_odata, unsigned int n) {
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (256 * 2) + tid;
    unsigned int gridSize = 256 * 2 * gridDim.x;
    sdata[tid] = 0;
    while (i < n) { sdata[tid] += g_idata[i] + g_idata[i + 256]; i += gridSize; }
    __syncthreads();
    if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads();
    if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads();
    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""
BLOCKS, N = 16, 16 * 512 * 4


def _launch(fn):
    data = np.arange(N, dtype=np.int32) % 7 + 1
    out = gpuarray.zeros(BLOCKS, np.int32)
    fn(gpuarray.to_gpu(data), out, np.uint32(N), block=(256, 1, 1), grid=(BLOCKS, 1))
    return out.get().sum(), data.sum()


def _compiled():
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        mod = SourceModule(REDUCE6)
    return mod, said


@pytest.mark.skipif(BACKEND != "pycuda", reason="the GPU's lanes run in step: on PyCUDA")
def test_on_a_gpu_the_classic_reduction_gives_the_right_sum():
    mod, _ = _compiled()
    got, want = _launch(mod.get_function("reduce6"))
    assert got == want


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's warning and race check")
def test_the_simulator_says_at_compile_time_that_it_runs_the_idiom_differently():
    from helpers.sim.errors import WarpSynchronousWarning

    _, said = _compiled()
    found = [w.message for w in said if isinstance(w.message, WarpSynchronousWarning)]
    assert [w.lines for w in found] == [["kernel.cu:2"]]


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's race check")
def test_the_race_check_still_reports_the_idiom_as_a_race():
    from helpers.sim.settings import settings

    mod, _ = _compiled()
    with settings.changed(racecheck=True), pytest.raises(drv.LaunchError) as caught:
        _launch(mod.get_function("reduce6"))
    err = caught.value
    assert (err.kind, err.array, err.space) == ("race", "sdata", "shared")
    assert err.line.startswith("kernel.cu:") and int(err.line.split(":")[1]) in range(3, 9)
