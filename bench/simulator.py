"""Benchmark: the course's CPU simulator against its targets (issues 2 and 3), in one run.

    python bench/simulator.py [--size 1024] [--iters 256] [--repeat 7] [--numba-size 128]
                              [--numba-full] [--no-numba] [--reduce-n 1048576]

Prints figures, side by side, then a verdict (MET / MISSED) for each target:

1. Issue 2. ``cuda_src/mandelbrot.cu`` (1024x1024 pixels, 256 iterations, float32, 16x16 blocks)
   on the simulator, against the same loop as serial C++ (``bench/mandelbrot_serial.cpp``, built
   with ``g++ -O2`` at run time and called through ctypes) and against NumPy (the same float32
   arithmetic on whole arrays). Target: the simulator's time per core (its time x the worker
   threads it used) within 2x of the serial C++ loop. The same per-core figure measured on one
   worker is printed too: on a loaded machine a 2-worker time x 2 overstates the cost. Also the
   simulator's compile time, cold (an empty cache) and cached.
2. Issue 3. A 1M-element shared-memory tree reduction (``bench/reduction.cu``: 256 threads a
   block, ``__syncthreads()`` between steps; launched on the block sums until one value is left,
   1M -> 4096 -> 16 -> 1) on the simulator with all its workers and with one
   (``CUDA_SIM_WORKERS``). Target: at most 0.15 s. And the Mandelbrot kernel against Numba's CUDA
   simulator running the same kernel written for Numba (``bench/numba_sim.py``, run in a
   subprocess with ``NUMBA_ENABLE_CUDASIM=1``). Numba's simulator needs minutes for the full
   image, so by default it runs a smaller image of the same region (``--numba-size``, 128x128)
   and its time is scaled by the number of pixels; both figures are printed, and
   ``--numba-full`` runs the full size instead. Target: the simulator at least 500x faster.
3. Issue 9. The cost of a __syncthreads() for each thread, with the inline fiber switch and the
   call switch used before, side by side (``barrier_costs``). Target: at most 5 ns.
4. The results agree: the simulator's iteration counts against serial C++, NumPy and Numba,
   pixel by pixel (the fraction of equal pixels); the reduction's block sums against NumPy doing
   the same tree in the same order (bit for bit), and its total against a float64 sum.

Times are wall-clock medians of ``--repeat`` rounds after a warm-up round, compile time excluded.
The simulator's launches are synchronous, so ``time.perf_counter()`` around a launch times it.
Contenders take turns within each round, so that other work on a shared machine slows them
alike; the load average is printed at the start and the end. The simulator is used explicitly
(``helpers.sim``), whatever backend the environment would pick, with a compile cache of its own
in a temporary directory (so the cold compile is really cold and the user's cache is untouched).
Exit status 1 when results disagree; a missed target is reported, not an error.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.metadata
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

from helpers.sim import driver as drv  # noqa: E402
from helpers.sim.compiler import SourceModule  # noqa: E402
from helpers.sim.settings import settings  # noqa: E402

X_MIN, X_MAX, Y_MIN, Y_MAX = -2.0, 1.0, -1.5, 1.5
BLOCK = (16, 16, 1)
REDUCE_BLOCK = 256

TARGET_PER_CORE = 2.0        # issue 2: simulator per core within 2x of serial C++
TARGET_REDUCTION_S = 0.15    # issue 3: 1M-element reduction in at most 0.15 s
TARGET_NUMBA = 500.0         # issue 3: at least 500x faster than Numba's CUDA simulator
AGREE = 0.999                # results agree when at least this fraction of pixels is equal


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def wall_ms(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def timed_compile(source: str):
    """(module, cold s, cached s): compiled into the (empty) cache, then found there."""
    t0 = time.perf_counter()
    SourceModule(source)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    mod = SourceModule(source)
    return mod, cold, time.perf_counter() - t0


def geometry(width, height):
    f32 = np.float32
    return f32((X_MAX - X_MIN) / width), f32((Y_MAX - Y_MIN) / height)


# ---------------------------------------------------------------- the simulator's Mandelbrot

class SimMandelbrot:
    """cuda_src/mandelbrot.cu on one image size; run(workers) -> ms, result() -> counts."""

    def __init__(self, kernel, width, height, max_iter):
        self.kernel, self.shape = kernel, (height, width)
        self.out = drv.mem_alloc(width * height * 4)
        dx, dy = geometry(width, height)
        self.grid = ((width + BLOCK[0] - 1) // BLOCK[0], (height + BLOCK[1] - 1) // BLOCK[1])
        self.args = (self.out, np.int32(width), np.int32(height), np.float32(X_MIN),
                     np.float32(Y_MIN), dx, dy, np.int32(max_iter))

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


# ---------------------------------------------------------------- serial C++ and NumPy

def serial_cpp():
    """(mandelbrot(width, height, max_iter) -> (ms, counts), compile s)."""
    cxx = os.environ.get("CXX", "g++")
    with tempfile.TemporaryDirectory(prefix="mandel-bench-") as tmp:
        lib_path = Path(tmp) / "libmandel.so"
        t0 = time.perf_counter()
        subprocess.run([cxx, "-O2", "-shared", "-fPIC", "-o", str(lib_path),
                        str(BENCH / "mandelbrot_serial.cpp")], check=True)
        compile_s = time.perf_counter() - t0
        lib = ctypes.CDLL(str(lib_path))  # stays loaded after its file is gone
    fn = lib.mandelbrot_serial
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_float,
                   ctypes.c_float, ctypes.c_float, ctypes.c_int]

    def mandelbrot(width, height, max_iter, copies=1):
        """One image on one core; with copies > 1, that many images at once on as many threads
        (ctypes lets go of the GIL), which measures what the cores give when all are busy."""
        outs = [np.empty((height, width), np.int32) for _ in range(copies)]
        dx, dy = geometry(width, height)

        def one(out):
            fn(out.ctypes.data, width, height, X_MIN, Y_MIN, dx, dy, max_iter)

        if copies == 1:
            return wall_ms(lambda: one(outs[0])), outs[0]
        threads = [threading.Thread(target=one, args=(out,)) for out in outs]

        def all_at_once():
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        ms = wall_ms(all_at_once)
        return ms, outs[0]

    return mandelbrot, compile_s


def mandelbrot_numpy(width, height, max_iter):
    """The kernel's arithmetic in float32 on whole arrays; escaped pixels are dropped as it goes."""
    f32 = np.float32
    dx, dy = geometry(width, height)
    c_re = f32(X_MIN) + np.arange(width, dtype=f32) * dx
    c_im = f32(Y_MIN) + np.arange(height, dtype=f32) * dy
    c_re, c_im = np.broadcast_arrays(c_re[None, :], c_im[:, None])
    cr, ci = c_re.ravel().copy(), c_im.ravel().copy()
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    counts = np.zeros(width * height, np.int32)
    idx = np.arange(width * height)
    for _ in range(max_iter):
        re2, im2 = zr * zr, zi * zi
        going = re2 + im2 <= f32(4)
        if not going.all():
            idx, zr, zi, cr, ci, re2, im2 = (v[going] for v in (idx, zr, zi, cr, ci, re2, im2))
            if idx.size == 0:
                break
        zi = f32(2) * zr * zi + ci
        zr = re2 - im2 + cr
        counts[idx] += 1
    return counts.reshape(height, width)


# ---------------------------------------------------------------- the reduction

def tree_sums(x: np.ndarray) -> np.ndarray:
    """What block_sum computes, in the same order: the block sums of x, bit for bit."""
    blocks = -(-x.size // REDUCE_BLOCK)
    s = np.zeros(blocks * REDUCE_BLOCK, np.float32)
    s[:x.size] = x
    s = s.reshape(blocks, REDUCE_BLOCK)
    stride = REDUCE_BLOCK // 2
    while stride > 0:
        s[:, :stride] += s[:, stride:2 * stride]
        stride //= 2
    return s[:, 0].copy()


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
        """(block sums equal bit for bit, how many, total, relative error against float64)."""
        first = np.empty(self.sizes[1], np.float32)
        drv.memcpy_dtoh(first, self.bufs[1])
        total = np.empty(1, np.float32)
        drv.memcpy_dtoh(total, self.bufs[-1])
        want = tree_sums(self.x)
        equal = int((first.view(np.int32) == want.view(np.int32)).sum())
        want_total = want
        while want_total.size > 1:
            want_total = tree_sums(want_total)
        exact = float(np.sum(self.x, dtype=np.float64))
        return (equal, first.size, float(total[0]), bool(total[0] == want_total[0]),
                abs(float(total[0]) - exact) / exact)


# ---------------------------------------------------------------- barrier cost, two fiber switches

TARGET_BARRIER_NS = 5.0      # issue 9: at most 5 ns a barrier per thread
BARRIERS = r"""
__global__ void barriers(int k) { for (int i = 0; i < k; i++) __syncthreads(); }
"""


def barrier_costs(n, repeat, workers):
    """ns a __syncthreads() costs each thread, with the inline fiber switch (the default) and the
    call switch used before (-DSIM_SWITCH_CALL: a function that pushes the callee-saved registers,
    and the worker read from the thread's Frame; the rest of the runtime is the same for both),
    side by side: the marginal cost of a barrier in a
    loop (k = 8 against k = 0), and the first launch of the reduction (bench/reduction.cu: 9
    barriers a thread, work included), on n threads in blocks of 256. Wall time (min of repeat
    rounds, on all workers and on one) and CPU time per core (which a loaded machine's wall time
    hides). Prints the figures; returns the verdict line."""
    blocks = max(1, n // REDUCE_BLOCK)
    threads, shape = blocks * REDUCE_BLOCK, {"block": (REDUCE_BLOCK, 1, 1), "grid": (blocks, 1)}
    x, sums = drv.mem_alloc(4 * threads), drv.mem_alloc(4 * blocks)
    methods = {"inline switch": [], "call switch (before)": ["-DSIM_SWITCH_CALL"]}
    runs = {}
    for method, opts in methods.items():
        bars = SourceModule(BARRIERS, options=opts).get_function("barriers")
        red = SourceModule((BENCH / "reduction.cu").read_text(), options=opts)
        red = red.get_function("block_sum")
        runs[method, 0] = lambda f=bars: f(np.int32(0), **shape)
        runs[method, 8] = lambda f=bars: f(np.int32(8), **shape)
        runs[method, "reduction"] = lambda f=red: f(x, sums, np.int32(threads), **shape)
    best = {}  # (method, run, workers) -> (wall s, CPU s), the least of the rounds
    for _ in range(1 + repeat):
        for (method, what), run in runs.items():
            for w in sorted({workers, 1}):
                with settings.changed(workers=w):
                    c0, t0 = time.process_time(), time.perf_counter()
                    run()
                    now = (time.perf_counter() - t0, time.process_time() - c0)
                old = best.get((method, what, w), now)
                best[method, what, w] = (min(old[0], now[0]), min(old[1], now[1]))

    def ns(method, what, w, i):
        if what == "reduction":
            return best[method, what, w][i] * 1e9 / (threads * 9)
        return (best[method, 8, w][i] - best[method, 0, w][i]) * 1e9 / (threads * 8)

    print(f"Barrier cost, ns a barrier per thread ({threads} threads in blocks of {REDUCE_BLOCK}, "
          f"least of {repeat}): wall on {workers} workers, wall on 1, CPU time per core")
    for method in methods:
        for what, label in (("loop", "a __syncthreads() alone"), ("reduction", "the reduction")):
            print(f"  {method:21} {label:24} {ns(method, what, workers, 0):7.2f} "
                  f"{ns(method, what, 1, 0):7.2f} {ns(method, what, 1, 1):7.2f}")
    new, old = (ns(m, "reduction", workers, 0) for m in methods)
    alone = ns("inline switch", "loop", workers, 0)
    cpu_new, cpu_old = (ns(m, "reduction", 1, 1) for m in methods)
    print(f"  the reduction's CPU time per barrier and thread: {cpu_old / cpu_new:.2f}x less than "
          f"before; on {workers} idle cores its wall time would be about "
          f"{cpu_new / workers:.2f} ns")
    return (f"  issue 9, at most {TARGET_BARRIER_NS:g} ns a barrier per thread on {workers} "
            f"workers: the reduction {new:.2f} ns (before: {old:.2f}) -> "
            f"{verdict(new <= TARGET_BARRIER_NS)}; a barrier alone {alone:.2f} ns -> "
            f"{verdict(alone <= TARGET_BARRIER_NS)} (CPU time per core, divided by the workers: "
            f"{cpu_new / workers:.2f} ns and {ns('inline switch', 'loop', 1, 1) / workers:.2f} ns)")


# ---------------------------------------------------------------- Numba's CUDA simulator

def numba_mandelbrot(size, max_iter, repeat, tmp):
    """Run the Mandelbrot kernel of bench/numba_sim.py (the course kernels written for Numba) on
    Numba's simulator, in a subprocess, ``repeat`` times; (report, counts) or (None, why)."""
    if importlib.util.find_spec("numba") is None:
        return None, "numba is not installed (pip install numba)"
    f32 = np.float32
    dx, dy = f32((X_MAX - X_MIN) / size), f32((Y_MAX - Y_MIN) / size)
    c_re = f32(X_MIN) + np.arange(size, dtype=f32) * dx   # as the course kernel computes c
    c_im = f32(Y_MIN) + np.arange(size, dtype=f32) * dy
    folder = Path(tmp) / f"numba-{size}"
    folder.mkdir(exist_ok=True)
    np.savez(folder / "in.npz", **{"mandelbrot.0": np.tile(c_re, (size, 1)),
                                   "mandelbrot.1": np.tile(c_im[:, None], (1, size)),
                                   "mandelbrot.2": np.array(max_iter)})
    times = []
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, str(BENCH / "numba_sim.py"), str(folder)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return None, "bench/numba_sim.py failed:\n" + proc.stderr[-2000:]
        times.append(json.loads((folder / "times.json").read_text())["mandelbrot"] / 1e3)
    counts = np.load(folder / "out.npz")["mandelbrot"]
    return {"times_s": times, "total_iterations": int(counts.astype(np.int64).sum()),
            "numba": importlib.metadata.version("numba")}, counts


# ---------------------------------------------------------------- report

def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average():
    try:
        return "{:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg())
    except OSError:
        return "unknown"


def compare(name_a, a, name_b, b):
    """Print how many pixels two iteration-count images share; True when they agree."""
    n = a.size
    equal = int((a == b).sum())
    off = int(np.abs(a.astype(np.int64) - b).max())
    ok = equal / n >= AGREE
    print(f"  {name_a + ' vs ' + name_b:38} {equal / n:9.4%} of {n} pixels equal "
          f"(largest difference {off} iterations) -> {'agree' if ok else 'DISAGREE'}")
    return ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=1024, help="Mandelbrot width and height (1024)")
    p.add_argument("--iters", type=int, default=256, help="Mandelbrot iteration limit (256)")
    p.add_argument("--repeat", type=int, default=7, help="timed rounds (7)")
    p.add_argument("--numpy-repeat", type=int, default=3, help="timed NumPy runs (3)")
    p.add_argument("--reduce-n", type=int, default=1 << 20, help="reduction size (1048576)")
    p.add_argument("--numba-size", type=int, default=128,
                   help="image size on Numba's simulator, scaled per pixel to --size (128)")
    p.add_argument("--numba-repeat", type=int, default=3, help="timed Numba launches (3)")
    p.add_argument("--numba-full", action="store_true",
                   help="run Numba's simulator on the full image (minutes)")
    p.add_argument("--no-numba", action="store_true", help="leave Numba's simulator out")
    a = p.parse_args(argv)
    w = h = a.size
    workers = settings.workers
    numba_size = a.size if a.numba_full else min(a.numba_size, a.size)

    print(f"CPU: {cpu_name()}, {os.cpu_count()} logical cores, {workers} simulator workers; "
          f"Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"load average at start: {load_average()}")
    print(f"Mandelbrot {w}x{h}, {a.iters} iterations, float32, [{X_MIN}, {X_MAX}] x "
          f"[{Y_MIN}, {Y_MAX}], blocks {BLOCK[0]}x{BLOCK[1]}; reduction of {a.reduce_n} floats, "
          f"{REDUCE_BLOCK} threads a block; medians of {a.repeat} rounds after a warm-up")
    print()

    with tempfile.TemporaryDirectory(prefix="sim-bench-") as tmp:
        # ---- compile (a cache of our own: the first compile is cold, the second cached)
        with settings.changed(cache_dir=str(Path(tmp) / "cache")):
            mandel_mod, m_cold, m_cached = timed_compile(
                '#line 1 "mandelbrot.cu"\n' + (ROOT / "cuda_src" / "mandelbrot.cu").read_text())
            reduce_mod, r_cold, r_cached = timed_compile(
                '#line 1 "bench/reduction.cu"\n' + (BENCH / "reduction.cu").read_text())
        cpp_mandelbrot, cpp_compile = serial_cpp()
        print(f"compile: simulator mandelbrot.cu {m_cold:.2f} s cold, {m_cached * 1e3:.1f} ms "
              f"cached; reduction.cu {r_cold:.2f} s cold, {r_cached * 1e3:.1f} ms cached; "
              f"serial C++ {cpp_compile:.2f} s (none of these counted below)")
        print()

        sim_full = SimMandelbrot(mandel_mod.get_function("mandelbrot"), w, h, a.iters)
        sim_small = (SimMandelbrot(mandel_mod.get_function("mandelbrot"), numba_size, numba_size,
                                   a.iters) if numba_size != a.size else sim_full)
        reduction = SimReduction(reduce_mod.get_function("block_sum"), a.reduce_n)
        with settings.changed(cache_dir=str(Path(tmp) / "cache")):
            barrier_verdict = barrier_costs(a.reduce_n, a.repeat, workers)
        print()
        used = min(workers, sim_full.blocks)
        cpp_out = {}

        def cpp_run(size):
            ms, cpp_out[size] = cpp_mandelbrot(size, size, a.iters)
            return ms

        many = workers > 1
        contenders = {}
        contenders[f"simulator, {used} workers"] = lambda: sim_full.run(None)
        if many:
            contenders["simulator, 1 worker"] = lambda: sim_full.run(1)
        contenders["serial C++ (g++ -O2, 1 core)"] = lambda: cpp_run(a.size)
        if used > 1:
            pair = f"serial C++, {used} images at once"
            contenders[pair] = lambda: cpp_mandelbrot(a.size, a.size, a.iters, copies=used)[0]
        if sim_small is not sim_full:
            contenders[f"simulator {numba_size}x{numba_size}, {min(workers, sim_small.blocks)} "
                       "workers"] = lambda: sim_small.run(None)
        red_name = f"reduction, {workers} workers"
        contenders[red_name] = lambda: reduction.run(None)
        if many:
            contenders["reduction, 1 worker"] = lambda: reduction.run(1)

        times = {name: [] for name in contenders}
        for round_ in range(1 + a.repeat):          # round 0 is the warm-up
            for name, run in contenders.items():
                ms = run()
                if round_:
                    times[name].append(ms)
        if numba_size != a.size:
            cpp_run(numba_size)

        it_np = None

        def numpy_run():
            nonlocal it_np
            it_np = mandelbrot_numpy(w, h, a.iters)

        times["NumPy (vectorized, float32)"] = [wall_ms(numpy_run) for _ in range(a.numpy_repeat)]
        med = {name: statistics.median(ms) for name, ms in times.items()}
        it_sim, it_cpp = sim_full.result(), cpp_out[a.size]

        # ---- Numba's simulator, in a subprocess
        numba_report, numba_counts = (None, "left out (--no-numba)") if a.no_numba else \
            numba_mandelbrot(numba_size, a.iters, a.numba_repeat, tmp)

    # ---- figures
    print(f"{'':36}{'median':>11}{'min':>11}{'runs':>6}")
    for name, ms in times.items():
        print(f"{name:36}{med[name]:>8.1f} ms{min(ms):>8.1f} ms{len(ms):>6}")
    print()

    t_sim, t_cpp = med[f"simulator, {used} workers"], med["serial C++ (g++ -O2, 1 core)"]
    t_sim1 = med["simulator, 1 worker"] if many else t_sim
    steps = int(it_cpp.astype(np.int64).sum())
    print(f"Mandelbrot: {steps / 1e6:.1f} million iterations in all, {steps / (w * h):.1f} a "
          f"pixel; serial C++ {t_cpp * 1e6 / steps:.2f} ns an iteration")
    print(f"  simulator ({used} workers) is {t_cpp / t_sim:.2f}x the speed of serial C++ and "
          f"{med['NumPy (vectorized, float32)'] / t_sim:.1f}x the speed of NumPy")
    per_core = t_sim * used
    print(f"  simulator per core, time x {used} workers: {per_core:7.1f} ms = "
          f"{per_core / t_cpp:.2f}x serial C++")
    if used > 1:
        t_pair = med[pair]
        print(f"  simulator per core against serial C++ on the same {used} cores at once "
              f"({used} images in {t_pair:.1f} ms): {per_core / t_pair:.2f}x")
        print(f"  cores this process got with {used} threads busy: {used * t_cpp / t_pair:.2f} "
              f"of {used} (serial C++: 1 image {t_cpp:.1f} ms, {used} at once {t_pair:.1f} ms)")
    if many:
        print(f"  simulator per core, on 1 worker: {t_sim1:.1f} ms = {t_sim1 / t_cpp:.2f}x "
              "serial C++")
    print()

    red = med[red_name]
    red1 = med["reduction, 1 worker"] if many else red
    first_pass = statistics.median(p[0] for p in reduction.pass_ms[None][1:])
    equal, nblocks, total, total_exact, rel = reduction.check()
    print(f"Reduction of {a.reduce_n} floats: {len(reduction.sizes) - 1} launches "
          f"({' -> '.join(map(str, reduction.sizes))}); with {workers} workers the first launch "
          f"takes {first_pass:.1f} ms of the {red:.1f} ms, "
          f"{first_pass * 1e6 / a.reduce_n:.0f} ns an element")
    print()

    numba_ok = None
    if numba_report is None:
        print(f"Numba's CUDA simulator: not measured: {numba_counts}")
    else:
        t_numba = statistics.median(numba_report["times_s"])
        pixels_ratio = (w * h) / (numba_size * numba_size)
        scaled = t_numba * pixels_ratio
        small_sim = med[next(n for n in contenders if n.startswith(f"simulator {numba_size}x"))] \
            if sim_small is not sim_full else t_sim
        print(f"Numba {numba_report['numba']} CUDA simulator (NUMBA_ENABLE_CUDASIM=1), the same "
              f"kernel with @cuda.jit, {numba_size}x{numba_size} pixels:")
        print(f"  measured: {t_numba:.2f} s (median of {len(numba_report['times_s'])}), "
              f"{t_numba * 1e6 / numba_size ** 2:.0f} us a pixel")
        if pixels_ratio != 1:
            per_iter = t_numba * steps / numba_report["total_iterations"]
            print(f"  scaled per pixel to {w}x{h} (x{pixels_ratio:.0f}): {scaled:.1f} s "
                  f"(scaled per iteration instead: {per_iter:.1f} s)")
            print(f"  at the same {numba_size}x{numba_size} size, both measured: the simulator "
                  f"{small_sim:.2f} ms, {t_numba * 1e3 / small_sim:.0f}x faster")
        speedup = scaled / (t_sim / 1e3)
        numba_ok = speedup >= TARGET_NUMBA
        print(f"  simulator at {w}x{h}: {t_sim:.1f} ms, {speedup:.0f}x faster than Numba's "
              f"simulator{' (scaled)' if pixels_ratio != 1 else ''}"
              + (f"; on 1 worker {t_sim1:.1f} ms, {scaled / (t_sim1 / 1e3):.0f}x" if many else ""))
    print(f"load average at end: {load_average()}")
    print()

    # ---- results agree
    print("Results:")
    ok = compare("simulator", it_sim, "serial C++", it_cpp)
    ok &= compare("simulator", it_sim, "NumPy", it_np)
    compare("serial C++", it_cpp, "NumPy", it_np)
    if numba_report is not None:
        label = f" ({numba_size}x{numba_size})" if numba_size != a.size else ""
        ok &= compare("Numba" + label, numba_counts, "simulator" + label, sim_small.result())
        compare("Numba" + label, numba_counts, "serial C++" + label, cpp_out[numba_size])
    red_ok = equal == nblocks and total_exact
    print(f"  {'reduction block sums vs NumPy tree':38} {equal} of {nblocks} equal bit for bit; "
          f"total {total:.6g} {'equals' if total_exact else 'DIFFERS FROM'} the same tree in NumPy,"
          f" {rel:.1e} from the float64 sum -> {'agree' if red_ok else 'DISAGREE'}")
    ok &= red_ok
    print()

    # ---- verdicts
    print("Verdicts:")
    print(f"  issue 2, simulator per core within {TARGET_PER_CORE:g}x of serial C++: "
          f"{per_core / t_cpp:.2f}x ({t_sim:.1f} ms x {used} workers vs {t_cpp:.1f} ms) -> "
          f"{verdict(per_core / t_cpp <= TARGET_PER_CORE)}")
    if used > 1:
        print(f"    load-independent checks: against {used} serial C++ images at once "
              f"{per_core / t_pair:.2f}x -> {verdict(per_core / t_pair <= TARGET_PER_CORE)}; "
              f"on 1 worker {t_sim1 / t_cpp:.2f}x -> {verdict(t_sim1 / t_cpp <= TARGET_PER_CORE)}")
    print(f"  issue 3, {a.reduce_n}-element reduction in at most {TARGET_REDUCTION_S:g} s: "
          f"{red / 1e3:.3f} s on {workers} workers -> {verdict(red / 1e3 <= TARGET_REDUCTION_S)}"
          + (f"; {red1 / 1e3:.3f} s on 1 worker -> {verdict(red1 / 1e3 <= TARGET_REDUCTION_S)}"
             if many else ""))
    if numba_ok is None:
        print(f"  issue 3, Mandelbrot at least {TARGET_NUMBA:g}x faster than Numba's simulator: "
              "NOT MEASURED")
    else:
        print(f"  issue 3, Mandelbrot at least {TARGET_NUMBA:g}x faster than Numba's simulator: "
              f"{speedup:.0f}x ({scaled:.1f} s{' scaled' if pixels_ratio != 1 else ''} vs "
              f"{t_sim:.1f} ms) -> {verdict(numba_ok)}")
    print(barrier_verdict)
    print(f"  results agree: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
