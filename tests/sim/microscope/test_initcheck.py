"""The init check (settings.initcheck, CUDA_SIM_INITCHECK=1): a read of device memory that
nothing wrote since it was allocated is reported, as compute-sanitizer's initcheck does on a GPU;
so is a read of shared memory that no thread of the block wrote in this launch, which
compute-sanitizer does not check.

The simulator's fresh memory is zero, so such a kernel gives the right answer by luck here; on a
GPU it reads whatever an earlier array left. The check keeps a shadow of the bytes written (by
copies, memsets, gpuarray's own operations and checked launches) for the allocations made while
it is on, and one of each block's shared memory. These run the simulator whatever backend is
chosen.
"""

import re

import numpy as np
import pytest

from kernel_sources import renamed, solution, variant

from helpers.sim import driver as drv, gpuarray
from helpers.sim.errors import UninitialisedReadError
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
        with pytest.raises(UninitialisedReadError) as err:
            _add_into(mod, x, acc)
    e = err.value
    assert (e.space, e.array, e.element, e.offset, e.count) == ("global", "acc", 500, 2000, 500)
    assert e.allocation == (int(acc.gpudata), 4000)


def test_an_atomic_on_a_counter_nobody_zeroed_is_a_read_too(mod, x):
    with settings.changed(initcheck=True):
        count = drv.mem_alloc(4)
        with pytest.raises(UninitialisedReadError) as err:
            mod.get_function("count_positive")(x, count, np.int32(N), **LAUNCH)
    assert (err.value.array, err.value.element, err.value.offset) == ("count", 0, 0)
    assert err.value.allocation == (int(count), 4)


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


# ---- shared memory: what no thread of the block wrote in this launch ----------------------------
# compute-sanitizer has no such check; the simulator's shared memory starts as NaN (sim_grid.h)
DOT = solution("dot_product.cu")
FIRST_WARP = "        v = warp_sum(lane < warps ? warp_sums[lane] : 0.0f);\n"
ALL_32 = "        v = warp_sum(warp_sums[lane]);\n"  # only blockDim.x / 32 were written
SHARED_KERNELS = r"""
__global__ void neighbour_sums(const float *x, float *y, int n) {
    extern __shared__ float buf[];                // blockDim.x + 1 floats: no halo loaded
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[t] = x[i];
    __syncthreads();
    y[i] = buf[t] + buf[t + 1];
}
__global__ void reversed(const float *x, float *y) {
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = x[i];
    __syncthreads();                              // another thread's store, then the read
    y[i] = s[blockDim.x - 1 - t];
}
__global__ void first_block_fills_all(const float *x, float *y) {
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (blockIdx.x == 0 || t < 128)
        s[t] = x[i];
    __syncthreads();
    y[i] = s[t];
}
__global__ void histogram(const unsigned char *v, unsigned int *out, int n) {
    __shared__ unsigned int bins[16];             // never zeroed
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[v[i] % 16], 1u);
    __syncthreads();
    if (threadIdx.x < 16)
        atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}
struct Point { float x; Point() = default; };   // a class type: its static gets a guard (_ZGV)
__global__ void reversed_points(const float *x, float *y) {
    __shared__ Point s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t].x = x[i];
    __syncthreads();
    y[i] = s[blockDim.x - 1 - t].x;
}
__global__ void block_sums_without_barrier(const float *x, float *sums) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * blockDim.x + t];
    if (t == 0) {                                 // reads s[1..] before threads 1.. stored them
        float sum = 0.0f;
        for (int k = 0; k < blockDim.x; k++)
            sum += s[k];
        sums[blockIdx.x] = sum;
    }
}
"""
BLOCK = dict(block=(256, 1, 1), grid=(2, 1))


def _line_of(text, code):
    return f"kernel.cu:{text[:text.index(code)].count(chr(10)) + 1}"


@pytest.fixture(scope="module")
def shared_mod():
    text = "\n".join([renamed(DOT, "dot", "dot_right"),
                      re.sub(r"\bwarp_sum\b", "warp_sum_all", renamed(variant(DOT, (FIRST_WARP, ALL_32)),
                                                                      "dot", "dot_all_32")),
                      SHARED_KERNELS])
    return SourceModule(text), text


def _dot(mod, name):
    x, y = (gpuarray.to_gpu(np.full(1000, 0.5, np.float32)) for _ in range(2))
    result = gpuarray.zeros(1, np.float32)
    mod.get_function(name)(x, y, result, np.int32(1000), **BLOCK)
    return result.get()[0]


def test_the_dot_product_adding_all_32_warp_sums_is_reported(shared_mod):
    mod, text = shared_mod
    with settings.changed(initcheck=True), pytest.raises(drv.LaunchError) as err:
        _dot(mod, "dot_all_32")
    e = err.value
    assert isinstance(e, UninitialisedReadError)
    assert (e.kind, e.space, e.kernel, e.array, e.element, e.line, e.thread, e.block) == (
        "uninitialised read", "shared", "dot_all_32", "warp_sums", 8, _line_of(text, "_all(warp_sums[lane])"),
        (8, 0, 0), (0, 0, 0))
    assert (e.length, e.written, e.size, e.count) == (32, tuple(range(8)), 4, 2 * 24)
    assert str(e).startswith("init check: kernel 'dot_all_32' reads warp_sums[8] (shared "
                             "memory), which no thread of its block has written")
    assert "had stored only warp_sums[0] to warp_sums[7] of its 32 elements" in str(e)
    assert "initcheck watches global memory only" in str(e)  # compute-sanitizer cannot say it


def test_the_right_dot_product_is_not(shared_mod):
    with settings.changed(initcheck=True):
        assert _dot(shared_mod[0], "dot_right") == 250.0


def test_dynamic_shared_memory_is_checked_too(shared_mod):
    mod, text = shared_mod
    x, y = gpuarray.to_gpu(np.ones(512, np.float32)), gpuarray.empty(512, np.float32)
    with settings.changed(initcheck=True), pytest.raises(UninitialisedReadError) as err:
        mod.get_function("neighbour_sums")(x, y, np.int32(512), shared=257 * 4, **BLOCK)
    e = err.value
    assert (e.array, e.element, e.length, e.thread, e.block, e.line) == (
        "buf", 256, 257, (255, 0, 0), (0, 0, 0), _line_of(text, "y[i] = buf[t] + buf[t + 1]"))
    assert e.written == tuple(range(256)) and e.count == 2


def test_an_element_another_thread_stored_before_a_barrier_is_written(shared_mod):
    x = np.arange(512, dtype=np.float32)
    y = gpuarray.empty(512, np.float32)
    with settings.changed(initcheck=True):
        shared_mod[0].get_function("reversed")(gpuarray.to_gpu(x), y, **BLOCK)
    assert (y.get() == x.reshape(2, 256)[:, ::-1].ravel()).all()


def test_the_guard_gcc_gives_a_shared_array_of_class_type_is_not_the_learners(shared_mod):
    """g++ guards the first use of a static of class type with a variable of its own (for
    __shared__ half tile[...] too), which each thread reads first: not an uninitialised read."""
    x = np.arange(512, dtype=np.float32)
    y = gpuarray.empty(512, np.float32)
    with settings.changed(initcheck=True):
        shared_mod[0].get_function("reversed_points")(gpuarray.to_gpu(x), y, **BLOCK)
    assert (y.get() == x.reshape(2, 256)[:, ::-1].ravel()).all()


def test_a_block_does_not_count_the_writes_of_the_block_before(shared_mod):
    mod, text = shared_mod
    x, y = gpuarray.to_gpu(np.ones(512, np.float32)), gpuarray.empty(512, np.float32)
    with settings.changed(initcheck=True), pytest.raises(UninitialisedReadError) as err:
        mod.get_function("first_block_fills_all")(x, y, **BLOCK)
    assert (err.value.array, err.value.element, err.value.block, err.value.thread) == (
        "s", 128, (1, 0, 0), (128, 0, 0))
    assert err.value.written == tuple(range(128)) and err.value.count == 128


def test_atomics_on_shared_bins_nobody_zeroed_are_reads(shared_mod):
    v = gpuarray.to_gpu(np.arange(512, dtype=np.uint8))
    with settings.changed(initcheck=True), pytest.raises(UninitialisedReadError) as err:
        shared_mod[0].get_function("histogram")(v, gpuarray.zeros(16, np.uint32), np.int32(512),
                                                **BLOCK)
    assert (err.value.array, err.value.element, err.value.thread, err.value.written,
            err.value.length) == ("bins", 0, (0, 0, 0), (), 16)


def test_a_read_before_another_threads_store_is_a_race_not_an_uninitialised_read(shared_mod):
    """Thread 0 reads s[1] before thread 1 stores it (no barrier between): the store could have
    come first on a GPU, so it is the race check's to report, not the init check's."""
    x, sums = gpuarray.to_gpu(np.ones(512, np.float32)), gpuarray.empty(2, np.float32)
    kernel = shared_mod[0].get_function("block_sums_without_barrier")
    with settings.changed(initcheck=True):
        kernel(x, sums, **BLOCK)
    with settings.changed(initcheck=True, racecheck=True), pytest.raises(drv.LaunchError) as err:
        kernel(x, sums, **BLOCK)
    assert err.value.kind == "race"


WMMA = solution("wmma_partial_k.cu")
STAGE_A = "As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f);"
STAGE_B = "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f);"


def test_halves_staged_from_a_call_in_a_module_of_many_kernels_are_written():
    """Tiles staged with __float2half(0.0f), in a module of five wmma kernels, where g++ inlines
    no longer every call: a call whose __half went straight into the tile was a store GCC's
    instrumentation leaves out, and the init check took the tile for never staged."""
    from kernel_sources import compile_variants

    zeros = variant(WMMA, (STAGE_A, "As[w][r][col] = __float2half(0.0f);"),
                    (STAGE_B, "Bs[w][r][col] = __float2half(0.0f);"))
    others = {f"step_{k}": variant(WMMA, ("k0 += 16)", f"k0 += 16 + {k} * 0)")) for k in range(4)}
    kernels = compile_variants("wmma_partial_k", {"zeros": zeros, **others},
                               lambda text: SourceModule(text, no_extern_c=True))
    m, k, n = 32, 40, 48
    a, b = (gpuarray.to_gpu(np.ones(shape, np.float16)) for shape in ((m, k), (k, n)))
    c = gpuarray.empty((m, n), np.float32)
    with settings.changed(initcheck=True):
        kernels["zeros"](a, b, c, np.int32(m), np.int32(k), np.int32(n), block=(128, 1, 1),
                         grid=(2, 1))
    assert not c.get().any()
