"""PyCUDA's Python API, as PyCUDA's own tutorial, examples and tests use it: the same results on
a GPU (PyCUDA) and on the CPU simulator.

This file runs on whichever backend helpers.backend chose. The first tests are regression
tests, one for each wrong result the simulator once gave without an error; the rest use the
calls PyCUDA's material uses most, once each.
"""

import contextlib
import copy
import tracemalloc

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray

if BACKEND == "pycuda":
    from pycuda import cumath, elementwise, reduction, scan, tools
else:
    from helpers.sim import cumath, elementwise, reduction, scan, tools


# ---- launch sizes PyCUDA refuses (each seen on an H200 with PyCUDA 2026.1) ---------------------------
FILL = "__global__ void fill(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;" \
       " if (i < n) x[i] = 1.0f; }"


@pytest.mark.parametrize("launch, error", [
    (dict(block=(256.0, 1, 1)), TypeError),          # a block size computed with /
    (dict(block=(np.int64(256), 1, 1)), TypeError),  # PyCUDA's block takes Python ints only
    (dict(block=(256, 1, 1), grid=(1.0, 1)), TypeError),
    (dict(block=(256, 1, 1), shared=16.0), TypeError),
    (dict(block=(256, 1, 1), shared=-1), OverflowError),   # the simulator's worker once died
])
def test_launch_sizes_pycuda_refuses_are_refused(launch, error):
    fill, x = SourceModule(FILL).get_function("fill"), gpuarray.zeros(256, np.float32)
    with pytest.raises(error):
        fill(x, np.int32(256), **launch)
    fill(x, np.int32(256), block=(256, 1, 1), grid=(1, 1), shared=0)
    assert x.get().tolist() == [1.0] * 256   # and the context still works


def test_a_kernels_malloc_draws_on_an_8_mib_heap_and_returns_null_past_it():
    """cudaLimitMallocHeapSize's default (the H200: 8388608; 4 MiB granted, 16 MiB and 20 GiB
    NULL). The simulator once granted 20 GiB, and the out-of-memory killer followed."""
    mod = SourceModule("__global__ void try_malloc(unsigned long long bytes, int *ok) {\n"
                       "    void *p = malloc(bytes);\n    ok[0] = p != 0;\n    if (p) free(p);\n}\n")
    ok = gpuarray.zeros(1, np.int32)
    assert drv.Context.get_limit(drv.limit.MALLOC_HEAP_SIZE) == 8 << 20
    granted = []
    for nbytes in (4 << 20, 16 << 20, 20 << 30, 4 << 20):
        mod.get_function("try_malloc")(np.uint64(nbytes), ok, block=(1, 1, 1))
        granted.append(int(ok.get()[0]))
    assert granted == [1, 0, 0, 1]


def test_dynamic_shared_memory_above_48_kib_needs_the_kernels_opt_in():
    """A launch's shared= above 48 KiB (less the kernel's __shared__ arrays, rounded up to 16
    bytes) is refused until the kernel asks for it with set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES,
    n); n is refused past the device's opt-in limit. Notebook 06 reverses 64 KiB chunks this way."""
    mod = SourceModule("""
    __global__ void mirror(float *x, int n) {
        extern __shared__ float s[];
        __shared__ float first;
        for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = x[i];
        if (threadIdx.x == 0) first = s[0];
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = s[n - 1 - i] + first;
    }""")
    mirror = mod.get_function("mirror")
    attr, dev = drv.function_attribute, drv.Context.get_device()
    n = 16384                                                        # 64 KiB of floats
    x = gpuarray.to_gpu(np.arange(n, dtype=np.float32))
    # 48 KiB less the 4 bytes of `first` rounded up to 16, as the H200 answered (49,136)
    assert mirror.get_attribute(attr.MAX_DYNAMIC_SHARED_SIZE_BYTES) == 48 * 1024 - 16
    with pytest.raises(drv.LogicError):
        mirror(x, np.int32(n), block=(256, 1, 1), shared=4 * n)
    optin = dev.get_attribute(drv.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    with pytest.raises(drv.LogicError):
        mirror.set_attribute(attr.MAX_DYNAMIC_SHARED_SIZE_BYTES, optin)   # + 4 bytes of `first`
    mirror.set_attribute(attr.MAX_DYNAMIC_SHARED_SIZE_BYTES, 4 * n)
    assert mod.get_function("mirror").max_dynamic_shared_size_bytes == 4 * n   # the kernel's
    mirror(x, np.int32(n), block=(256, 1, 1), shared=4 * n)
    assert x.get().tolist() == (np.arange(n)[::-1]).tolist()
    with pytest.raises(drv.LogicError):
        mirror(x, np.int32(n), block=(256, 1, 1), shared=4 * n + 4)


def test_a_2_gib_device_array_builds_and_runs():
    """nvcc builds it and the H200 runs it; the simulator's link once failed ("relocation
    truncated to fit", about the runtime's own variables). Its 2 GiB count against the device's
    memory on the simulator, which gets 4 GiB for it here."""
    source = ("__device__ float big[1 << 29];\n"
              "__global__ void ends(float *out) {\n"
              "    big[0] = 1.0f; big[(1 << 29) - 1] = 2.0f;\n"
              "    out[0] = big[0] + big[(1 << 29) - 1];\n}\n")
    enough = contextlib.nullcontext()
    if BACKEND == "simulator":
        from helpers.sim.settings import settings
        enough = settings.changed(device_memory=drv.mem_get_info()[1] - drv.mem_get_info()[0]
                                  + (4 << 30))
    with enough:
        out = gpuarray.zeros(1, np.float32)
        SourceModule(source).get_function("ends")(out, block=(1, 1, 1))
        assert out.get()[0] == 3.0


# ---- wrong results the simulator once gave without an error -------------------------------------
def test_get_and_arithmetic_wait_for_a_kernel_queued_on_a_stream():
    """GPUArray's calls run in the legacy default stream, which waits for every blocking stream
    (the simulator once returned the zeros of before the launch; the H200 the kernel's ones)."""
    fill = SourceModule(FILL).get_function("fill")
    x, y, stream = gpuarray.zeros(4096, np.float32), gpuarray.zeros(4096, np.float32), drv.Stream()
    fill(x, np.int32(4096), block=(256, 1, 1), grid=(16, 1), stream=stream)
    fill(y, np.int32(4096), block=(256, 1, 1), grid=(16, 1), stream=stream)
    assert (x + 1).get().tolist() == [2.0] * 4096
    assert y.get().tolist() == [1.0] * 4096
    stream.synchronize()


def test_numpy_interop_and_probing_attributes():
    a = gpuarray.to_gpu(np.arange(3, dtype=np.float32))
    doubled = np.float32(2) * a
    assert isinstance(doubled, gpuarray.GPUArray) and np.array_equal(doubled.get(), [0, 2, 4])
    assert not hasattr(a, "no_such_attribute")
    assert np.array_equal(copy.copy(a).get(), a.get())
    assert np.array_equal(copy.deepcopy(a).get(), a.get())
    as_array = np.asarray(a)   # PyCUDA has no __array__: NumPy makes an array of objects
    assert as_array.dtype == object and as_array.shape == (3,)


def test_running_out_of_memory_raises_drv_memory_error():
    free, total = drv.mem_get_info()
    assert 0 < free <= total == drv.Context.get_device().total_memory()
    with pytest.raises(drv.MemoryError):
        drv.mem_alloc(total + (1 << 30))


def test_mem_get_info_counts_allocations():
    # On a GPU that other processes share (the suite's other workers), their frees between the
    # two readings can hide part of ours: the largest of a few tries counts.
    taken = []
    for _ in range(5):
        before, _ = drv.mem_get_info()
        block = drv.mem_alloc(256 << 20)
        during, _ = drv.mem_get_info()
        block.free()
        taken.append(before - during)
        if taken[-1] >= 256 << 20:
            break
    assert max(taken) >= 256 << 20, taken


def test_fill_builds_no_host_array_as_large_as_the_device_array():
    """fill sets a 64 MiB array with less than 1 MiB of host memory (a NumPy array of its size
    copied over would take 64). PyCUDA compiles its fill kernel on the first fill of a dtype
    (elementwise.get_fill_kernel, memoized for the context), which takes about 2 MiB of host
    memory once: a small fill first, so that the large one is measured alone."""
    gpuarray.empty(16, np.float32).fill(0.0)
    a = gpuarray.empty(16 << 20, np.float32)  # 64 MiB
    tracemalloc.start()
    a.fill(1.5)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20, f"fill used {peak} bytes of host memory"
    assert float(gpuarray.sum(a[:1000]).get()) == 1500


# ---- the calls PyCUDA's tutorial, examples and tests use ------------------------------------------
def test_driver_copies_and_versions():
    z = np.random.default_rng(0).standard_normal(400).astype(np.float32)
    assert np.array_equal(drv.from_device_like(drv.to_device(z), z), z)
    assert np.array_equal(drv.from_device(drv.to_device(z), (20, 20), np.float32),
                          z.reshape(20, 20))
    assert drv.mem_alloc_like(z) is not None
    assert isinstance(drv.get_version(), tuple) and drv.get_driver_version() >= 12000


def test_slicing_views_and_setitem():
    host = np.arange(40, dtype=np.float32).reshape(4, 10)
    a = gpuarray.to_gpu(host)
    assert np.array_equal(a[1:3].get(), host[1:3])
    assert np.array_equal(a[:, ::2].get(), host[:, ::2])
    assert np.array_equal(a.T.get(), host.T)
    assert a[:, np.newaxis].shape == host[:, np.newaxis].shape
    a[1:3] = 0
    a[0] = gpuarray.to_gpu(np.full(10, 7, np.float32))
    host[1:3], host[0] = 0, 7
    assert np.array_equal(a.get(), host)


def test_elementwise_reduction_and_scan_kernels():
    x = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
    y = gpuarray.empty_like(x)
    elementwise.ElementwiseKernel("float a, float *x, float *y", "y[i] = a*x[i] + 1",
                                  "axpo")(np.float32(3), x, y)
    assert np.array_equal(y.get(), 3 * np.arange(1000, dtype=np.float32) + 1)
    dot = reduction.ReductionKernel(np.float32, neutral="0", reduce_expr="a+b",
                                    map_expr="x[i]*y[i]", arguments="float *x, float *y")
    squares = float(np.sum(np.arange(1000.0) ** 2))
    assert float(dot(x, x).get()) == pytest.approx(squares, rel=1e-5)  # float32 sums
    ints = gpuarray.to_gpu(np.arange(5000, dtype=np.int32) % 7)
    expected = np.cumsum(ints.get())
    scan.InclusiveScanKernel(np.int32, "a+b")(ints)
    assert np.array_equal(ints.get(), expected)


def test_complex_header_and_cumath():
    mod = SourceModule("""
    #include <pycuda-complex.hpp>
    __global__ void square(pycuda::complex<float> *z) { z[threadIdx.x] *= z[threadIdx.x]; }
    """)
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    z_gpu = gpuarray.to_gpu(z)
    mod.get_function("square")(z_gpu, block=(2, 1, 1))
    assert np.allclose(z_gpu.get(), z * z)
    x = gpuarray.to_gpu(np.linspace(0.1, 3, 50).astype(np.float32))
    assert np.allclose(cumath.sin(x).get(), np.sin(x.get()), rtol=1e-6)
    assert np.allclose(cumath.log10(z_gpu).get(), np.log10(z * z), rtol=1e-5)


def test_device_memory_pool():
    pool = tools.DeviceMemoryPool()
    a = gpuarray.to_gpu(np.arange(100, dtype=np.float32), allocator=pool.allocate)
    assert pool.active_blocks == 1 and a.get()[99] == 99
    del a
    assert pool.held_blocks == 1 and pool.active_blocks == 0
    b = gpuarray.empty(100, np.float32, allocator=pool.allocate)  # served from the pool
    assert pool.held_blocks == 0 and b.size == 100
    pool.free_held()
    assert pool.held_blocks == 0
