"""The course kernels as bench/course_kernels.py runs them, and the ceilings they are held to.

Each maker compiles one kernel of a notebook, with that notebook's launch configuration, fills its
inputs, and returns a ``Case``: how to launch it, what its output is, how to take a part of its
inputs for a slower peer, and which ``bench.reference`` function computes the same thing.
``Ceilings`` measures the device's copy bandwidth and FMA throughput in the same run.

Here: the kernels of notebooks 01 to 06. Notebook 07's sums and histograms are in
``bench.sum_histogram``, notebook 08's matrix multiplies in ``bench.matmul_cases``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bench import BENCH, read_source, reference
from bench.measure import time_batched
from bench.results import Row
from helpers.backend import BACKEND, SourceModule, compile_cu, drv, gpuarray
from helpers.timing import bandwidth_gbs

SIM = BACKEND == "simulator"
VIEW = (-2.2, 1.0, -1.2, 1.2)  # notebook 03's view of the Mandelbrot set
MANDEL_FLOPS = 8    # a loop iteration: 2 squares, 1 add, 1 multiply + 1 FMA (2), 2 adds
TARGET_MS = 0 if SIM else 20    # length of a timed batch (the simulator runs launches at once)


def time_launches(launch, repeat, sync=None):
    """time_batched with this device's batch length."""
    return time_batched(launch, repeat, TARGET_MS, sync)


@dataclass
class Case:
    """One course kernel: how to launch it, what it computes, and how its peers compute it."""
    kernel: str
    op: str                  # the operation; rgb_to_gray and rgb_to_gray_x16 share one
    size: str
    n: int                   # elements (pixels); peers run on a part are scaled by it
    launch: object           # launch() queues the course kernel once
    result: object           # result() -> the course kernel's output (NumPy)
    sample: object           # sample(m) -> (inputs of a part of about m elements, its index)
    xp_op: object            # xp_op(library, *inputs): the operation in NumPy, CuPy or PyTorch
    check: object            # check(got, want) -> bool
    serial: object = None    # serial(SerialLibrary, *inputs) -> output (simulator only)
    numpy_op: object = None  # when NumPy's idiom differs from the GPU libraries'
    count: object = None     # count(inputs) -> elements a run covers (default: its output's size)
    rate: object = None      # rate(ms) -> (value, unit, % of ceiling or None)
    notes: list = field(default_factory=list)
    no_peer: tuple = ()      # peer columns with no version of this operation: "-"


def within_one_level(got, want):
    return got.shape == want.shape and int(np.abs(got.astype(np.int16) - want).max()) <= 1


def mostly_equal(got, want):
    """Mandelbrot: float rounding (FMA contraction) may move a few pixels on the set's edge."""
    return got.shape == want.shape and float(np.mean(got == want)) >= 0.99


def close(rtol, atol):
    return lambda got, want: got.shape == want.shape and np.allclose(got, want, rtol, atol)


def leading(m, n, *arrays):
    m = min(m, n)
    return tuple(a[:m] for a in arrays), np.s_[:m]


def vector_add(size, ceil):
    n = size
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    a_gpu, b_gpu, out_gpu = gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.empty(n, np.float32)
    f = compile_cu("vector_add.cu").get_function("vector_add")
    grid = ((n + 255) // 256, 1)
    return Case("vector_add", "vector_add", f"2^{n.bit_length() - 1} floats", n,
                launch=lambda: f(a_gpu, b_gpu, out_gpu, np.int32(n), block=(256, 1, 1), grid=grid),
                result=out_gpu.get, sample=lambda m: leading(m, n, a, b),
                xp_op=reference.vector_add, check=close(1e-6, 0),
                serial=lambda lib, a, b: lib.vector_add(a, b),
                rate=lambda ms: ceil.bandwidth(12 * n, ms))


def saxpy(size, ceil):
    n = size
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    f = compile_cu("indexing.cu").get_function("saxpy")
    grid = ((n + 255) // 256, 1)

    def launch():
        f(np.int32(n), np.float32(reference.ALPHA), x_gpu, y_gpu, block=(256, 1, 1), grid=grid)

    launch()                                 # y in place: check the first launch on fresh data
    y_first = y_gpu.get()
    return Case("saxpy", "saxpy", f"2^{n.bit_length() - 1} floats", n, launch=launch,
                result=lambda: y_first, sample=lambda m: leading(m, n, x, y),
                xp_op=reference.saxpy, check=close(1e-5, 1e-6),
                serial=lambda lib, x, y: lib.saxpy(x, y),
                rate=lambda ms: ceil.bandwidth(12 * n, ms),
                notes=["saxpy: y = a*x + y in place; checked on its first launch"])


def grayscale(size, ceil, fast):
    w, h = size
    n = w * h
    rgb = np.random.default_rng(2).integers(0, 256, (h, w, 3), dtype=np.uint8)
    rgb_gpu, gray_gpu = gpuarray.to_gpu(rgb), gpuarray.empty((h, w), np.uint8)
    mod = compile_cu("grayscale.cu")
    if fast:   # notebook 04: 16 pixels a thread, 256-thread blocks, one extra thread for a tail
        f, threads = mod.get_function("rgb_to_gray_x16"), n // 16 + 1
        launch = lambda: f(rgb_gpu, gray_gpu, np.int32(n), block=(256, 1, 1),  # noqa: E731
                           grid=((threads + 255) // 256, 1))
    else:      # notebook 04: one thread a pixel, 32 x 8 blocks
        f = mod.get_function("rgb_to_gray")
        launch = lambda: f(rgb_gpu, gray_gpu, np.int32(w), np.int32(h), block=(32, 8, 1),  # noqa: E731
                           grid=((w + 31) // 32, (h + 7) // 8))

    def sample(m):
        rows = max(1, min(h, m // w))
        return (rgb[:rows],), np.s_[:rows]

    return Case("rgb_to_gray_x16" if fast else "rgb_to_gray", "gray", f"{w}x{h} RGB", n,
                launch=launch, result=gray_gpu.get, sample=sample, xp_op=reference.gray,
                check=within_one_level, serial=lambda lib, rgb: lib.gray(rgb),
                rate=lambda ms: ceil.bandwidth(4 * n, ms))


def transpose(size, ceil, kernel):
    """Notebook 06's transposes: 32 x 8 blocks, one a 32 x 32 tile; 8 bytes an element moved."""
    w, h = size
    n = w * h
    a = np.random.default_rng(5).random((h, w), dtype=np.float32)
    a_gpu, out_gpu = gpuarray.to_gpu(a), gpuarray.empty((w, h), np.float32)
    f = compile_cu("transpose.cu").get_function(kernel)
    grid = ((w + 31) // 32, (h + 31) // 32)

    def sample(m):       # the first rows of a: the first columns of its transpose
        rows = max(1, min(h, m // w))
        return (a[:rows],), np.s_[:, :rows]

    return Case(kernel, "transpose", f"{w}x{h} floats", n,
                launch=lambda: f(a_gpu, out_gpu, np.int32(w), np.int32(h), block=(32, 8, 1),
                                 grid=grid),
                result=out_gpu.get, sample=sample, xp_op=reference.transpose, check=close(0, 0),
                serial=lambda lib, a: lib.transpose(a), rate=lambda ms: ceil.bandwidth(8 * n, ms))


def mandelbrot(size, ceil):
    w, h, max_iter = size
    x_min, x_max, y_min, y_max = VIEW
    dx, dy = (x_max - x_min) / w, (y_max - y_min) / h
    iters_gpu = gpuarray.empty((h, w), np.int32)
    f = compile_cu("mandelbrot.cu").get_function("mandelbrot")
    args = (iters_gpu, np.int32(w), np.int32(h), np.float32(x_min), np.float32(y_min),
            np.float32(dx), np.float32(dy), np.int32(max_iter))
    grid = ((w + 15) // 16, (h + 15) // 16)
    launch = lambda: f(*args, block=(16, 16, 1), grid=grid)  # noqa: E731
    launch()
    steps = int(iters_gpu.get().sum(dtype=np.int64))   # escape-loop iterations in the image

    def sample(m):
        """Every k-th row and column of the same view."""
        k = max(1, math.ceil(math.sqrt(w * h / m)))
        return (*reference.plane(x_min, y_min, dx, dy, w, h, step=k), max_iter), np.s_[::k, ::k]

    def serial(lib, c_re, c_im, max_iter):
        assert c_re.shape == (h, w), "serial C++ runs the whole image"
        return lib.mandelbrot(w, h, x_min, y_min, dx, dy, max_iter)

    def rate(ms):
        per_s = steps / (ms * 1e-3)
        return per_s / 1e9, "Gpix-iter/s", 100 * MANDEL_FLOPS * per_s / ceil.flops

    return Case("mandelbrot", "mandelbrot", f"{w}x{h}, {max_iter} iter", w * h, launch=launch,
                result=iters_gpu.get, sample=sample, xp_op=reference.mandelbrot_masks,
                check=mostly_equal, serial=serial, numpy_op=reference.mandelbrot, rate=rate,
                notes=[f"mandelbrot: {steps / (w * h):.0f} iterations a pixel on average; "
                       f"% of the FMA ceiling at {MANDEL_FLOPS} FLOPs an iteration"])


def iterate_sin(size, ceil):
    n, work = size
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    x_gpu, out_gpu = gpuarray.to_gpu(x), gpuarray.empty(n, np.float32)
    f = compile_cu("streams.cu").get_function("iterate_sin")
    grid = ((n + 255) // 256, 1)

    def sample(m):
        (part,), index = leading(m, n, x)
        return (part, work), index

    return Case("iterate_sin", "iterate_sin", f"2^{n.bit_length() - 1} x {work} sin", n,
                launch=lambda: f(x_gpu, out_gpu, np.int32(n), np.int32(work), block=(256, 1, 1),
                                 grid=grid),
                result=out_gpu.get, sample=sample, xp_op=reference.iterate_sin,
                check=close(1e-4, 1e-5), serial=lambda lib, x, work: lib.iterate_sin(x, work),
                rate=lambda ms: (n * work / (ms * 1e-3) / 1e9, "Gsin-iter/s", None),
                notes=["iterate_sin: no % (sinf is a library routine: no honest FLOP count)"])


MAKERS = (vector_add, saxpy, lambda size, ceil: grayscale(size, ceil, fast=False),
          lambda size, ceil: grayscale(size, ceil, fast=True), mandelbrot, iterate_sin,
          *(lambda size, ceil, k=k: transpose(size, ceil, k)
            for k in ("transpose_naive", "transpose_tiled", "transpose_padded")))
SIZE_OF = ("vector", "vector", "image", "image", "mandelbrot", "sin",   # each maker's SIZES key
           "transpose", "transpose", "transpose")


class Ceilings:
    """The copy bandwidth and FMA throughput measured in this run: two rows of the table, and
    the figures the kernels' rates are compared with."""

    def __init__(self, n_floats, fma_size, repeat):
        self.rows = [self._copy(n_floats, repeat), self._fma(*fma_size, repeat)]

    def _copy(self, n_floats, repeat):
        nbytes = 4 * n_floats
        src, dst = drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)
        data = np.random.default_rng(4).random(n_floats, dtype=np.float32)
        drv.memcpy_htod(src, data)
        t, batch = time_launches(lambda: drv.memcpy_dtod(dst, src, nbytes), repeat)
        back = np.empty_like(data)
        drv.memcpy_dtoh(back, dst)
        self.gbs = bandwidth_gbs(2 * nbytes, t.median_ms)
        return Row("copy (ceiling)", f"{nbytes / 2**20:,.4g} MiB", t.median_ms, batch,
                   len(t.times_ms), self.gbs, "GB/s", 100, bool(np.array_equal(back, data)))

    def _fma(self, threads, iters, repeat):
        if threads is None:   # 8 waves of 2048 threads (a full SM) on every SM
            sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
            threads = 8 * 2048 * sms
        f = SourceModule(read_source(BENCH / "fma_peak.cu")).get_function("fma_peak")
        out = gpuarray.empty(threads, np.float32)
        t, batch = time_launches(lambda: f(out, np.int32(iters), np.float32(0.5), np.float32(1.0),
                                           block=(256, 1, 1), grid=(threads // 256, 1)), repeat)
        self.flops = 2 * 8 * threads * iters / (t.median_ms * 1e-3)
        return Row("fma_peak (ceiling)", f"{threads:,} threads x {iters} x 8 FMA", t.median_ms,
                   batch, len(t.times_ms), self.flops / 1e9, "GFLOP/s", 100,
                   bool(np.allclose(out.get(), 16.0, rtol=1e-5)))   # 8 chains, each at 2

    def bandwidth(self, nbytes, ms):
        gbs = bandwidth_gbs(nbytes, ms)
        return gbs, "GB/s", 100 * gbs / self.gbs
