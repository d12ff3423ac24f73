"""Benchmark: every course kernel against the device's ceilings and against its peers.

    make bench                                    # = python bench/course_kernels.py
    python bench/course_kernels.py [--tiny] [--out DIR] [--repeat N] [--record]
    CUDA_COURSE_BACKEND=pycuda python bench/course_kernels.py --out /tmp/bench

Runs on the backend that ``helpers.backend`` picks (PyCUDA on a GPU, else the CPU simulator)
the kernels of the notebooks, with their launch configurations, at a size that fills the device:
vector_add (01), saxpy (02), mandelbrot (03), rgb_to_gray and rgb_to_gray_x16 (04),
iterate_sin (05), transpose_naive, transpose_tiled and transpose_padded (06), the one-launch sums
and the histograms of notebook 07 (``bench/sum_histogram.py``; the histograms on notebook 04's
photograph, as a learner has it, and tiled to a large image), the naive, tiled, register-tiled,
warp-tiled and async-copy matrix multiplies (08, ``bench/matmul_cases.py``: GFLOP/s against the FMA
ceiling and cuBLAS SGEMM), the tensor-core matrix multiplies of notebook 13
(``bench/tensor_core_cases.py``: TFLOP/s in FP16 and BF16 against cuBLAS and notebook 08's FP32
kernels), the softmaxes and the three attentions of notebook 14 (``bench/attention_cases.py``:
against ``torch.softmax`` and PyTorch's ``scaled_dot_product_attention``). It prints one Markdown
table and writes it as CSV, with a bar chart as PNG, to ``bench/out/`` (``--out``); ``--record``
also puts it into this backend's section of ``bench/RESULTS.md``. For each kernel:

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
  with masks, the sin loop, ``x.T.copy()``, ``x.sum()``, ``bincount``, ``a @ b``;
  ``bench/reference.py``). On the simulator: the serial C++ loop
  (``bench/serial/*.cpp``, g++ -O2, one core), NumPy, and Numba's CUDA simulator
  (``bench/numba_sim.py``, in a subprocess). A peer too slow for the full size runs on a part of
  the problem and is scaled per element; the notes under the table say which.

Every result, the course kernel's and each peer's, is checked against NumPy (on a sample for
the large problems); a wrong one prints WRONG instead of a figure, and the exit status is 1.
"""
from __future__ import annotations

import argparse
import datetime
import gc
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: bench, helpers

from bench import (ROOT, attention_cases, cases, matmul_cases, peers, results,  # noqa: E402
                   sum_histogram, tensor_core_cases)
from bench.measure import load_average, time_cpu, versions  # noqa: E402
from bench.reference import NUMPY, ArrayLibrary, SerialLibrary  # noqa: E402
from helpers.backend import BACKEND, device_summary  # noqa: E402

SIM = cases.SIM

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
    "fma": ((None, 4096), (1 << 15, 1024), (1 << 12, 64)),     # threads (None: 8 full waves), iters
    "transpose": ((8192, 8192), (1024, 1024), (77, 45)),        # width, height: notebook 06
    "photo": (None, None, (64, 48)),                           # crop of the photograph (None: all)
    "tiled": ((8192, 8192), (1024, 1024), (128, 96)),          # the photograph tiled: histogram
    "matmul": (4096, 256, 64),                                  # M = K = N: notebook 08
    "tensor_cores": (4096, 256, 128),     # M = K = N, a multiple of 128: notebook 13
    "softmax": ((8192, 4096), (256, 1024), (16, 100)),          # rows, cols: notebook 14
    "attention": ((32, 4096), (1, 128), (1, 64)),               # heads, n (d = 64): notebook 14
}
# Most elements NumPy runs on; on more, it runs on a part and its time is scaled per element.
NUMPY_MAX = {"vector_add": 1 << 24, "saxpy": 1 << 24, "gray": 1 << 22, "mandelbrot": 1 << 18,
             "iterate_sin": 1 << 20, "transpose": 1 << 22, "matmul": matmul_cases.NUMPY_MAX,
             "sum": 1 << 28, "histogram": 1 << 27,   # a reduction's part
             "histogram_range": 1 << 27, "histogram_tiled": 1 << 27,  # is no part of its result
             **tensor_core_cases.NUMPY_MAX, **attention_cases.NUMPY_MAX}
NUMBA_MAX, NUMBA_MAX_TINY = 1024, 128   # Numba's simulator: ~0.3 ms a thread
PEER_COLUMNS = ("serial C++", "NumPy", "Numba sim") if SIM else ("NumPy", "CuPy", "PyTorch")
CPU_PEERS = ("NumPy", "serial C++")     # timed by the wall clock; the others like the kernels


def fresh(inputs):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in inputs)


def ratio(got, n, ms):
    """A peer's cell: its time for n elements over the course kernel's, or a word."""
    if isinstance(got, str):
        return got
    if not got[1]:
        return "WRONG"
    return got[0] * n / ms if ms else ""


class Run:
    """One run of the benchmark: the peers, NumPy's result for each operation (which checks the
    kernels and the peers alike), the peers' figures (rgb_to_gray and rgb_to_gray_x16 share
    theirs), and the notes that go under the table."""

    def __init__(self, peers, repeat, numpy_max=NUMPY_MAX):
        self.peers, self.repeat, self.numpy_max = peers, repeat, numpy_max
        self.references, self.peer_figures, self.notes = {}, {}, []

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    def reference(self, case):
        """(index, NumPy's result on that part of the problem) for the case's operation."""
        if case.op not in self.references:
            inputs, index = case.sample(self.numpy_max[case.op])
            self.references[case.op] = index, (case.numpy_op or case.xp_op)(NUMPY, *inputs)
        return self.references[case.op]

    def measure_peer(self, case, name, peer):
        """(ms per element, whether the result matched NumPy's, elements it ran on) of one peer.
        NumPy runs on NumPy's part of the problem, the others on the whole problem."""
        index, want = self.reference(case)
        if name in CPU_PEERS:
            if name == "NumPy":
                inputs, index = case.sample(self.numpy_max[case.op])
                op = lambda *a: (case.numpy_op or case.xp_op)(NUMPY, *a)  # noqa: E731
            else:
                inputs, _ = case.sample(case.n)
                op = lambda *a: case.serial(peer, *a)  # noqa: E731
            got = np.asarray(op(*fresh(inputs)))   # fresh copies: saxpy's serial loop is in place
            work = fresh(inputs)
            t = time_cpu(lambda: op(*work), self.repeat)
        else:
            inputs, _ = case.sample(case.n)
            dev = tuple(peer.put(a) if isinstance(a, np.ndarray) else a for a in inputs)
            got = peer.get(case.xp_op(peer, *dev))
            t, _ = cases.time_launches(lambda: case.xp_op(peer, *dev), self.repeat,
                                       sync=peer.sync)
            del dev
        ok = bool(case.check(got if name == "NumPy" else got[index], want))
        size = case.count(inputs) if case.count else got.size
        return t.median_ms / size, ok, size

    def measure_peers(self, case):
        """Each peer's figures for the case's operation, once an operation."""
        if case.op in self.peer_figures:
            return self.peer_figures[case.op]
        figures = self.peer_figures[case.op] = {}
        for name, peer in self.peers.items():
            try:
                figures[name] = ("-" if name in case.no_peer else peer if isinstance(peer, str)
                                 else self.measure_peer(case, name, peer))
            except Exception as e:   # a peer's failure must not lose the other figures
                figures[name] = "error"
                self.note(f"{case.op}: {name} failed: {type(e).__name__}: {e}")
        if isinstance(figures["NumPy"], tuple) and figures["NumPy"][2] < case.n:
            self.note(f"{case.op}: NumPy ran on {figures['NumPy'][2]:,} of the {case.n:,} "
                      "elements, its time scaled per element")
        peers.free_memory(p for p in self.peers.values() if isinstance(p, ArrayLibrary))
        return figures

    def case(self, case):
        """The table's row for one course kernel: checked, timed, and against each peer."""
        row = results.Row(case.kernel, case.size)
        index, want = self.reference(case)
        case.launch()
        row.ok = bool(case.check(np.asarray(case.result()[index]), want))
        t, row.batch = cases.time_launches(case.launch, self.repeat)
        row.runs = len(t.times_ms)
        if row.ok:
            row.ms = t.median_ms
            row.rate, row.unit, row.pct = case.rate(t.median_ms)
        for n in case.notes:
            self.note(n)
        for name, got in self.measure_peers(case).items():
            row.peers[name] = ratio(got, case.n, row.ms)
        return row

    def numba_column(self, kept, limit):
        """Numba's CUDA simulator on a small part of each operation, checked against NumPy:
        op -> (ms per element, ok, elements) or a word."""
        ops = {c.op: c for c in kept if "Numba sim" not in c.no_peer}
        inputs = {op: case.sample(limit)[0] for op, case in ops.items()}
        try:
            times, outs = peers.numba_simulator(inputs)
        except peers.NumbaSimFailed as e:
            if str(e) == "not installed":
                return dict.fromkeys(ops, "not installed")
            self.note("Numba sim failed: " + str(e).strip().splitlines()[-1])
            return dict.fromkeys(ops, "failed")
        figures = {}
        for op, case in ops.items():
            want = (case.numpy_op or case.xp_op)(NUMPY, *inputs[op])
            size = case.count(inputs[op]) if case.count else want.size
            figures[op] = (times[op][0] / size, bool(case.check(outs[op], want)), size)
        self.note("Numba sim: Numba's CUDA simulator on " + ", ".join(
            f"{op} {f[2]:,}" for op, f in figures.items()) + " elements (one run each), "
            "time scaled per element")
        return figures


def find_peers():
    """name -> an ArrayLibrary, the serial library, or why it is missing."""
    found = {"NumPy": NUMPY}
    if SIM:
        try:
            found["serial C++"] = SerialLibrary()
        except (OSError, subprocess.CalledProcessError) as e:
            found["serial C++"] = "not installed"
            print(f"serial C++ not built: {e}")
        return found
    for name, make in peers.GPU_PEERS.items():
        try:
            found[name] = make()
        except ImportError:
            found[name] = "not installed"
        except Exception as e:  # installed, but no usable device (or a broken install)
            found[name] = "unusable"
            print(f"{name}: {type(e).__name__}: {e}")
    return found


def makers(size, ceil):
    """Each course kernel's maker, in the table's order (notebooks 01 to 08, then 13 and 14)."""
    return [*(lambda make=make, key=key: make(size[key], ceil)
              for make, key in zip(cases.MAKERS, cases.SIZE_OF)),
            *(lambda k=k: matmul_cases.case(k, size["matmul"], ceil)
              for k in matmul_cases.KERNELS),
            *sum_histogram.makers(size, ceil), *tensor_core_cases.makers(size["tensor_cores"]),
            *attention_cases.makers(size, ceil)]


def measure_all(run, size, tiny):
    """The ceilings' rows and one row per course kernel."""
    ceil = cases.Ceilings(size["vector"], size["fma"], run.repeat)
    rows, kept = [], []
    for make in makers(size, ceil):
        case = make()
        rows.append(run.case(case))
        print(f"  {case.kernel}: measured", file=sys.stderr, flush=True)
        if SIM:
            kept.append(case)    # small on the simulator: kept for Numba's simulator below
        else:                    # (so there it frees nothing: 50 ms a case at --tiny)
            del case
            gc.collect()         # frees the case's device memory before the next one
    if SIM:
        numba = run.numba_column(kept, NUMBA_MAX_TINY if tiny else NUMBA_MAX)
        for r, case in zip(rows, kept):
            r.peers["Numba sim"] = ratio(numba.get(case.op, "-"), case.n, r.ms)
    return ceil.rows, rows


def explanation(repeat):
    return [f"time/launch: median of {repeat} batches of back-to-back launches, each batch "
            "between two events and divided by its size (Python launch overhead not counted)"
            + (" (simulator: the events read the CPU clock)" if SIM else ""),
            "rate: GB/s counts each byte read or written once (copy: read + write); vs X: X's "
            "time / the course kernel's, same run (> 1: the course kernel is faster)"]


def header(argv):
    """(title, command): the device and date, and the command that reproduces the run."""
    info = device_summary()
    device = info["device"] + (f", {info['workers']} worker threads" if SIM else
                               f", compute capability {info['compute_capability']}, "
                               f"{info['multiprocessors']} SMs, {info['memory_gib']} GiB")
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    command = " ".join(["CUDA_COURSE_BACKEND=" + BACKEND, "python", "bench/course_kernels.py",
                        *(arg for arg in argv if arg != "--record")])
    return f"{BACKEND}: {device}; {date}", command


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny sizes: checks that the benchmark runs")
    p.add_argument("--out", default=str(ROOT / "bench" / "out"), help="folder for the CSV and PNG")
    p.add_argument("--repeat", type=int, default=None, help="timed batches (GPU 10, simulator 5)")
    p.add_argument("--record", action="store_true",
                   help="also write the table into this backend's section of bench/RESULTS.md")
    a = p.parse_args(argv)
    if a.tiny and a.record:
        p.error("--tiny checks that the benchmark runs: its figures are not for RESULTS.md")
    return a


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    size = {k: v[2 if a.tiny else 1 if SIM else 0] for k, v in SIZES.items()}
    repeat = a.repeat or (3 if a.tiny else 5 if SIM else 10)
    title, command = header(argv)
    print(f"Course kernels on {title}")
    print(f"command: {command}", flush=True)
    load_start = load_average()
    run = Run(find_peers(), repeat)
    print("versions:", ", ".join(versions()))
    print(f"load average at start: {load_start}\n", flush=True)

    ceiling_rows, rows = measure_all(run, size, a.tiny)
    text = results.table(ceiling_rows + rows, PEER_COLUMNS)
    run.notes += [line for line in [
        matmul_cases.summary(rows),
        tensor_core_cases.summary(rows, size["tensor_cores"], size["matmul"])] if line]
    print(text + "\n\n" + "\n".join(explanation(repeat) + run.notes))
    print(f"load average at end: {load_average()}")
    stem = Path(a.out) / f"course_kernels-{BACKEND}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    results.write_csv(stem.with_suffix(".csv"), ceiling_rows + rows, PEER_COLUMNS)
    results.plot(stem.with_suffix(".png"), rows, PEER_COLUMNS, f"Course kernels on {title}")
    print(f"\nwrote {stem}.csv and {stem}.png")
    if a.record:
        section = (f"Course kernels on {title}.  \nCommand, from the repository root: `{command}` "
                   f"({', '.join(versions())}); load average {load_start} at the start.\n\n"
                   + text + "\n\n" + "\n".join(f"- {n}" for n in run.notes))
        print(f"wrote {results.record(f'course_kernels on {BACKEND}', section)}")
    ok = all(r.ok and not {"WRONG", "error"} & set(r.peers.values())
             for r in ceiling_rows + rows)
    if not ok:
        print("SOME RESULTS ARE WRONG OR FAILED (see WRONG and error above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
