"""The bounds check of the instrumented build: every access of a traced, race-checked or
init-checked launch is checked against the array it falls in, every byte of it.

A plain launch catches most overruns with guard pages, but a read of the few bytes of slack past
an array whose size is not a multiple of 16 gives NaN there, and an overrun of a `__shared__`
array through a pointer lands in whatever follows it. On the instrumented build both are an
OutOfBoundsError naming the array and element, the thread, block and line; locals, `__device__`
and `__constant__` variables, the heap of a kernel's malloc and pointers that only reach the end
are not flagged. These run the simulator whatever backend is chosen.
"""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import OutOfBoundsError
from helpers.sim.machine import memory
from helpers.sim.microscope.trace import trace
from helpers.sim.settings import settings

KERNELS = r"""
__device__ float table[8];
__constant__ float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__global__ void shift_left(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i + 1];
}
__global__ void shift_right(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i - 1];
}
__global__ void fill_unguarded(float *y, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = v;
}
__global__ void pairs(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i < n) {
        float2 p = reinterpret_cast<const float2 *>(x)[i];
        y[i] = p.x + p.y;
    }
}
__global__ void count_into(const int *v, int *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[v[i]], 1);
}
__global__ void neighbour_through_pointer(float *out) {
    __shared__ float tile[16];
    float *p = tile;
    unsigned i = threadIdx.x;
    p[i] = (float)i;
    __syncthreads();
    out[i] = p[i + 1];
}
__global__ void dynamic_neighbour(float *out) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x + 1];
}
__global__ void first_of_two(float *out) {
    __shared__ float mine[4];
    float *p = mine;  // (g++'s -fsanitize=bounds catches mine[-1], but not through a pointer)
    p[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = p[(int)threadIdx.x - 1];
}
__global__ void second_of_two(float *out) {
    __shared__ float theirs[4];
    theirs[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = theirs[3 - threadIdx.x];
}
__global__ void near_the_ends(const float *x, float *y, int n) {
    __shared__ float tile[16];
    float local[16];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    float *last = tile + 15;                      // the last element, indexed backwards
    last[-t] = table[t % 8] * weights[t % 4];     // tile[15 - t]
    __syncthreads();
    for (int k = 0; k < 16; k++) local[(k + t) % 16] = tile[k];  // a local array
    const float *end = x + n;                     // one past the end: compared, never read
    float *heap = (float *)malloc(4 * sizeof(float));
    heap[3] = local[(t + 1) % 16];                // the heap of a kernel's malloc
    if (i < n && x + i < end) y[i] = end[-1 - i] + heap[3];
    free(heap);
}
"""
N = 15  # 60 bytes: the first 4 bytes past the end are slack, not a guard page


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS)


def _line_of(code):
    return f"kernel.cu:{KERNELS[:KERNELS.index(code)].count(chr(10)) + 1}"


def _x():
    return gpuarray.to_gpu(np.arange(N, dtype=np.float32))


def _raised(launch, **checks):
    with settings.changed(**(checks or {"racecheck": True})), pytest.raises(OutOfBoundsError) as err:
        launch()
    return err.value


def test_a_read_in_the_slack_past_the_end_gives_nan_unchecked_and_an_error_checked(mod):
    x, y = _x(), gpuarray.zeros(N, np.float32)

    def launch():
        mod.get_function("shift_left")(x, y, np.int32(N), block=(16, 1, 1), grid=(1, 1))

    launch()  # the plain build: x[15] lies in the slack, whose canary reads as NaN
    assert np.isnan(y.get()[N - 1]) and (y.get()[:N - 1] == np.arange(1, N)).all()
    e = _raised(launch)
    assert (e.kind, e.kernel, e.space, e.array, e.element, e.length) == (
        "out of bounds", "shift_left", "global", "x", N, N)
    assert (e.thread, e.block, e.line, e.size, e.is_write) == (
        (N - 1, 0, 0), (0, 0, 0), _line_of("y[i] = x[i + 1]"), 4, False)
    assert e.allocation == (x.gpudata._block.address, 4 * N) and e.offset == 4 * N
    assert e.address == x.gpudata._block.address + 4 * N


def test_a_half_arrays_element_is_counted_in_halves():
    halves = SourceModule(r"""
#include <cuda_fp16.h>
extern "C" __global__ void widen(const __half *x, float *y, int n) {
    int i = threadIdx.x;
    if (i < n) y[i] = __half2float(x[i + 1]);
}
""", no_extern_c=True)
    x = gpuarray.to_gpu(np.arange(N, dtype=np.float16))
    e = _raised(lambda: halves.get_function("widen")(x, gpuarray.zeros(N, np.float32),
                                                     np.int32(N), block=(16, 1, 1), grid=(1, 1)))
    assert (e.array, e.element, e.length, e.size) == ("x", N, N, 2)
    assert e.relative == f"x[{N}], 1 element past the end of its {N}"


def test_a_read_before_the_start_is_the_element_before_it(mod):
    x, y = _x(), gpuarray.zeros(N, np.float32)
    e = _raised(lambda: mod.get_function("shift_right")(x, y, np.int32(N), block=(16, 1, 1),
                                                        grid=(1, 1)))
    assert (e.array, e.element, e.offset, e.thread) == ("x", -1, -4, (0, 0, 0))
    assert e.relative == "x[-1], 1 element before its start"


def test_a_write_past_the_end_is_stopped_before_it_lands(mod):
    y = gpuarray.zeros(N, np.float32)
    e = _raised(lambda: mod.get_function("fill_unguarded")(y, np.float32(7), block=(8, 1, 1),
                                                            grid=(2, 1)))
    assert (e.array, e.element, e.length, e.is_write, e.thread, e.block) == (
        "y", N, N, True, (7, 0, 0), (1, 0, 0))
    assert e.line == _line_of("y[i] = v;")
    assert memory.damaged_slacks(y.gpudata._block) == []  # the slack's canary is intact
    assert (y.get() == 7).all()


def test_a_wide_load_that_runs_past_the_end_is_caught_from_its_first_element(mod):
    x, y = _x(), gpuarray.zeros(8, np.float32)
    e = _raised(lambda: mod.get_function("pairs")(x, y, np.int32(N + 1), block=(8, 1, 1),
                                                  grid=(1, 1)))
    assert (e.array, e.element, e.size, e.thread) == ("x", N - 1, 8, (7, 0, 0))
    assert e.relative == "x[14], which runs past the end of its 15 elements"


def test_an_atomic_past_the_end_is_a_write(mod):
    values = gpuarray.to_gpu(np.array([0, 1, 2, 4], np.int32))
    bins = gpuarray.zeros(4, np.int32)
    e = _raised(lambda: mod.get_function("count_into")(values, bins, np.int32(4),
                                                       block=(4, 1, 1), grid=(1, 1)))
    assert (e.array, e.element, e.length, e.is_write, e.thread) == ("bins", 4, 4, True, (3, 0, 0))


def test_a_shared_array_overrun_through_a_pointer_is_named(mod):
    out = gpuarray.zeros(16, np.float32)
    e = _raised(lambda: mod.get_function("neighbour_through_pointer")(out, block=(16, 1, 1),
                                                                      grid=(2, 1)))
    assert (e.space, e.array, e.element, e.length, e.offset, e.allocation) == (
        "shared", "tile", 16, 16, 64, None)
    assert (e.thread, e.block, e.line, e.is_write) == (
        (15, 0, 0), (0, 0, 0), _line_of("out[i] = p[i + 1]"), False)
    assert e.relative == "tile[16], 1 element past the end of its 16"


def test_a_dynamic_shared_overrun_counts_the_bytes_the_launch_gave(mod):
    out = gpuarray.zeros(16, np.float32)
    e = _raised(lambda: mod.get_function("dynamic_neighbour")(out, block=(16, 1, 1), grid=(1, 1),
                                                              shared=64), initcheck=True)
    assert (e.space, e.array, e.element, e.length, e.thread) == (
        "shared", "buf", 16, 16, (15, 0, 0))
    e = _raised(lambda: mod.get_function("dynamic_neighbour")(out, block=(16, 1, 1), grid=(1, 1)))
    assert (e.array, e.element, e.length, e.is_write, e.thread) == ("buf", 0, 0, True, (0, 0, 0))


def test_another_kernels_shared_array_is_no_place_for_this_ones_overrun(mod):
    out = gpuarray.zeros(4, np.float32)
    with settings.changed(racecheck=True):
        mod.get_function("second_of_two")(out, block=(4, 1, 1), grid=(1, 1))
    assert (out.get() == 2).all()
    e = _raised(lambda: mod.get_function("first_of_two")(out, block=(4, 1, 1), grid=(1, 1)))
    assert (e.array, e.element, e.length, e.thread) == ("mine", -1, 4, (0, 0, 0))


def test_a_trace_checks_bounds_too(mod):
    x, y = _x(), gpuarray.zeros(N, np.float32)
    with trace(accesses=0) as t, pytest.raises(OutOfBoundsError) as err:
        mod.get_function("shift_left")(x, y, np.int32(N), block=(16, 1, 1), grid=(1, 1))
    assert (err.value.array, err.value.element) == ("x", N) and not t.launches


def test_pointers_to_the_ends_locals_device_constant_and_heap_memory_are_not_flagged(mod):
    table = np.arange(1, 9, dtype=np.float32)
    address, _ = mod.get_global("table")
    drv.memcpy_htod(address, table)
    x, y = _x(), gpuarray.zeros(N, np.float32)
    with settings.changed(racecheck=True):
        mod.get_function("near_the_ends")(x, y, np.int32(N), block=(16, 1, 1), grid=(1, 1))
    t = np.arange(16)
    tile = (table[t % 8] * np.array([1, 2, 3, 4], np.float32)[t % 4])[::-1]
    assert (y.get() == np.arange(N)[::-1] + tile[1]).all()  # heap[3] = local[t + 1] = tile[1]
