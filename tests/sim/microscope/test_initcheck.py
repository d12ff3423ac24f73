"""The init check (settings.initcheck, CUDA_SIM_INITCHECK=1): a read of device memory that
nothing wrote since it was allocated is reported, as compute-sanitizer's initcheck does on a GPU.

The simulator's fresh memory is zero, so such a kernel gives the right answer by luck here; on a
GPU it reads whatever an earlier array left. The check keeps a shadow of the bytes written (by
copies, memsets, gpuarray's own operations and checked launches) for the allocations made while
it is on. These run the simulator whatever backend is chosen.
"""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.machine import written
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import Settings, settings

KERNELS = r"""
__global__ void add_into(const float *x, float *acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}
__global__ void set_to(float *y, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = v;
}
__global__ void count_positive(const float *x, int *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f) atomicAdd(count, 1);
}
"""
N = 1000
LAUNCH = dict(block=(256, 1, 1), grid=(4, 1))


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS)


@pytest.fixture
def x():
    return gpuarray.to_gpu(np.ones(N, np.float32))


def _add_into(mod, x, acc):
    mod.get_function("add_into")(x, acc, np.int32(N), **LAUNCH)


def test_adding_into_an_array_nobody_zeroed_is_reported(mod, x):
    with settings.changed(initcheck=True):
        acc = gpuarray.empty(N, np.float32)
        with pytest.raises(drv.LaunchError) as err:
            _add_into(mod, x, acc)
    message = str(err.value)
    facts = (err.value.kind, err.value.kernel, err.value.array, err.value.element, err.value.line,
             err.value.thread, err.value.block)
    assert facts == ("uninitialised read", "add_into", "acc", 0, "kernel.cu:4", (0, 0, 0),
                     (0, 0, 0))
    assert message.startswith("init check: kernel 'add_into' reads acc[0]")
    assert "of a 4000-byte allocation" in message
    assert "thread (0, 0, 0) of block (0, 0, 0)" in message and "kernel.cu:4" in message
    assert "999 more such reads" in message
    assert "Uninitialized __global__ memory read of size 4 bytes" in message  # initcheck's words
    assert "gpuarray.zeros" in message  # what to do


@pytest.mark.parametrize("fill", ["zeros", "fill", "memset", "memcpy_htod", "kernel"])
def test_memory_written_first_is_not_reported(mod, x, fill):
    with settings.changed(initcheck=True):
        acc = gpuarray.zeros(N, np.float32) if fill == "zeros" else gpuarray.empty(N, np.float32)
        if fill == "fill":
            acc.fill(2.0)
        elif fill == "memset":
            drv.memset_d32(acc.gpudata, 0, N)
        elif fill == "memcpy_htod":
            drv.memcpy_htod(acc.gpudata, np.zeros(N, np.float32))
        elif fill == "kernel":  # a checked launch's stores count as writes
            mod.get_function("set_to")(acc, np.float32(0), np.int32(N), **LAUNCH)
        _add_into(mod, x, acc)
    assert acc.get()[0] in (1.0, 3.0)


def test_half_of_an_array_copied_in_the_read_of_the_other_half_is_named(mod, x):
    with settings.changed(initcheck=True):
        acc = gpuarray.empty(N, np.float32)
        drv.memcpy_htod(acc.gpudata, np.zeros(N // 2, np.float32))
        with pytest.raises(drv.LaunchError, match=r"reads acc\[500\] \(byte 2000 of a 4000-byte"):
            _add_into(mod, x, acc)


def test_an_atomic_on_a_counter_nobody_zeroed_is_a_read_too(mod, x):
    with settings.changed(initcheck=True):
        count = drv.mem_alloc(4)
        with pytest.raises(drv.LaunchError, match=r"reads count\[0\]"):
            mod.get_function("count_positive")(x, count, np.int32(N), **LAUNCH)


def test_arrays_made_before_the_check_was_on_are_not_reported(mod, x):
    acc = gpuarray.empty(N, np.float32)
    with settings.changed(initcheck=True):
        _add_into(mod, x, acc)


def test_a_launch_without_the_check_ends_every_shadow(mod, x):
    with settings.changed(initcheck=True):
        acc = gpuarray.empty(N, np.float32)
    mod.get_function("set_to")(acc, np.float32(0), np.int32(N), **LAUNCH)  # not seen
    with settings.changed(initcheck=True):
        _add_into(mod, x, acc)  # so not reported
    assert not written.tracking()


def test_the_setting_is_read_from_the_environment():
    assert Settings.from_environ({"CUDA_SIM_INITCHECK": "1"}).initcheck is True
    assert Settings.from_environ({}).initcheck is False
