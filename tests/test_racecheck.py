"""The race check (settings.racecheck, CUDA_SIM_RACECHECK=1): races found whatever the order.

The simulator runs a block's threads one after another, so a missing barrier usually gives the
right answer by luck. The race check remembers, for each shared and global location, who wrote
and read it since the last barrier, so it finds the conflicting pair whatever order (and however
many worker threads) the simulator used, and names both threads, the array and both lines, as
compute-sanitizer's racecheck does on a GPU. These run the simulator whatever backend is chosen.
"""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

ROTATE = r"""
__global__ void rotate(const float *in, float *out, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = in[threadIdx.x];
    %s
    out[threadIdx.x] = s[(threadIdx.x + 1) %% n];
}
"""


def _rotate(barrier, workers, n=64):
    x = gpuarray.to_gpu(np.arange(n, dtype=np.float32))
    y = gpuarray.empty(n, np.float32)
    with settings.changed(racecheck=True, workers=workers):
        SourceModule(ROTATE % barrier).get_function("rotate")(x, y, np.int32(n), block=(n, 1, 1))
    return y.get()


@pytest.mark.parametrize("workers", [1, 2, 7])
def test_a_missing_barrier_is_found_whatever_the_worker_count(workers):
    with pytest.raises(drv.LaunchError) as err:
        _rotate("", workers)
    message = str(err.value)
    assert "race check" in message and "'rotate'" in message
    assert "s[" in message and "shared memory" in message  # the __shared__ array, by name
    assert "kernel.cu:4" in message and "kernel.cu:6" in message  # both lines
    assert message.count("thread (") == 2  # both threads
    assert "__syncthreads()" in message
    assert "compute-sanitizer --tool racecheck" in message


def test_with_the_barrier_there_is_no_race():
    assert np.array_equal(_rotate("__syncthreads();", 2), np.roll(np.arange(64), -1))


HISTOGRAM = r"""
__global__ void histogram(const int *values, int *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) %s;
}
"""


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("blocks", [1, 8])
def test_lost_updates_of_a_racy_histogram_are_found(workers, blocks):
    values = gpuarray.to_gpu(np.arange(256, dtype=np.int32) % 4)
    bins = gpuarray.zeros(4, np.int32)
    fn = SourceModule(HISTOGRAM % "bins[values[i]]++").get_function("histogram")
    with settings.changed(racecheck=True, workers=workers), pytest.raises(drv.LaunchError) as err:
        fn(values, bins, np.int32(256), block=(256 // blocks, 1, 1), grid=(blocks, 1))
    message = str(err.value)
    assert "bins[" in message and "global memory" in message
    assert "atomicAdd" in message  # a read-modify-write: the advice is an atomic


def test_atomics_are_not_races():
    values = gpuarray.to_gpu(np.arange(256, dtype=np.int32) % 4)
    bins = gpuarray.zeros(4, np.int32)
    fn = SourceModule(HISTOGRAM % "atomicAdd(&bins[values[i]], 1)").get_function("histogram")
    with settings.changed(racecheck=True):
        fn(values, bins, np.int32(256), block=(64, 1, 1), grid=(4, 1))
    assert bins.get().tolist() == [64, 64, 64, 64]


WARP_REDUCE = r"""
__global__ void reduce(const float *in, float *out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
%s
    }
    if (t == 0) out[0] = s[0];
}
"""
LEGACY = """        volatile float *v = s;  // warp-synchronous: no barrier, "the warp runs in lockstep"
        v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8];
        v[t] += v[t + 4]; v[t] += v[t + 2]; v[t] += v[t + 1];"""
WITH_SYNCWARP = """        float v = s[t] + s[t + 32];
        for (int d = 16; d > 0; d /= 2) {
            __syncwarp(0xffffffff); s[t] = v; __syncwarp(0xffffffff);
            v += s[t + d];
        }
        __syncwarp(0xffffffff); s[t] = v;"""


def test_the_legacy_volatile_warp_reduction_is_the_race_it_is():
    x = gpuarray.to_gpu(np.ones(64, np.float32))
    out = gpuarray.zeros(1, np.float32)
    with settings.changed(racecheck=True), pytest.raises(drv.LaunchError) as err:
        SourceModule(WARP_REDUCE % LEGACY).get_function("reduce")(x, out, block=(64, 1, 1))
    assert "s[" in str(err.value) and "__syncwarp()" in str(err.value)


def test_the_same_reduction_with_syncwarp_is_clean():
    x = gpuarray.to_gpu(np.arange(64, dtype=np.float32))
    out = gpuarray.zeros(1, np.float32)
    with settings.changed(racecheck=True):
        SourceModule(WARP_REDUCE % WITH_SYNCWARP).get_function("reduce")(x, out, block=(64, 1, 1))
    assert out.get()[0] == np.arange(64).sum()


def test_a_shared_scalar_written_by_thread_0_and_read_without_a_barrier():
    # A constant address (`total`, not `total[i]`): the access must still be seen.
    src = r"""
    __global__ void scale(float *x) {
        __shared__ float total;
        if (threadIdx.x == 0) total = 2.0f;
        x[threadIdx.x] *= total;
    }
    """
    x = gpuarray.to_gpu(np.ones(64, np.float32))
    with settings.changed(racecheck=True), pytest.raises(drv.LaunchError, match=r"total\[0\]"):
        SourceModule(src).get_function("scale")(x, block=(64, 1, 1))


def test_dynamic_shared_memory_races_are_found():
    src = r"""
    __global__ void shift(int *out) {
        extern __shared__ int buf[];
        buf[threadIdx.x] = threadIdx.x;
        out[threadIdx.x] = buf[(threadIdx.x + 33) % blockDim.x];
    }
    """
    out = gpuarray.zeros(64, np.int32)
    with settings.changed(racecheck=True), pytest.raises(drv.LaunchError, match="extern __shared__"):
        SourceModule(src).get_function("shift")(out, block=(64, 1, 1), shared=256)


def test_blocks_writing_one_element_race_and_the_advice_says_why():
    src = "__global__ void last(int *out) { out[0] = blockIdx.x; }"
    out = gpuarray.zeros(1, np.int32)
    with settings.changed(racecheck=True), pytest.raises(drv.LaunchError) as err:
        SourceModule(src).get_function("last")(out, block=(1, 1, 1), grid=(4, 1))
    assert "write-after-write" in str(err.value) and "Blocks cannot wait" in str(err.value)


def test_a_kernel_that_orders_blocks_with_a_fence_is_not_reported():
    # The "last block" pattern: each block writes its partial sum, fences, counts itself in with
    # an atomic; the last one to arrive reads them all.
    src = r"""
    __device__ unsigned int arrived;
    __global__ void sum(const int *in, int *partial, int *out) {
        if (threadIdx.x != 0) return;
        partial[blockIdx.x] = in[blockIdx.x];
        __threadfence();
        if (atomicAdd(&arrived, 1u) == gridDim.x - 1) {
            int total = 0;
            for (int b = 0; b < gridDim.x; b++) total += partial[b];
            out[0] = total;
        }
    }
    """
    x = gpuarray.to_gpu(np.arange(8, dtype=np.int32))
    partial, out = gpuarray.zeros(8, np.int32), gpuarray.zeros(1, np.int32)
    with settings.changed(racecheck=True):
        SourceModule(src).get_function("sum")(x, partial, out, block=(32, 1, 1), grid=(8, 1))
    assert out.get()[0] == 28


def test_device_variables_reach_the_checked_build_and_come_back():
    src = r"""
    __device__ int calls;
    __constant__ int bump;
    __global__ void count(int *x) { x[threadIdx.x] += bump; if (threadIdx.x == 0) atomicAdd(&calls, 1); }
    """
    mod = SourceModule(src)
    drv.memcpy_htod(mod.get_global("bump")[0], np.array([5], np.int32))
    x = gpuarray.zeros(32, np.int32)
    with settings.changed(racecheck=True):
        mod.get_function("count")(x, block=(32, 1, 1))
    calls = np.zeros(1, np.int32)
    drv.memcpy_dtoh(calls, mod.get_global("calls")[0])
    assert (x.get() == 5).all() and calls[0] == 1


# ---- the course's own kernels are race-free: no false alarm ------------------------------------
def _course_launches():
    """(file, kernel, arguments, block, grid) of each shared-memory kernel of chapters 06-08."""
    f32 = np.float32
    a = gpuarray.to_gpu(np.ones((45, 77), f32))
    at = gpuarray.zeros((77, 45), f32)
    x = gpuarray.to_gpu(np.ones(3000, f32))
    sums, total = gpuarray.zeros(12, f32), gpuarray.zeros(1, f32)
    m = gpuarray.to_gpu(np.ones((37, 50), f32))
    n = gpuarray.to_gpu(np.ones((50, 21), f32))
    c = gpuarray.zeros((37, 21), f32)
    i32 = np.int32
    yield from (("transpose.cu", k, (a, at, i32(77), i32(45)), (32, 8, 1), (3, 2))
                for k in ("transpose_naive", "transpose_tiled", "transpose_padded"))
    yield from (("reduction.cu", k, (x, sums, i32(3000)), (256, 1, 1), (12, 1))
                for k in ("reduce_interleaved_divergent", "reduce_interleaved", "reduce_sequential",
                          "reduce_first_add", "reduce_warp_shuffle"))
    yield "reduction.cu", "reduce_grid_stride", (x, total, i32(3000)), (256, 1, 1), (5, 1)
    yield from (("matmul.cu", k, (m, n, c, i32(37), i32(50), i32(21)), (16, 16, 1), (2, 3))
                for k in ("matmul_naive", "matmul_tiled"))


def test_the_course_kernels_have_no_race():
    from helpers.backend import CUDA_SRC

    for file, kernel, args, block, grid in _course_launches():
        source = f'#line 1 "{file}"\n' + (CUDA_SRC / file).read_text()
        with settings.changed(racecheck=True):
            SourceModule(source).get_function(kernel)(*args, block=block, grid=grid)
