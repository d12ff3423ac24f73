"""What bench/simulator.py runs: the Mandelbrot kernel and a tree reduction on the simulator, and
the same Mandelbrot as serial C++, in NumPy and on Numba's CUDA simulator, all on one view of the
set (``geometry``) so that their results can be compared pixel by pixel.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from bench import reference
from bench.measure import wall_ms
from bench.peers import NumbaSimFailed, numba_simulator
from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

X_MIN, X_MAX, Y_MIN, Y_MAX = -2.0, 1.0, -1.5, 1.5
BLOCK = (16, 16, 1)
REDUCE_BLOCK = 256


def timed_compile(source: str):
    """(module, cold s, cached s): compiled into the (empty) cache, then found there."""
    t0 = time.perf_counter()
    SourceModule(source)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    mod = SourceModule(source)
    return mod, cold, time.perf_counter() - t0


def geometry(width, height):
    """(x_min, y_min, dx, dy) of the benchmark's view, in float32 as the kernel gets them."""
    f32 = np.float32
    return f32(X_MIN), f32(Y_MIN), f32((X_MAX - X_MIN) / width), f32((Y_MAX - Y_MIN) / height)


# ---------------------------------------------------------------- the simulator's kernels

class SimMandelbrot:
    """cuda_src/mandelbrot.cu on one image size; run(workers) -> ms, result() -> counts."""

    def __init__(self, kernel, width, height, max_iter):
        self.kernel, self.shape = kernel, (height, width)
        self.out = drv.mem_alloc(width * height * 4)
        x_min, y_min, dx, dy = geometry(width, height)
        self.grid = ((width + BLOCK[0] - 1) // BLOCK[0], (height + BLOCK[1] - 1) // BLOCK[1])
        self.args = (self.out, np.int32(width), np.int32(height), x_min, y_min, dx, dy,
                     np.int32(max_iter))

    @property
    def blocks(self):
        return self.grid[0] * self.grid[1]

    def run(self, workers: int | None = None) -> float:
        with settings.changed(**({} if workers is None else {"workers": workers})):
            return wall_ms(lambda: self.kernel(*self.args, block=BLOCK, grid=self.grid))

    def result(self):
        out = np.empty(self.shape, np.int32)
        drv.memcpy_dtoh(out, self.out)
        return out


class SimReduction:
    """bench/reduction.cu on n floats, launched until one value is left."""

    def __init__(self, kernel, n, seed=1):
        self.kernel, self.n = kernel, n
        self.x = np.random.default_rng(seed).random(n, dtype=np.float32)
        self.sizes = [n]
        while self.sizes[-1] > 1:
            self.sizes.append(-(-self.sizes[-1] // REDUCE_BLOCK))
        self.bufs = [drv.mem_alloc(m * 4) for m in self.sizes]
        drv.memcpy_htod(self.bufs[0], self.x)
        self.pass_ms: dict[int | None, list[list[float]]] = {}

    def run(self, workers: int | None = None) -> float:
        passes = []
        with settings.changed(**({} if workers is None else {"workers": workers})):
            for k in range(len(self.sizes) - 1):
                passes.append(wall_ms(lambda: self.kernel(
                    self.bufs[k], self.bufs[k + 1], np.int32(self.sizes[k]),
                    block=(REDUCE_BLOCK, 1, 1), grid=(self.sizes[k + 1], 1))))
        self.pass_ms.setdefault(workers, []).append(passes)
        return sum(passes)

    def check(self):
        """(block sums equal bit for bit, how many, total, total equal to the same tree in
        NumPy, relative error against float64)."""
        first = np.empty(self.sizes[1], np.float32)
        drv.memcpy_dtoh(first, self.bufs[1])
        total = np.empty(1, np.float32)
        drv.memcpy_dtoh(total, self.bufs[-1])
        want = reference.tree_sums(self.x, REDUCE_BLOCK)
        equal = int((first.view(np.int32) == want.view(np.int32)).sum())
        want_total = want
        while want_total.size > 1:
            want_total = reference.tree_sums(want_total, REDUCE_BLOCK)
        exact = float(np.sum(self.x, dtype=np.float64))
        return (equal, first.size, float(total[0]), bool(total[0] == want_total[0]),
                abs(float(total[0]) - exact) / exact)


# ---------------------------------------------------------------- the peers

def serial_images(lib, size, max_iter, copies=1):
    """(ms, counts): one size x size image on one core; with copies > 1, that many images at
    once on as many threads (ctypes lets go of the GIL), which measures what the cores give when
    all are busy."""
    outs = []

    def one():
        outs.append(lib.mandelbrot(size, size, *geometry(size, size), max_iter))

    if copies == 1:
        return wall_ms(one), outs[0]
    threads = [threading.Thread(target=one) for _ in range(copies)]

    def all_at_once():
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    return wall_ms(all_at_once), outs[0]


def numpy_image(size, max_iter):
    x_min, y_min, dx, dy = geometry(size, size)
    c_re, c_im = reference.plane(x_min, y_min, dx, dy, size, size)
    return reference.mandelbrot(reference.NUMPY, c_re, c_im, max_iter)


def numba_mandelbrot(size, max_iter, repeat):
    """The Mandelbrot kernel of bench/numba_sim.py on Numba's simulator, ``repeat`` times:
    ({seconds of each run, total iterations, numba's version}, counts) or (None, why)."""
    from importlib.metadata import version

    x_min, y_min, dx, dy = geometry(size, size)
    c_re, c_im = reference.plane(x_min, y_min, dx, dy, size, size)
    try:
        times, outs = numba_simulator({"mandelbrot": (c_re, c_im, np.array(max_iter))}, repeat)
    except NumbaSimFailed as e:
        why = str(e)
        return None, "numba is not installed (pip install numba)" if why == "not installed" else why
    counts = outs["mandelbrot"]
    return {"times_s": [ms / 1e3 for ms in times["mandelbrot"]],
            "total_iterations": int(counts.astype(np.int64).sum()),
            "numba": version("numba")}, counts
