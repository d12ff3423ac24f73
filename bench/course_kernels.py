"""Benchmark: every course kernel against the device's ceilings and against its peers.

    make bench                                    # = python bench/course_kernels.py
    python bench/course_kernels.py [--tiny] [--out DIR] [--repeat N]
    CUDA_COURSE_BACKEND=pycuda python bench/course_kernels.py --out /tmp/bench

Runs on the backend that ``helpers.backend`` picks (PyCUDA on a GPU, else the CPU simulator)
the kernels of the notebooks, with their launch configurations, at a size that fills the device:
vector_add (01), saxpy (02), mandelbrot (03), rgb_to_gray and rgb_to_gray_x16 (04),
iterate_sin (05), transpose_naive, transpose_tiled and transpose_padded (06), the one-launch sums
and the histograms of notebook 07 (``bench/sum_histogram.py``; the histograms on notebook 04's
photograph, as a learner has it, and tiled to a large image), the naive, tiled and register-tiled
matrix multiplies (08, ``bench/matmul_cases.py``: GFLOP/s against the FMA ceiling and cuBLAS
SGEMM). It prints one Markdown table and writes it as CSV, with a bar chart as PNG, to
``bench/out/`` (``--out``). For each kernel:

- time: median over several batches of the time per launch. A batch is B back-to-back launches
  between two CUDA events, divided by B (B chosen so that a batch lasts about 20 ms on a GPU),
  so Python's launch overhead is not counted; one untimed launch warms up first.
- rate: GB/s for the memory-bound kernels (each byte the kernel must read or write, counted
  once), Gpixel-iterations/s for Mandelbrot, G sin-iterations/s for iterate_sin.
- % of the ceiling measured in the same run: a device-to-device copy (``drv.memcpy_dtod``,
  read + write counted) for bandwidth, ``bench/fma_peak.cu`` (FMA chains, 2 FLOPs an FMA) for
  arithmetic; Mandelbrot's loop does 8 FLOPs an iteration.
- peers, each as a ratio peer time / course-kernel time (> 1: the course kernel is faster),
  measured in the same run on the same operation. On a GPU: NumPy on the CPU, CuPy and PyTorch
  (written idiomatically: ``a + b``, ``2.5 * x + y``, the BT.601 weighted sum, a Mandelbrot loop
  with masks, the sin loop, ``x.T.copy()``). On the simulator: the serial C++ loop (``bench/serial/*.cpp`` and
  ``bench/mandelbrot_serial.cpp``, g++ -O2, one core), NumPy, and Numba's CUDA simulator
  (``bench/numba_sim.py``, in a subprocess). A peer too slow for the full size runs on a part of
  the problem and is scaled per element; the notes under the table say which.

Every result, the course kernel's and each peer's, is checked against NumPy (on a sample for
the large problems); a wrong one prints WRONG instead of a figure, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import datetime
import gc
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.backend import (BACKEND, SourceModule, compile_cu, device_summary, drv,  # noqa: E402
                             gpuarray)
from helpers.timing import Timing, bandwidth_gbs, time_kernel  # noqa: E402
from bench import matmul_cases, sum_histogram  # noqa: E402

SIM = BACKEND == "simulator"
ALPHA = 2.5                                          # saxpy's a
WEIGHTS = np.array([0.299, 0.587, 0.114], np.float32)  # BT.601 luma
VIEW = (-2.2, 1.0, -1.2, 1.2)                        # notebook 03's view of the Mandelbrot set
MANDEL_FLOPS = 8      # a loop iteration: 2 squares, 1 add, 1 multiply + 1 FMA (2), 2 adds
TARGET_MS = 0 if SIM else 20    # length of a timed batch (the simulator runs launches at once)

# Problem sizes: (GPU, simulator, --tiny). On a GPU, large enough to fill an H200 (far more
# threads than it runs at once, arrays far larger than its L2 cache): grayscale and Mandelbrot
# as in notebooks 04 and 03, iterate_sin on notebook 05's N with a fixed work of 64 (the
# notebook tunes it to its PCIe copies). The simulator's keep the run well under a minute on
# 2 cores.
SIZES = {
    "vector": (1 << 28, 1 << 22, 1 << 14),                     # floats: vector_add, saxpy, copy
    "image": ((8192, 8192), (1024, 1024), (128, 96)),          # width, height: grayscale
    "mandelbrot": ((4096, 3072, 1024), (512, 384, 256), (64, 48, 64)),  # width, height, iters
    "sin": ((1 << 26, 64), (1 << 16, 64), (1 << 12, 16)),     # elements, work: iterate_sin
    "fma": ((None, 4096), (1 << 15, 1024), (1 << 12, 64)),     # threads (None: 8 x a full GPU), iters
    "transpose": ((8192, 8192), (1024, 1024), (77, 45)),        # width, height: notebook 06
    "photo": (None, None, (64, 48)),                           # crop of the photograph (None: all)
    "tiled": ((8192, 8192), (1024, 1024), (128, 96)),          # the photograph tiled: histogram
    "matmul": (4096, 256, 64),                                  # M = K = N: notebook 08
}
# Most elements NumPy runs on; on more, it runs on a part and its time is scaled per element.
NUMPY_MAX = {"vector_add": 1 << 24, "saxpy": 1 << 24, "gray": 1 << 22, "mandelbrot": 1 << 18,
             "iterate_sin": 1 << 20, "transpose": 1 << 22, "matmul": matmul_cases.NUMPY_MAX,
             "sum": 1 << 28, "histogram": 1 << 27,   # a reduction's part
             "histogram_range": 1 << 27, "histogram_tiled": 1 << 27}  # is no part of its result
NUMBA_MAX, NUMBA_MAX_TINY = 1024, 128   # Numba's simulator: ~0.3 ms a thread


# ---------------------------------------------------------------- timing

def time_batched(launch, repeat, sync=None):
    """(Timing of one launch in ms, batch size): median over ``repeat`` batches of back-to-back
    launches, each batch between two events (helpers.timing.time_kernel) and divided by its size.

    ``sync`` (a peer library's synchronize) ends each batch, so that work a library might queue
    on a stream of its own is inside the end event too.
    """
    def batch_of(k):
        def run():
            for _ in range(k):
                launch()
            if sync:
                sync()
        return run

    first = time_kernel(batch_of(1), repeat=1, warmup=1).median_ms
    batch = max(1, min(100, round(TARGET_MS / max(first, 1e-6))))
    if first * batch > 300:                  # a slow peer: a few runs are enough
        repeat = min(repeat, 3)
    t = time_kernel(batch_of(batch), repeat=repeat, warmup=0)
    return Timing([ms / batch for ms in t.times_ms]), batch


def time_cpu(fn, repeat, budget_s=3.0):
    """Median wall-clock ms of fn() (code on the CPU), after one warm-up run; stops early once
    the runs have taken ``budget_s``."""
    t0 = time.perf_counter()
    fn()
    times, spent = [], time.perf_counter() - t0
    while len(times) < repeat and (not times or spent < budget_s):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
        spent += times[-1] / 1e3
    return Timing(times)


# ---------------------------------------------------------------- peers

class Peer:
    """A library that runs the same operation: where its arrays live and how to wait for it."""

    def __init__(self, name, xp, put, get, sync=None, cast=None):
        self.name, self.xp, self.put, self.get, self.sync = name, xp, put, get, sync
        self._cast = cast

    def cast(self, a, dtype):
        return self._cast(a, dtype) if self._cast else a.astype(dtype)


NUMPY = Peer("NumPy", np, put=lambda a: a, get=np.asarray)


def cupy_peer():
    import cupy as cp
    if cp.cuda.runtime.getDeviceCount() == 0:
        raise RuntimeError("no device")
    return Peer("CuPy", cp, put=cp.asarray, get=cp.asnumpy,
                sync=lambda: cp.cuda.Device().synchronize())


def torch_peer():
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    return Peer("PyTorch", torch, put=lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda(),
                get=lambda t: t.cpu().numpy(), sync=torch.cuda.synchronize,
                cast=lambda t, dtype: t.to(getattr(torch, dtype)))


def free_peer_memory(peers):
    for p in peers:
        if p.name == "CuPy":
            p.xp.get_default_memory_pool().free_all_blocks()
        elif p.name == "PyTorch":
            p.xp.cuda.empty_cache()


def serial_library():
    """bench/serial/*.cpp and bench/mandelbrot_serial.cpp built with g++ -O2 into one library."""
    cxx = os.environ.get("CXX", "g++")
    sources = sorted((ROOT / "bench" / "serial").glob("*.cpp"))
    sources.append(ROOT / "bench" / "mandelbrot_serial.cpp")
    with tempfile.TemporaryDirectory(prefix="bench-serial-") as tmp:
        lib = Path(tmp) / "libserial.so"
        subprocess.run([cxx, "-O2", "-shared", "-fPIC", "-o", str(lib), *map(str, sources)],
                       check=True, capture_output=True)
        return ctypes.CDLL(str(lib))


def ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


# ---------------------------------------------------------------- the operations

def mandelbrot_masks(p, c_re, c_im, max_iter):
    """Mandelbrot as a GPU array library writes it: every pixel every step, masks for the
    escaped ones (a pixel stops counting, and its z stops changing, once |z|^2 > 4)."""
    xp = p.xp
    z_re, z_im = xp.zeros_like(c_re), xp.zeros_like(c_im)
    counts = xp.zeros_like(c_re, dtype=xp.int32)
    for _ in range(max_iter):
        re2, im2 = z_re * z_re, z_im * z_im
        going = re2 + im2 <= 4
        counts += going
        z_im = xp.where(going, 2 * z_re * z_im + c_im, z_im)
        z_re = xp.where(going, re2 - im2 + c_re, z_re)
    return counts


def mandelbrot_numpy(p, c_re, c_im, max_iter):
    """Notebook 03's NumPy version: escaped pixels are dropped from the arrays as it goes (much
    faster on a CPU than computing every pixel every step)."""
    counts = np.full(c_re.size, max_iter, dtype=np.int32)
    running = np.arange(c_re.size)
    cr, ci = c_re.ravel(), c_im.ravel()
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    for n in range(max_iter):
        re2, im2 = zr * zr, zi * zi
        escaped = re2 + im2 > 4
        if escaped.any():
            counts[running[escaped]] = n
            keep = ~escaped
            running, cr, ci, zr, zi, re2, im2 = (a[keep] for a in (running, cr, ci, zr, zi, re2, im2))
            if running.size == 0:
                break
        zi = 2 * zr * zi + ci
        zr = re2 - im2 + cr
    return counts.reshape(c_re.shape)


def iterate_sin_xp(p, x, work):
    y = x
    for _ in range(work):
        y = p.xp.sin(y) + x
    return y


def gray_xp(p, rgb):
    w = p.put(WEIGHTS)
    return p.cast(p.cast(rgb, "float32") @ w + 0.5, "uint8")   # + 0.5 and truncate: rounding


def within_one_level(got, want):
    return got.shape == want.shape and int(np.abs(got.astype(np.int16) - want).max()) <= 1


def mostly_equal(got, want):
    """Mandelbrot: float rounding (FMA contraction) may move a few pixels on the set's edge."""
    return got.shape == want.shape and float(np.mean(got == want)) >= 0.99


def close(rtol, atol):
    return lambda got, want: got.shape == want.shape and np.allclose(got, want, rtol, atol)


# ---------------------------------------------------------------- the cases

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
    xp_op: object            # xp_op(peer, *inputs): the operation in NumPy, CuPy or PyTorch
    check: object            # check(got, want) -> bool
    serial: object = None    # serial(lib, *inputs) -> output (simulator only)
    numpy_op: object = None  # when NumPy's idiom differs from the GPU libraries'
    count: object = None     # count(inputs) -> elements a run covers (default: its output's size)
    rate: object = None      # rate(ms) -> (value, unit, % of ceiling or None)
    notes: list = field(default_factory=list)
    no_peer: tuple = ()      # peer columns with no version of this operation: "-"


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

    def serial(lib, a, b):
        out = np.empty_like(a)
        lib.vector_add_serial(ptr(a), ptr(b), ptr(out), ctypes.c_int(a.size))
        return out

    return Case("vector_add", "vector_add", f"2^{n.bit_length() - 1} floats", n,
                launch=lambda: f(a_gpu, b_gpu, out_gpu, np.int32(n), block=(256, 1, 1), grid=grid),
                result=out_gpu.get, sample=lambda m: leading(m, n, a, b),
                xp_op=lambda p, a, b: a + b, check=close(1e-6, 0), serial=serial,
                rate=lambda ms: ceil.bandwidth(12 * n, ms))


def saxpy(size, ceil):
    n = size
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    f = compile_cu("indexing.cu").get_function("saxpy")
    grid = ((n + 255) // 256, 1)
    launch = lambda: f(np.int32(n), np.float32(ALPHA), x_gpu, y_gpu, block=(256, 1, 1), grid=grid)  # noqa: E731
    launch()                                 # y in place: check the first launch on fresh data
    y_first = y_gpu.get()

    def serial(lib, x, y):       # in place, like the kernel
        lib.saxpy_serial(ctypes.c_int(x.size), ctypes.c_float(ALPHA), ptr(x), ptr(y))
        return y

    return Case("saxpy", "saxpy", f"2^{n.bit_length() - 1} floats", n, launch=launch,
                result=lambda: y_first, sample=lambda m: leading(m, n, x, y),
                xp_op=lambda p, x, y: ALPHA * x + y, check=close(1e-5, 1e-6), serial=serial,
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

    def serial(lib, rgb):
        gray = np.empty(rgb.shape[:2], np.uint8)
        lib.rgb_to_gray_serial(ptr(rgb), ptr(gray), ctypes.c_int(gray.size))
        return gray

    return Case("rgb_to_gray_x16" if fast else "rgb_to_gray", "gray", f"{w}x{h} RGB", n,
                launch=launch, result=gray_gpu.get, sample=sample, xp_op=gray_xp,
                check=within_one_level, serial=serial, rate=lambda ms: ceil.bandwidth(4 * n, ms))


def transpose_xp(p, a):
    """The transposed copy as each library writes it: ``x.T.copy()`` (PyTorch: ``.contiguous()``)."""
    return a.t().contiguous() if p.name == "PyTorch" else a.T.copy()


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

    def serial(lib, a):
        out = np.empty(a.shape[::-1], np.float32)
        lib.transpose_serial(ptr(a), ptr(out), ctypes.c_int(a.shape[1]), ctypes.c_int(a.shape[0]))
        return out

    return Case(kernel, "transpose", f"{w}x{h} floats", n,
                launch=lambda: f(a_gpu, out_gpu, np.int32(w), np.int32(h), block=(32, 8, 1),
                                 grid=grid),
                result=out_gpu.get, sample=sample, xp_op=transpose_xp, check=close(0, 0),
                serial=serial, rate=lambda ms: ceil.bandwidth(8 * n, ms))


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
        """Every k-th row and column of the same view (c computed as the kernel does)."""
        k = max(1, math.ceil(math.sqrt(w * h / m)))
        xs, ys = np.arange(0, w, k, dtype=np.float32), np.arange(0, h, k, dtype=np.float32)
        c_re, c_im = np.meshgrid(np.float32(x_min) + xs * np.float32(dx),
                                 np.float32(y_min) + ys * np.float32(dy))
        return (c_re, c_im, max_iter), np.s_[::k, ::k]

    def serial(lib, c_re, c_im, max_iter):
        assert c_re.shape == (h, w), "serial C++ runs the whole image"
        out = np.empty((h, w), np.int32)
        lib.mandelbrot_serial(ptr(out), ctypes.c_int(w), ctypes.c_int(h), ctypes.c_float(x_min),
                              ctypes.c_float(y_min), ctypes.c_float(dx), ctypes.c_float(dy),
                              ctypes.c_int(max_iter))
        return out

    def rate(ms):
        per_s = steps / (ms * 1e-3)
        return per_s / 1e9, "Gpix-iter/s", 100 * MANDEL_FLOPS * per_s / ceil.flops

    return Case("mandelbrot", "mandelbrot", f"{w}x{h}, {max_iter} iter", w * h, launch=launch,
                result=iters_gpu.get, sample=sample, xp_op=mandelbrot_masks, check=mostly_equal,
                serial=serial, numpy_op=mandelbrot_numpy, rate=rate,
                notes=[f"mandelbrot: {steps / (w * h):.0f} iterations a pixel on average; "
                       f"% of the FMA ceiling at {MANDEL_FLOPS} FLOPs an iteration"])


def iterate_sin(size, ceil):
    n, work = size
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    x_gpu, out_gpu = gpuarray.to_gpu(x), gpuarray.empty(n, np.float32)
    f = compile_cu("streams.cu").get_function("iterate_sin")
    grid = ((n + 255) // 256, 1)

    def serial(lib, x, work):
        out = np.empty_like(x)
        lib.iterate_sin_serial(ptr(x), ptr(out), ctypes.c_int(x.size), ctypes.c_int(work))
        return out

    def sample(m):
        (part,), index = leading(m, n, x)
        return (part, work), index

    return Case("iterate_sin", "iterate_sin", f"2^{n.bit_length() - 1} x {work} sin", n,
                launch=lambda: f(x_gpu, out_gpu, np.int32(n), np.int32(work), block=(256, 1, 1),
                                 grid=grid),
                result=out_gpu.get, sample=sample, xp_op=iterate_sin_xp, check=close(1e-4, 1e-5),
                serial=serial, rate=lambda ms: (n * work / (ms * 1e-3) / 1e9, "Gsin-iter/s", None),
                notes=["iterate_sin: no % (sinf is a library routine: no honest FLOP count)"])


# ---------------------------------------------------------------- ceilings

@dataclass
class Row:
    """One line of the table (and of the CSV)."""
    kernel: str
    size: str
    ms: float | None = None
    batch: int = 1
    runs: int = 0
    rate: float | None = None
    unit: str = ""
    pct: float | None = None
    ok: bool = True
    peers: dict = field(default_factory=dict)   # column -> ratio (float) or a word


class Ceilings:
    """The copy bandwidth and FMA throughput measured in this run: two rows of the table, and
    the figures the kernels' rates are compared with."""

    def __init__(self, n_floats, fma_size, repeat):
        nbytes = 4 * n_floats
        src, dst = drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)
        data = np.random.default_rng(4).random(n_floats, dtype=np.float32)
        drv.memcpy_htod(src, data)
        t, batch = time_batched(lambda: drv.memcpy_dtod(dst, src, nbytes), repeat)
        back = np.empty_like(data)
        drv.memcpy_dtoh(back, dst)
        self.gbs = bandwidth_gbs(2 * nbytes, t.median_ms)
        copy = Row("copy (ceiling)", f"{nbytes / 2**20:,.4g} MiB", t.median_ms, batch,
                   len(t.times_ms), self.gbs, "GB/s", 100, bool(np.array_equal(back, data)))

        threads, iters = fma_size
        if threads is None:   # 8 waves of 2048 threads (a full SM) on every SM
            sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
            threads = 8 * 2048 * sms
        source = '#line 1 "fma_peak.cu"\n' + (ROOT / "bench" / "fma_peak.cu").read_text()
        f = SourceModule(source).get_function("fma_peak")
        out = gpuarray.empty(threads, np.float32)
        t, batch = time_batched(lambda: f(out, np.int32(iters), np.float32(0.5), np.float32(1.0),
                                          block=(256, 1, 1), grid=(threads // 256, 1)), repeat)
        self.flops = 2 * 8 * threads * iters / (t.median_ms * 1e-3)
        fma = Row("fma_peak (ceiling)", f"{threads:,} threads x {iters} x 8 FMA", t.median_ms,
                  batch, len(t.times_ms), self.flops / 1e9, "GFLOP/s", 100,
                  bool(np.allclose(out.get(), 16.0, rtol=1e-5)))   # 8 chains, each at 2
        self.rows = [copy, fma]

    def bandwidth(self, nbytes, ms):
        gbs = bandwidth_gbs(nbytes, ms)
        return gbs, "GB/s", 100 * gbs / self.gbs


# ---------------------------------------------------------------- running a case

PEER_COLUMNS = ("serial C++", "NumPy", "Numba sim") if SIM else ("NumPy", "CuPy", "PyTorch")


NUMPY_REFS = {}   # op -> (index, NumPy's result on that part): checks kernels and peers alike


def numpy_reference(case):
    if case.op not in NUMPY_REFS:
        inputs, index = case.sample(NUMPY_MAX[case.op])
        NUMPY_REFS[case.op] = index, (case.numpy_op or case.xp_op)(NUMPY, *inputs)
    return NUMPY_REFS[case.op]


def fresh(inputs):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in inputs)


def measure_peer(case, name, peer, repeat):
    """(ms per element, whether the result matched NumPy's, elements it ran on) of one peer.
    NumPy runs on NumPy's part of the problem, the others on the whole problem; CPU code is
    timed by the wall clock, GPU libraries like the kernels."""
    index, want = numpy_reference(case)
    if name in ("NumPy", "serial C++"):
        if name == "NumPy":
            inputs, index = case.sample(NUMPY_MAX[case.op])
            op = lambda *a: (case.numpy_op or case.xp_op)(NUMPY, *a)  # noqa: E731
        else:
            inputs, _ = case.sample(case.n)
            op = lambda *a: case.serial(peer, *a)  # noqa: E731
        got = np.asarray(op(*fresh(inputs)))   # fresh copies: saxpy's serial loop works in place
        work = fresh(inputs)
        t = time_cpu(lambda: op(*work), repeat)
    else:
        inputs, _ = case.sample(case.n)
        dev = tuple(peer.put(a) if isinstance(a, np.ndarray) else a for a in inputs)
        got = peer.get(case.xp_op(peer, *dev))
        t, _ = time_batched(lambda: case.xp_op(peer, *dev), repeat, sync=peer.sync)
        del dev
    ok = bool(case.check(got if name == "NumPy" else got[index], want))
    size = case.count(inputs) if case.count else got.size
    return t.median_ms / size, ok, size


def run_case(case, peers, repeat, peer_cache, notes):
    row = Row(case.kernel, case.size)
    index, want = numpy_reference(case)
    case.launch()
    row.ok = bool(case.check(np.asarray(case.result()[index]), want))
    t, row.batch = time_batched(case.launch, repeat)
    row.runs = len(t.times_ms)
    if row.ok:
        row.ms = t.median_ms
        row.rate, row.unit, row.pct = case.rate(t.median_ms)
    notes.extend(n for n in case.notes if n not in notes)

    if case.op not in peer_cache:     # rgb_to_gray and rgb_to_gray_x16 share their peers' figures
        cache = peer_cache[case.op] = {}
        for name, peer in peers.items():
            try:
                cache[name] = "-" if name in case.no_peer else peer if isinstance(peer, str) \
                    else measure_peer(case, name, peer, repeat)
            except Exception as e:   # a peer's failure must not lose the other figures
                cache[name] = "error"
                notes.append(f"{case.op}: {name} failed: {type(e).__name__}: {e}")
        if isinstance(cache["NumPy"], tuple) and cache["NumPy"][2] < case.n:
            notes.append(f"{case.op}: NumPy ran on {cache['NumPy'][2]:,} of the {case.n:,} "
                         "elements, its time scaled per element")
        free_peer_memory(p for p in peers.values() if isinstance(p, Peer))
    for name, got in peer_cache[case.op].items():
        row.peers[name] = ratio(got, case.n, row.ms)
    return row


def ratio(got, n, ms):
    """A peer's cell: its time for n elements over the course kernel's, or a word."""
    if isinstance(got, str):
        return got
    if not got[1]:
        return "WRONG"
    return got[0] * n / ms if ms else ""


# ---------------------------------------------------------------- Numba's CUDA simulator

def numba_sim(cases, limit, notes):
    """Run bench/numba_sim.py in a subprocess (NUMBA_ENABLE_CUDASIM=1 must be set before
    numba.cuda is imported) on a small part of each problem; check it against NumPy.
    Returns op -> (ms per element, ok, elements) or a word."""
    ops = {c.op: c for c in cases if "Numba sim" not in c.no_peer}
    if importlib.util.find_spec("numba") is None:
        return dict.fromkeys(ops, "not installed")
    with tempfile.TemporaryDirectory(prefix="bench-numba-") as tmp:
        inputs, wants, sizes = {}, {}, {}
        for op, case in ops.items():
            (args, index) = case.sample(limit)
            wants[op] = (case.numpy_op or case.xp_op)(NUMPY, *args)
            sizes[op] = case.count(args) if case.count else wants[op].size
            for k, a in enumerate(args):
                inputs[f"{op}.{k}"] = np.asarray(a)
        np.savez(Path(tmp) / "in.npz", **inputs)
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
        proc = subprocess.run([sys.executable, str(ROOT / "bench" / "numba_sim.py"), tmp],
                              env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            notes.append("Numba sim failed: " + proc.stderr.strip().splitlines()[-1])
            return dict.fromkeys(ops, "failed")
        times = json.loads((Path(tmp) / "times.json").read_text())
        outs = np.load(Path(tmp) / "out.npz")
        result = {op: (times[op] / sizes[op], bool(ops[op].check(outs[op], wants[op])),
                       sizes[op]) for op in ops}
    notes.append("Numba sim: Numba's CUDA simulator on " + ", ".join(
        f"{op} {r[2]:,}" for op, r in result.items()) + " elements (one run each), "
        "time scaled per element")
    return result


# ---------------------------------------------------------------- output

def fmt_peer(v):
    if not isinstance(v, float):
        return v
    return f"{v:,.0f}x" if v >= 100 else f"{v:#.3g}x"


def table(rows):
    head = ["kernel", "size", "time/launch", "rate", "% of ceiling", *(f"vs {p}" for p in PEER_COLUMNS)]
    lines = [head]
    for r in rows:
        if not r.ok:
            lines.append([r.kernel, r.size, "WRONG", *[""] * (len(head) - 3)])
            continue
        lines.append([r.kernel, r.size, f"{r.ms:.4g} ms", f"{r.rate:,.1f} {r.unit}",
                      "-" if r.pct is None else f"{r.pct:.0f}%",
                      *(fmt_peer(r.peers.get(p, "")) for p in PEER_COLUMNS)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in lines]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "size", "median_ms", "batch", "runs", "rate", "unit",
                    "pct_of_ceiling", "check", *PEER_COLUMNS])
        for r in rows:
            w.writerow([r.kernel, r.size, r.ms if r.ok else "", r.batch, r.runs,
                        r.rate if r.ok else "", r.unit, "" if r.pct is None else r.pct,
                        "ok" if r.ok else "WRONG", *(r.peers.get(p, "") for p in PEER_COLUMNS)])


def plot(path, rows, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r.ok]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    pct = [r.pct or 0 for r in rows]
    bars = left.barh([r.kernel for r in rows], pct,
                     color=["tab:blue" if r.unit == "GB/s" else "tab:green" for r in rows])
    left.bar_label(bars, labels=[f"{p:.0f}%" if r.pct is not None else "n/a"
                                 for p, r in zip(pct, rows)], padding=2)
    left.axvline(70, color="gray", ls="--", lw=1)
    left.invert_yaxis()
    left.set_xlabel("% of the ceiling (blue: copy bandwidth, green: FMA throughput)")
    left.set_title("against the device (dashed: 70%)")

    height = 0.8 / len(PEER_COLUMNS)
    for k, peer in enumerate(PEER_COLUMNS):
        ys = [i + (k - (len(PEER_COLUMNS) - 1) / 2) * height for i in range(len(rows))]
        vals = [r.peers.get(peer) for r in rows]
        right.barh([y for y, v in zip(ys, vals) if isinstance(v, float)],
                   [v for v in vals if isinstance(v, float)], height=height, label=peer)
    right.set_yticks(range(len(rows)), [r.kernel for r in rows])
    right.set_xscale("log")
    right.axvline(1, color="k", lw=1)
    right.invert_yaxis()
    right.set_xlabel("peer time / course kernel time (log; > 1: the course kernel is faster)")
    right.set_title("against the peers")
    right.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- main

def versions():
    """Python's and the peers' versions, for the record (without importing them)."""
    from importlib.metadata import PackageNotFoundError, version

    found = [f"Python {sys.version.split()[0]}"]
    for name, dist in (("NumPy", "numpy"), ("CuPy", "cupy-cuda13x"), ("CuPy", "cupy"),
                       ("PyTorch", "torch"), ("PyCUDA", "pycuda"), ("Numba", "numba"),
                       ("numba-cuda", "numba-cuda")):
        try:
            found.append(f"{name} {version(dist)}")
        except PackageNotFoundError:
            pass
    return found



def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny sizes: checks that the benchmark runs")
    p.add_argument("--out", default=str(ROOT / "bench" / "out"), help="folder for the CSV and PNG")
    p.add_argument("--repeat", type=int, default=None, help="timed batches (GPU 10, simulator 5)")
    a = p.parse_args(argv)
    which = 2 if a.tiny else (1 if SIM else 0)
    size = {k: v[which] for k, v in SIZES.items()}
    repeat = a.repeat or (3 if a.tiny else 5 if SIM else 10)
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)

    info = device_summary()
    device = info["device"] + (f", {info['workers']} worker threads" if SIM else
                               f", compute capability {info['compute_capability']}, "
                               f"{info['multiprocessors']} SMs, {info['memory_gib']} GiB")
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    command = " ".join(["python", "bench/course_kernels.py", *(argv if argv is not None else sys.argv[1:])])
    title = f"{BACKEND}: {device}; {date}"
    print(f"Course kernels on {title}")
    print(f"command: CUDA_COURSE_BACKEND={BACKEND} {command}", flush=True)

    peers = {"NumPy": NUMPY}     # name -> a Peer, the serial library, or why it is missing
    if SIM:
        try:
            peers["serial C++"] = serial_library()
        except (OSError, subprocess.CalledProcessError) as e:
            peers["serial C++"] = "not installed"
            print(f"serial C++ not built: {e}")
    else:
        for name, make in (("CuPy", cupy_peer), ("PyTorch", torch_peer)):
            try:
                peers[name] = make()
            except ImportError:
                peers[name] = "not installed"
            except Exception as e:  # installed, but no usable device (or a broken install)
                peers[name] = "unusable"
                print(f"{name}: {type(e).__name__}: {e}")
    print("versions:", ", ".join(versions()) + "\n", flush=True)

    ceil = Ceilings(size["vector"], size["fma"], repeat)
    makers = [lambda: vector_add(size["vector"], ceil), lambda: saxpy(size["vector"], ceil),
              lambda: grayscale(size["image"], ceil, fast=False),
              lambda: grayscale(size["image"], ceil, fast=True),
              lambda: mandelbrot(size["mandelbrot"], ceil), lambda: iterate_sin(size["sin"], ceil),
              *(lambda k=k: transpose(size["transpose"], ceil, k) for k in
                ("transpose_naive", "transpose_tiled", "transpose_padded")),
              *(lambda k=k: Case(**matmul_cases.case(k, size["matmul"], ceil))
                for k in matmul_cases.KERNELS)]
    makers += [lambda make=make: Case(**make()) for make in sum_histogram.makers(size, ceil)]
    rows, notes, peer_cache, cases = [], [], {}, []
    for make in makers:
        case = make()
        rows.append(run_case(case, peers, repeat, peer_cache, notes))
        print(f"  {case.kernel}: measured", file=sys.stderr, flush=True)
        if SIM:
            cases.append(case)   # small on the simulator: kept for Numba's simulator below
        del case
        gc.collect()             # frees the case's device memory before the next one
    if SIM:
        numba = numba_sim(cases, NUMBA_MAX_TINY if a.tiny else NUMBA_MAX, notes)
        for r, case in zip(rows, cases):
            r.peers["Numba sim"] = ratio(numba.get(case.op, "-"), case.n, r.ms)

    print(table(ceil.rows + rows))
    print()
    print(f"time/launch: median of {repeat} batches of back-to-back launches, each batch between "
          "two events and divided by its size (Python launch overhead not counted)"
          + (" (simulator: the events read the CPU clock)" if SIM else ""))
    print("rate: GB/s counts each byte read or written once (copy: read + write); vs X: X's time "
          "/ the course kernel's, same run (> 1: the course kernel is faster)")
    for note in notes + [line for line in [matmul_cases.summary(rows)] if line]:
        print(note)
    stem = out_dir / f"course_kernels-{BACKEND}"
    write_csv(stem.with_suffix(".csv"), ceil.rows + rows)
    plot(stem.with_suffix(".png"), rows, f"Course kernels on {title}")
    print(f"\nwrote {stem}.csv and {stem}.png")
    ok = all(r.ok and not {"WRONG", "error"} & set(r.peers.values()) for r in ceil.rows + rows)
    if not ok:
        print("SOME RESULTS ARE WRONG OR FAILED (see WRONG and error above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
