"""PyCUDA's Python API, as PyCUDA's own tutorial, examples and tests use it: the same results on
a GPU (PyCUDA) and on the CPU simulator.

This file runs on whichever backend helpers.backend chose. The first tests are regression
tests, one for each wrong result the simulator once gave without an error; the rest use the
calls PyCUDA's material uses most, once each.
"""

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
    """A launch's shared= above 48 KiB (less the kernel's __shared__ arrays) is refused until the
    kernel asks for it with set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, n); n is refused past the
    device's opt-in limit. Notebook 06 reverses 64 KiB chunks this way."""
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
    assert mirror.get_attribute(attr.MAX_DYNAMIC_SHARED_SIZE_BYTES) == 48 * 1024 - 4
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


def test_a_page_locked_array_s_base_is_its_allocation_which_can_be_freed():
    for make in (drv.pagelocked_empty, drv.pagelocked_zeros):
        a = make((4, 3), np.float32)
        assert type(a.base).__name__ == "PagelockedHostAllocation"
        a.base.free()   # PyCUDA's HostAllocation.free(); the simulator's once had no base


def test_in_place_operators_write_into_the_arrays_own_memory():
    a = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    gpudata, view = a.gpudata, a.reshape(2, 4)
    expected = np.arange(8, dtype=np.float32)
    a += 1
    expected += 1
    assert a.gpudata is gpudata
    assert np.array_equal(view.get(), expected.reshape(2, 4))
    a *= 2
    a -= 1
    a /= 2
    a **= 2
    a += gpuarray.to_gpu(np.ones(8, np.float32))
    expected = ((expected * 2 - 1) / 2) ** 2 + 1
    assert a.gpudata is gpudata
    assert np.array_equal(view.get(), expected.reshape(2, 4))


def test_arithmetic_follows_numpys_dtype_promotion():
    ints = gpuarray.to_gpu(np.arange(4, dtype=np.int32))
    for result in (ints * 2.5, 2.5 * ints, ints / 2.5):
        assert result.dtype == np.float64
    assert np.array_equal((ints * 2.5).get(), [0, 2.5, 5, 7.5])
    assert np.array_equal((ints / 2.5).get(), np.arange(4) * (1 / 2.5))
    floats = gpuarray.to_gpu(np.arange(4, dtype=np.float32))
    assert (floats * 2.5).dtype == np.float32           # a Python float does not widen float32
    assert (floats * np.float64(2.5)).dtype == np.float64  # a NumPy float64 does
    assert (ints + floats).dtype == np.float64
    assert (ints * 2).dtype == np.int32


def test_comparisons_are_elementwise():
    a = gpuarray.to_gpu(np.array([5, 10, 1], np.float32))
    b = gpuarray.to_gpu(np.array([2, 10, 2], np.float32))
    for got, want in [(a == b, [0, 1, 0]), (a != b, [1, 0, 1]), (a < b, [0, 0, 1]),
                      (a <= b, [0, 1, 1]), (a > b, [1, 0, 0]), (a >= b, [1, 1, 0])]:
        assert isinstance(got, gpuarray.GPUArray)
        assert got.dtype == np.float32 and np.array_equal(got.get(), want)
    x = gpuarray.to_gpu(np.array([1.0, 0.25, 0.1, -0.1]))
    assert np.array_equal((x > 0.25).get(), [1, 0, 0, 0])
    assert np.array_equal((x == 1).get(), [1, 0, 0, 0])


def test_reductions_are_0d_and_to_gpu_keeps_0d():
    a = gpuarray.to_gpu(np.arange(1, 5, dtype=np.float32))
    for result, want in [(gpuarray.sum(a), 10), (gpuarray.dot(a, a), 30),
                         (gpuarray.max(a), 4), (gpuarray.min(a), 1)]:
        host = result.get()
        assert result.shape == () and host.shape == () and float(host) == want
    assert gpuarray.to_gpu(np.array(3.0)).shape == ()
    assert gpuarray.to_gpu(np.array(3.0)).get() == 3.0


def test_to_gpu_keeps_the_memory_order():
    host = np.arange(12, dtype=np.float64).reshape(3, 4).T
    a = gpuarray.to_gpu(host)
    assert a.strides == host.strides and a.flags.f_contiguous and not a.flags.c_contiguous
    assert np.array_equal(a.get(), host)
    assert a.copy().strides == host.strides


def test_numpy_interop_and_probing_attributes():
    a = gpuarray.to_gpu(np.arange(3, dtype=np.float32))
    doubled = np.float32(2) * a
    assert isinstance(doubled, gpuarray.GPUArray) and np.array_equal(doubled.get(), [0, 2, 4])
    assert not hasattr(a, "no_such_attribute")
    assert np.array_equal(copy.copy(a).get(), a.get())
    assert np.array_equal(copy.deepcopy(a).get(), a.get())
    as_array = np.asarray(a)   # PyCUDA has no __array__: NumPy makes an array of objects
    assert as_array.dtype == object and as_array.shape == (3,)


def test_prepared_call_takes_an_int_address_and_sourcemodule_calls_str():
    class Source:  # what a code generator such as cgen hands over
        def __str__(self):
            return "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"

    func = SourceModule(Source()).get_function("twice")
    a = np.arange(16, dtype=np.float32)
    a_gpu = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(a_gpu, a)
    func.prepare("P")
    func.prepared_call((1, 1), (15, 1, 1), int(a_gpu) + a.itemsize)
    doubled = np.empty_like(a)
    drv.memcpy_dtoh(doubled, a_gpu)
    assert np.array_equal(doubled, np.r_[0, 2 * a[1:]])


def test_running_out_of_memory_raises_drv_memory_error():
    free, total = drv.mem_get_info()
    assert 0 < free <= total == drv.Context.get_device().total_memory()
    with pytest.raises(drv.MemoryError):
        drv.mem_alloc(total + (1 << 30))


def test_mem_get_info_counts_allocations():
    before, _ = drv.mem_get_info()
    block = drv.mem_alloc(256 << 20)
    during, _ = drv.mem_get_info()
    block.free()
    assert before - during >= 256 << 20


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


def test_the_device_has_a_compute_capability_and_its_limits():
    dev = drv.Context.get_device()
    major, minor = dev.compute_capability()
    assert (major, minor) >= (7, 0)
    attrs = dev.get_attributes()
    assert attrs[drv.device_attribute.COMPUTE_CAPABILITY_MAJOR] == major
    assert attrs[drv.device_attribute.MAX_THREADS_PER_BLOCK] == 1024
    assert dev.get_attribute(drv.device_attribute.WARP_SIZE) == 32
    assert dev.max_threads_per_block == 1024


@pytest.mark.skipif(BACKEND != "pycuda", reason="compares the simulator's table with a real GPU")
def test_the_simulators_attribute_table_matches_this_gpu():
    from helpers.sim.machine import device as simulated
    dev = drv.Context.get_device()
    real = {str(name).rsplit(".", 1)[-1]: value for name, value in dev.get_attributes().items()}
    table = simulated.attributes(dev.compute_capability())
    board = {"MULTIPROCESSOR_COUNT", "ASYNC_ENGINE_COUNT", "CONCURRENT_KERNELS", "GPU_OVERLAP",
             "CLOCK_RATE", "MEMORY_CLOCK_RATE", "GLOBAL_MEMORY_BUS_WIDTH", "L2_CACHE_SIZE",
             "PCI_BUS_ID", "PCI_DEVICE_ID", "PCI_DOMAIN_ID", "ECC_ENABLED", "TCC_DRIVER",
             "KERNEL_EXEC_TIMEOUT", "INTEGRATED", "COMPUTE_MODE"}
    print({k: (table[k], real.get(k)) for k in sorted(board & set(table))})
    differ = {k: (table[k], real[k]) for k in set(table) - board if k in real and
              real[k] != table[k]}
    assert not differ, f"simulated vs this GPU: {differ}"
    assert len(set(table) & set(real)) > 20


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


def test_vector_types_and_dtype_names():
    mod = SourceModule("""
    __global__ void set_them(float3 *dest, float3 x) { dest[threadIdx.x] = x; }
    """)
    value = gpuarray.vec.make_float3(1, 2, 3)
    dest = np.empty(64, gpuarray.vec.float3)
    mod.get_function("set_them")(drv.Out(dest), value, block=(64, 1, 1))
    assert (dest == value).all()
    assert tools.dtype_to_ctype(np.float32) == "float"
    assert tools.dtype_to_ctype(np.complex64) == "pycuda::complex<float>"


def test_array_functions():
    a = gpuarray.to_gpu(np.array([1.0, -2.0, 3.0]))
    b = gpuarray.to_gpu(np.array([0.5, 5.0, -1.0]))
    assert np.array_equal(gpuarray.maximum(a, b).get(), [1, 5, 3])
    assert np.array_equal(gpuarray.minimum(a, 0).get(), [0, -2, 0])
    assert np.array_equal(gpuarray.if_positive(a, a, b).get(), [1, 5, 3])
    assert np.array_equal(gpuarray.where(a > 0, a, b).get(), [1, 5, 3])
    assert np.array_equal(abs(a).get(), [1, 2, 3])
    assert np.array_equal((a ** 2).get(), [1, 4, 9])
    assert a.astype(np.float32).dtype == np.float32
    assert bool(a.any().get()) and not bool((a > 5).all().get())
    assert np.array_equal(gpuarray.ones_like(a).get(), [1, 1, 1])
    assert gpuarray.ones(3).dtype == np.float64
    assert gpuarray.stack((a, b)).shape == (2, 3)


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
