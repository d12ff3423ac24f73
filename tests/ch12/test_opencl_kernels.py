"""The OpenCL kernels of notebook 12 against NumPy and against their CUDA versions (which run on
helpers.backend: PyCUDA on a GPU, the simulator without one), on awkward sizes. The OpenCL side
runs on every platform found: Oclgrind everywhere, and NVIDIA's OpenCL where it is."""

import numpy as np
import pytest
from wurlitzer import pipes

from helpers.ch12 import opencl

cl = opencl.cl
PLATFORMS = [p for p, devices in opencl.platforms() if devices]
SOURCES = opencl.list_cl_files()


@pytest.fixture(scope="module", params=PLATFORMS, ids=[p.name for p in PLATFORMS])
def queue(request):
    return cl.CommandQueue(opencl.context(request.param))


def to_device(queue, array):
    return cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                     hostbuf=np.ascontiguousarray(array))


def get(queue, buffer, like):
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, buffer)
    return out


def rounded_up(n, block):
    return -(-n // block) * block


@pytest.mark.parametrize("name", SOURCES)
def test_every_cl_file_builds(queue, name):
    opencl.build(queue.context, name)


def test_hello_prints_what_the_cuda_kernel_prints(queue):
    from helpers.backend import compile_cu, drv

    kernel = cl.Kernel(opencl.build(queue.context, "hello.cl"), "hello")
    with pipes() as (out, _):
        kernel(queue, (6,), (3,))
        queue.finish()
    with pipes() as (cuda_out, _):
        compile_cu("hello.cu").get_function("hello")(block=(3, 1, 1), grid=(2, 1))
        drv.Context.synchronize()
    lines = sorted(out.read().splitlines())
    assert lines == sorted(cuda_out.read().splitlines())
    assert lines[0] == "Hello from block 0, thread 0" and len(lines) == 6


@pytest.mark.parametrize("n", [1, 1000, 4097])
def test_vector_add_matches_numpy_and_cuda_bit_for_bit(queue, n):
    from helpers.backend import compile_cu, gpuarray

    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    guard = np.full(n + 64, np.nan, np.float32)
    out = to_device(queue, guard)
    kernel = cl.Kernel(opencl.build(queue.context, "vector_add.cl"), "vector_add")
    kernel(queue, (rounded_up(n, 256),), (256,), to_device(queue, a), to_device(queue, b), out,
           np.int32(n))
    got = get(queue, out, guard)
    assert np.isnan(got[n:]).all(), "vector_add wrote past the end of out"
    cuda_out = gpuarray.empty(n, np.float32)
    compile_cu("vector_add.cu").get_function("vector_add")(
        gpuarray.to_gpu(a), gpuarray.to_gpu(b), cuda_out, np.int32(n), block=(256, 1, 1),
        grid=(rounded_up(n, 256) // 256, 1))
    assert np.array_equal(got[:n], a + b) and np.array_equal(got[:n], cuda_out.get())


@pytest.mark.parametrize("size", [(37, 53), (8, 32), (1, 7)], ids=["37x53", "8x32", "1x7"])
def test_grayscale_matches_numpy_and_cuda_within_one_level(queue, size):
    from helpers.backend import compile_cu, gpuarray

    h, w = size
    rgb = np.random.default_rng(h * w).integers(0, 256, (h, w, 3), dtype=np.uint8)
    rgb[0, 0] = 255
    guard = np.full(h * w + 64, 0xA5, np.uint8)
    out = to_device(queue, guard)
    kernel = cl.Kernel(opencl.build(queue.context, "grayscale.cl"), "rgb_to_gray")
    kernel(queue, (rounded_up(w, 32), rounded_up(h, 8)), (32, 8), to_device(queue, rgb), out,
           np.int32(w), np.int32(h))
    got = get(queue, out, guard)
    assert (got[h * w:] == 0xA5).all(), "rgb_to_gray wrote past the end of gray"
    gray = got[:h * w].reshape(h, w).astype(np.int16)
    want = np.floor(rgb @ np.array([0.299, 0.587, 0.114]) + 0.5)
    cuda_gray = gpuarray.empty((h, w), np.uint8)
    compile_cu("grayscale.cu").get_function("rgb_to_gray")(
        gpuarray.to_gpu(rgb), cuda_gray, np.int32(w), np.int32(h), block=(32, 8, 1),
        grid=(rounded_up(w, 32) // 32, rounded_up(h, 8) // 8))
    assert np.abs(gray - want).max() <= 1 and gray[0, 0] == 255
    assert np.abs(gray - cuda_gray.get()).max() <= 1


def test_reverse_groups_reverses_each_group(queue):
    data = np.arange(512, dtype=np.float32)
    out = to_device(queue, np.zeros_like(data))
    kernel = cl.Kernel(opencl.build(queue.context, "reverse_groups.cl"), "reverse_groups")
    kernel(queue, (512,), (128,), to_device(queue, data), out)
    assert np.array_equal(get(queue, out, data), data.reshape(4, 128)[:, ::-1].ravel())


def test_event_timing_reads_the_devices_clock(queue):
    ctx = queue.context
    timed = opencl.profiling_queue(ctx)
    kernel = cl.Kernel(opencl.build(ctx, "vector_add.cl"), "vector_add")
    a = to_device(timed, np.ones(1024, np.float32))
    timing = opencl.time_events(lambda: kernel(timed, (1024,), (256,), a, a, a, np.int32(1024)),
                                repeat=3, warmup=1, batch=2)
    assert len(timing.times_ms) == 3 and all(t > 0 for t in timing.times_ms)
