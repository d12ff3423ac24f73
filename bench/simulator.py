"""Benchmark: the course's CPU simulator against its speed targets, in one run.

    python bench/simulator.py [--size 1024] [--iters 256] [--repeat 7] [--numba-size 128]
                              [--numba-full] [--no-numba] [--reduce-n 1048576] [--record]

Prints figures, side by side, then a verdict (MET / MISSED) for each target:

1. Per core as fast as serial code: ``cuda_src/mandelbrot.cu`` (1024x1024 pixels, 256
   iterations, float32, 16x16 blocks) on the simulator, against the same loop as serial C++
   (``bench/serial/mandelbrot.cpp``, built with ``g++ -O2`` at run time and called through
   ctypes) and against NumPy (the same float32 arithmetic on whole arrays,
   ``bench/reference.py``). Target: the simulator's time per core (its time x the worker threads
   it used) within 2x of the serial C++ loop. The same per-core figure measured on one worker is
   printed too: on a loaded machine a 2-worker time x 2 overstates the cost. Also the
   simulator's compile time, cold (an empty cache) and cached.
2. Barriers cheap enough: a 1M-element shared-memory tree reduction (``bench/reduction.cu``: 256
   threads a block, ``__syncthreads()`` between steps; launched on the block sums until one
   value is left, 1M -> 4096 -> 16 -> 1) on the simulator with all its workers and with one.
   Target: at most 0.03 s (issue 34; 0.15 s before the kernel ran as loops, compile/split.py).
3. Far faster than Numba's CUDA simulator, running the same Mandelbrot kernel written for Numba
   (``bench/numba_sim.py``, run in a subprocess with ``NUMBA_ENABLE_CUDASIM=1``). Numba's
   simulator needs minutes for the full image, so by default it runs a smaller image of the same
   region (``--numba-size``, 128x128) and its time is scaled by the number of pixels; both
   figures are printed, and ``--numba-full`` runs the full size instead. Target: the simulator
   at least 500x faster.
4. A barrier cheap enough for each thread: the cost of a ``__syncthreads()`` in a kernel run as
   loops over its threads and with fibers (the inline switch and the call switch used before),
   side by side (``bench/barriers.py``). Target: at most 5 ns.
5. The results agree: the simulator's iteration counts against serial C++, NumPy and Numba,
   pixel by pixel, every pixel equal. The simulator fuses ``a*b + c`` into one multiply-add as
   nvcc does (its default ``--fmad=true``) and the others do not, which moves the count of a few
   pixels near the set's edge, where a last bit decides; so these are compared with the kernel
   built with ``--fmad=false``, and the default build against it is printed beside them (the
   share of pixels that fusing changes). The reduction's block sums against NumPy doing the same
   tree in the same order (bit for bit), and its total against a float64 sum.

Times are wall-clock medians of ``--repeat`` rounds after a warm-up round, compile time excluded.
The simulator's launches are synchronous, so ``time.perf_counter()`` around a launch times it.
Contenders take turns within each round, so that other work on a shared machine slows them
alike; the load average is printed at the start and the end. The simulator is used explicitly
(``helpers.sim``), whatever backend the environment would pick, with a compile cache of its own
in a temporary directory (so the cold compile is really cold and the user's cache is untouched;
``--user-cache`` compiles into the user's instead, as the test of this script does).
``--record`` also writes what it prints into ``bench/RESULTS.md``. Exit status 1 when results
disagree; a missed target is reported, not an error.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: bench, helpers

from bench import BENCH, CUDA_SRC, read_source, reference, results  # noqa: E402
from bench.barriers import barrier_costs  # noqa: E402
from bench.measure import load_average, wall_ms  # noqa: E402
from bench.simulator_kernels import (BLOCK, REDUCE_BLOCK, X_MAX, X_MIN, Y_MAX, Y_MIN,  # noqa: E402
                                     SimMandelbrot, SimReduction, numba_mandelbrot, numpy_image,
                                     serial_images, timed_compile)
from helpers.sim import driver as drv  # noqa: E402
from helpers.sim.compiler import SourceModule  # noqa: E402
from helpers.sim.settings import settings  # noqa: E402

TARGET_PER_CORE = 2.0        # simulator per core within 2x of serial C++
TARGET_REDUCTION_S = 0.03    # 1M-element reduction in at most 0.03 s, on every worker
TARGET_NUMBA = 500.0         # at least 500x faster than Numba's CUDA simulator


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def compare(name_a, a, name_b, b, judged=True):
    """Print how many pixels two iteration-count images share; True when every one is equal
    (``judged=False``: the share only, no verdict)."""
    n = a.size
    equal = int((a == b).sum())
    off = int(np.abs(a.astype(np.int64) - b).max())
    ok = equal == n
    said = ("agree" if ok else "DISAGREE") if judged else "FMA contraction, as nvcc's"
    print(f"  {name_a + ' vs ' + name_b:48} {equal / n:9.4%} of {n} pixels equal "
          f"(largest difference {off} iterations) -> {said}")
    return ok


# ---------------------------------------------------------------- the run

class Run:
    """One run: compile, take turns timing every contender, then print figures and verdicts."""

    def __init__(self, a):
        self.a, self.size, self.workers = a, a.size, settings.workers
        self.many = self.workers > 1
        self.numba_size = a.size if a.numba_full else min(a.numba_size, a.size)

    def compile(self, cache):
        """The simulator's kernels (into ``cache``: the first compile is cold when it is empty,
        the second cached) and the serial C++ library."""
        with settings.changed(cache_dir=cache):
            mandel, m_cold, m_cached = timed_compile(read_source(CUDA_SRC / "mandelbrot.cu"))
            reduce, r_cold, r_cached = timed_compile(read_source(BENCH / "reduction.cu"))
            unfused = SourceModule(read_source(CUDA_SRC / "mandelbrot.cu"),
                                   options=["--fmad=false"]).get_function("mandelbrot")
        self.serial = reference.SerialLibrary()
        print(f"compile: simulator mandelbrot.cu {m_cold:.2f} s cold, {m_cached * 1e3:.1f} ms "
              f"cached; reduction.cu {r_cold:.2f} s cold, {r_cached * 1e3:.1f} ms cached; "
              f"serial C++ {self.serial.compile_s:.2f} s (none of these counted below)\n")
        kernel = mandel.get_function("mandelbrot")
        self.sim_full = SimMandelbrot(kernel, self.size, self.size, self.a.iters)
        self.sim_small = self.sim_full if self.numba_size == self.size else SimMandelbrot(
            kernel, self.numba_size, self.numba_size, self.a.iters)
        self.reduction = SimReduction(reduce.get_function("block_sum"), self.a.reduce_n)
        # for the comparisons with the contenders that do not fuse: run once, not timed
        self.unfused = {n: SimMandelbrot(unfused, n, n, self.a.iters)
                        for n in {self.size, self.numba_size}}
        self.used = min(self.workers, self.sim_full.blocks)

    def contenders(self):
        """name -> run() -> ms, in the order they take turns."""
        a, cpp_out = self.a, {}
        self.cpp_out = cpp_out

        def cpp_run(size):
            ms, cpp_out[size] = serial_images(self.serial, size, a.iters)
            return ms

        self.names = {"sim": f"simulator, {self.used} workers",
                      "cpp": "serial C++ (g++ -O2, 1 core)",
                      "pair": f"serial C++, {self.used} images at once",
                      "reduction": f"reduction, {self.workers} workers",
                      "small": f"simulator {self.numba_size}x{self.numba_size}, "
                               f"{min(self.workers, self.sim_small.blocks)} workers"}
        runs = {self.names["sim"]: lambda: self.sim_full.run(None)}
        if self.many:
            runs["simulator, 1 worker"] = lambda: self.sim_full.run(1)
        runs[self.names["cpp"]] = lambda: cpp_run(a.size)
        if self.used > 1:
            runs[self.names["pair"]] = lambda: serial_images(self.serial, a.size, a.iters,
                                                             copies=self.used)[0]
        if self.sim_small is not self.sim_full:
            runs[self.names["small"]] = lambda: self.sim_small.run(None)
        runs[self.names["reduction"]] = lambda: self.reduction.run(None)
        if self.many:
            runs["reduction, 1 worker"] = lambda: self.reduction.run(1)
        return runs

    def measure(self):
        """Rounds of every contender in turn (round 0 warms up), then NumPy and Numba."""
        a, runs = self.a, self.contenders()
        self.times = {name: [] for name in runs}
        for round_ in range(1 + a.repeat):
            for name, run in runs.items():
                ms = run()
                if round_:
                    self.times[name].append(ms)
        if self.numba_size != a.size:                # serial C++ at Numba's size, to compare
            self.cpp_out[self.numba_size] = serial_images(self.serial, self.numba_size,
                                                          a.iters)[1]
        numpy_out = []
        self.times["NumPy (vectorized, float32)"] = [
            wall_ms(lambda: numpy_out.append(numpy_image(a.size, a.iters)))
            for _ in range(a.numpy_repeat)]
        self.it_np = numpy_out[-1]
        self.med = {name: statistics.median(ms) for name, ms in self.times.items()}
        self.it_sim, self.it_cpp = self.sim_full.result(), self.cpp_out[a.size]
        self.numba, self.numba_counts = (None, "left out (--no-numba)") if a.no_numba else \
            numba_mandelbrot(self.numba_size, a.iters, a.numba_repeat)

    def print_times(self):
        print(f"{'':36}{'median':>11}{'min':>11}{'runs':>6}")
        for name, ms in self.times.items():
            print(f"{name:36}{self.med[name]:>8.1f} ms{min(ms):>8.1f} ms{len(ms):>6}")
        print()

    def print_mandelbrot(self):
        med, used, size = self.med, self.used, self.size
        self.t_sim, self.t_cpp = med[self.names["sim"]], med[self.names["cpp"]]
        self.t_sim1 = med["simulator, 1 worker"] if self.many else self.t_sim
        self.steps = int(self.it_cpp.astype(np.int64).sum())
        print(f"Mandelbrot: {self.steps / 1e6:.1f} million iterations in all, "
              f"{self.steps / size ** 2:.1f} a pixel; serial C++ "
              f"{self.t_cpp * 1e6 / self.steps:.2f} ns an iteration")
        print(f"  simulator ({used} workers) is {self.t_cpp / self.t_sim:.2f}x the speed of serial "
              f"C++ and {med['NumPy (vectorized, float32)'] / self.t_sim:.1f}x the speed of NumPy")
        self.per_core = self.t_sim * used
        print(f"  simulator per core, time x {used} workers: {self.per_core:7.1f} ms = "
              f"{self.per_core / self.t_cpp:.2f}x serial C++")
        if used > 1:
            self.t_pair = t_pair = med[self.names["pair"]]
            print(f"  simulator per core against serial C++ on the same {used} cores at once "
                  f"({used} images in {t_pair:.1f} ms): {self.per_core / t_pair:.2f}x")
            print(f"  cores this process got with {used} threads busy: "
                  f"{used * self.t_cpp / t_pair:.2f} of {used} (serial C++: 1 image "
                  f"{self.t_cpp:.1f} ms, {used} at once {t_pair:.1f} ms)")
        if self.many:
            print(f"  simulator per core, on 1 worker: {self.t_sim1:.1f} ms = "
                  f"{self.t_sim1 / self.t_cpp:.2f}x serial C++")
        print()

    def print_reduction(self):
        r = self.reduction
        self.red = self.med[self.names["reduction"]]
        self.red1 = self.med["reduction, 1 worker"] if self.many else self.red
        first_pass = statistics.median(p[0] for p in r.pass_ms[None][1:])
        print(f"Reduction of {self.a.reduce_n} floats: {len(r.sizes) - 1} launches "
              f"({' -> '.join(map(str, r.sizes))}); with {self.workers} workers the first launch "
              f"takes {first_pass:.1f} ms of the {self.red:.1f} ms, "
              f"{first_pass * 1e6 / self.a.reduce_n:.0f} ns an element\n")

    def print_numba(self):
        self.numba_ok = None
        if self.numba is None:
            print(f"Numba's CUDA simulator: not measured: {self.numba_counts}")
            return
        n, size, t_sim = self.numba_size, self.size, self.t_sim
        t_numba = statistics.median(self.numba["times_s"])
        pixels_ratio = size ** 2 / n ** 2
        self.scaled = scaled = t_numba * pixels_ratio
        print(f"Numba {self.numba['numba']} CUDA simulator (NUMBA_ENABLE_CUDASIM=1), the same "
              f"kernel with @cuda.jit, {n}x{n} pixels:")
        print(f"  measured: {t_numba:.2f} s (median of {len(self.numba['times_s'])}), "
              f"{t_numba * 1e6 / n ** 2:.0f} us a pixel")
        if pixels_ratio != 1:
            small_sim = self.med[self.names["small"]]
            per_iter = t_numba * self.steps / self.numba["total_iterations"]
            print(f"  scaled per pixel to {size}x{size} (x{pixels_ratio:.0f}): {scaled:.1f} s "
                  f"(scaled per iteration instead: {per_iter:.1f} s)")
            print(f"  at the same {n}x{n} size, both measured: the simulator "
                  f"{small_sim:.2f} ms, {t_numba * 1e3 / small_sim:.0f}x faster")
        self.speedup = scaled / (t_sim / 1e3)
        self.numba_ok = self.speedup >= TARGET_NUMBA
        print(f"  simulator at {size}x{size}: {t_sim:.1f} ms, {self.speedup:.0f}x faster than "
              f"Numba's simulator{' (scaled)' if pixels_ratio != 1 else ''}"
              + (f"; on 1 worker {self.t_sim1:.1f} ms, {scaled / (self.t_sim1 / 1e3):.0f}x"
                 if self.many else ""))

    def results_agree(self):
        print("Results (simulator --fmad=false: the kernel built without fused multiply-adds):")
        unfused = {}
        for n, sim in self.unfused.items():
            sim.run(None)
            unfused[n] = sim.result()
        ok = compare("simulator --fmad=false", unfused[self.size], "serial C++", self.it_cpp)
        ok &= compare("simulator --fmad=false", unfused[self.size], "NumPy", self.it_np)
        ok &= compare("serial C++", self.it_cpp, "NumPy", self.it_np)
        compare("simulator", self.it_sim, "simulator --fmad=false", unfused[self.size],
                judged=False)
        if self.numba is not None:
            n = self.numba_size
            label = f" ({n}x{n})" if n != self.size else ""
            ok &= compare("Numba" + label, self.numba_counts, "simulator --fmad=false" + label,
                          unfused[n])
            ok &= compare("Numba" + label, self.numba_counts, "serial C++" + label,
                          self.cpp_out[n])
        equal, nblocks, total, total_exact, rel = self.reduction.check()
        red_ok = equal == nblocks and total_exact
        print(f"  {'reduction block sums vs NumPy tree':48} {equal} of {nblocks} equal bit for "
              f"bit; total {total:.6g} {'equals' if total_exact else 'DIFFERS FROM'} the same "
              f"tree in NumPy, {rel:.1e} from the float64 sum -> "
              f"{'agree' if red_ok else 'DISAGREE'}\n")
        return ok and red_ok

    def print_verdicts(self, ok):
        used, per_core, t_cpp, t_sim = self.used, self.per_core, self.t_cpp, self.t_sim
        print("Verdicts:")
        print(f"  simulator per core within {TARGET_PER_CORE:g}x of serial C++: "
              f"{per_core / t_cpp:.2f}x ({t_sim:.1f} ms x {used} workers vs {t_cpp:.1f} ms) -> "
              f"{verdict(per_core / t_cpp <= TARGET_PER_CORE)}")
        if used > 1:
            pair, one = per_core / self.t_pair, self.t_sim1 / t_cpp
            print(f"    load-independent checks: against {used} serial C++ images at once "
                  f"{pair:.2f}x -> {verdict(pair <= TARGET_PER_CORE)}; "
                  f"on 1 worker {one:.2f}x -> {verdict(one <= TARGET_PER_CORE)}")
        red, red1 = self.red / 1e3, self.red1 / 1e3
        print(f"  {self.a.reduce_n}-element reduction in at most {TARGET_REDUCTION_S:g} s: "
              f"{red:.3f} s on {self.workers} workers -> {verdict(red <= TARGET_REDUCTION_S)}"
              + (f" ({red1:.3f} s on 1 worker)" if self.many else ""))
        target = f"  Mandelbrot at least {TARGET_NUMBA:g}x faster than Numba's simulator: "
        if self.numba_ok is None:
            print(target + "NOT MEASURED")
        else:
            scaled = " scaled" if self.numba_size != self.size else ""
            print(target + f"{self.speedup:.0f}x ({self.scaled:.1f} s{scaled} vs {t_sim:.1f} ms)"
                  f" -> {verdict(self.numba_ok)}")
        print(self.barrier_verdict)
        print(f"  results agree: {'yes' if ok else 'NO'}")


def parse(argv):
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
    p.add_argument("--user-cache", action="store_true",
                   help="compile into the user's cache (CUDA_COURSE_CACHE_DIR), not a new empty "
                        "one: quicker, but the compile is cold only the first time")
    p.add_argument("--record", action="store_true",
                   help="also write what it prints into bench/RESULTS.md")
    return p.parse_args(argv)


def run_all(a):
    """Every measurement, figure and verdict; True when the results agree."""
    run = Run(a)
    print(f"{drv.Device(0).name()}, {os.cpu_count()} logical cores, {run.workers} simulator "
          f"workers; Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"load average at start: {load_average()}")
    print(f"Mandelbrot {a.size}x{a.size}, {a.iters} iterations, float32, [{X_MIN}, {X_MAX}] x "
          f"[{Y_MIN}, {Y_MAX}], blocks {BLOCK[0]}x{BLOCK[1]}; reduction of {a.reduce_n} floats, "
          f"{REDUCE_BLOCK} threads a block; medians of {a.repeat} rounds after a warm-up\n")
    with tempfile.TemporaryDirectory(prefix="sim-bench-") as tmp:
        cache = settings.cache_dir if a.user_cache else str(Path(tmp) / "cache")
        run.compile(cache)
        with settings.changed(cache_dir=cache):
            run.barrier_verdict = barrier_costs(a.reduce_n, a.repeat, run.workers, verdict)
        print()
        run.measure()
    run.print_times()
    run.print_mandelbrot()
    run.print_reduction()
    run.print_numba()
    print(f"load average at end: {load_average()}\n")
    ok = run.results_agree()
    run.print_verdicts(ok)
    return ok


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    ok = results.run_and_record(lambda: run_all(a), "simulator", "bench/simulator.py", argv,
                                a.record)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
