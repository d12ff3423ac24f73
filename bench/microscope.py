"""Benchmark: the simulator's memory trace against Nsight Compute on a GPU, and what tracing costs.

    python bench/microscope.py                 # the comparison table (simulator run + stored GPU figures)
    python bench/microscope.py --collect-gpu   # on a GPU machine with ncu: measure, write the JSON

The course's kernels (naive and fast grayscale, naive, tiled and padded transpose, the reduction
ladder, naive and tiled matrix multiply) run once each on the simulator under
`helpers.sim.microscope.trace.trace()`, which counts what Nsight Compute counts on a GPU (its metric names in
brackets):

- global loads and stores: requests [l1tex__t_requests_pipe_lsu_mem_global_op_ld/st.sum] and
  32-byte sectors [l1tex__t_sectors_pipe_lsu_mem_global_op_ld/st.sum], compared as sectors per
  request;
- shared memory: bank conflicts [l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st.sum],
  compared as conflicts per shared instruction [smsp__sass_inst_executed_op_shared_ld/st.sum],
  and wavefronts [l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st.sum] for information.

The GPU figures come from `--collect-gpu`: the same launches (same sizes, same arguments) in a
subprocess under `ncu --metrics ... --csv`, stored in bench/data/ncu_h200.json with the command,
the device and the date. A figure agrees when the simulator's is within 5% of the GPU's; a
conflicts-per-request figure below 0.05 counts as zero (a conflict-free kernel can show a handful
of conflicts on a GPU from other traffic in the same banks).

Last, the cost of tracing: a 1-megapixel rgb_to_gray launch traced against the same launch
untraced, in turns, --repeat times each with all worker threads; the fastest of each (the run
other programs disturbed least), in wall-clock time and in CPU time. Target: at most 10x.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # before importing helpers: this copy's, not an installed one's

from helpers.sim.microscope.trace import NCU_METRICS  # noqa: E402
DATA = ROOT / "bench" / "data" / "ncu_h200.json"
TOLERANCE = 0.05
# Below ZERO a figure counts as none. Nsight Compute's bank-conflict counters also count wavefronts
# the hardware replays for reasons other than the instruction's own addresses: on the H200 they
# gave reduce_sequential, whose every shared load touches 32 different banks, 1,570 conflicts in
# 102,400 loads (0.015 a request; 0.01 in an earlier run). The simulator counts what the
# addresses cause, as the CUDA guide defines a bank conflict.
ZERO = 0.05
TARGET_OVERHEAD = 10.0
RATIOS = [("global_ld", "sectors/request, global loads"),
          ("global_st", "sectors/request, global stores"),
          ("shared_ld", "bank conflicts/request, shared loads"),
          ("shared_st", "bank conflicts/request, shared stores")]
METRICS = NCU_METRICS  # ours -> Nsight Compute's (one table, the simulator's)


# ---- the launches, the same on both sides ------------------------------------------------------
def _blocks(n, size):
    return (n + size - 1) // size


def cases(gpuarray, scale=1):
    """(file, kernel, arguments, block, grid) of every launch compared; scale < 1 shrinks them
    (for a quick check: the figures per request hardly depend on the size)."""
    rng = np.random.default_rng(3)
    i32, f32 = np.int32, np.float32
    side = max(64, int(1024 * scale))
    img = gpuarray.to_gpu(rng.integers(0, 256, (side, side, 3), dtype=np.uint8))
    gray = gpuarray.empty((side, side), np.uint8)
    pixels = side * side
    yield "grayscale.cu", "rgb_to_gray", (img, gray, i32(side), i32(side)), (32, 8, 1), \
        (_blocks(side, 32), _blocks(side, 8))
    yield "grayscale.cu", "rgb_to_gray_x16", (img, gray, i32(pixels)), (256, 1, 1), \
        (_blocks(pixels // 16 + 1, 256), 1)
    a = gpuarray.to_gpu(rng.random((side, side), dtype=f32))
    at = gpuarray.empty((side, side), f32)
    for kernel in ("transpose_naive", "transpose_tiled", "transpose_padded"):
        yield "transpose.cu", kernel, (a, at, i32(side), i32(side)), (32, 8, 1), \
            (_blocks(side, 32), _blocks(side, 32))
    n = pixels
    x = gpuarray.to_gpu(rng.random(n, dtype=f32))
    sums = gpuarray.empty(_blocks(n, 256), f32)
    for kernel, per_block in (("reduce_interleaved_divergent", 256), ("reduce_interleaved", 256),
                              ("reduce_sequential", 256), ("reduce_first_add", 512),
                              ("reduce_warp_shuffle", 512)):
        yield "reduction.cu", kernel, (x, sums, i32(n)), (256, 1, 1), (_blocks(n, per_block), 1)
    yield "reduction.cu", "reduce_grid_stride", (x, gpuarray.zeros(1, f32), i32(n)), \
        (256, 1, 1), (264, 1)
    m = max(32, side // 4)
    p, q = gpuarray.to_gpu(rng.random((m, m), dtype=f32)), gpuarray.to_gpu(rng.random((m, m), dtype=f32))
    c = gpuarray.empty((m, m), f32)
    for kernel in ("matmul_naive", "matmul_tiled"):
        yield "matmul.cu", kernel, (p, q, c, i32(m), i32(m), i32(m)), (16, 16, 1), \
            (_blocks(m, 16), _blocks(m, 16))


def launch_all(backend_module, gpuarray, scale):
    """Runs each case once with the given SourceModule maker; yields (kernel, function, case)."""
    modules = {}
    for file, kernel, args, block, grid in cases(gpuarray, scale):
        if file not in modules:
            modules[file] = backend_module(file)
        fn = modules[file].get_function(kernel)
        fn(*args, block=block, grid=grid)
        yield kernel


# ---- the GPU side: ncu -----------------------------------------------------------------------------
def run_for_ncu(scale):
    """The launches, on PyCUDA, for ncu to profile (the child of --collect-gpu)."""
    os.environ.setdefault("CUDA_COURSE_BACKEND", "pycuda")
    from helpers.backend import BACKEND, compile_cu, drv, gpuarray
    if BACKEND != "pycuda":
        sys.exit("--launch-for-ncu needs PyCUDA and a GPU")
    print(f"device: {drv.Context.get_device().name()}", flush=True)
    for _ in launch_all(compile_cu, gpuarray, scale):
        drv.Context.synchronize()


def parse_ncu_csv(text):
    """{kernel: {metric: value}} from `ncu --csv` (details page: one row per metric)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    figures = {}
    for row in csv.DictReader(lines[start:]):
        kernel = row["Kernel Name"].split("(")[0].strip()
        value = row["Metric Value"].replace(",", "")
        figures.setdefault(kernel, {})[row["Metric Name"]] = float(value) if value else 0.0
    return figures


def collect_gpu(scale, out):
    ncu = shutil.which("ncu")
    if ncu is None:
        sys.exit("ncu (Nsight Compute) is not on PATH: --collect-gpu runs on a GPU machine with it")
    kernels = [k for _, k, *_ in cases(_NoArrays(), scale)]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "ncu.csv"
        options = ["--csv", "--metrics", ",".join(METRICS.values()),
                   "--kernel-name", "regex:^(" + "|".join(kernels) + ")$"]
        child = ["bench/microscope.py", "--launch-for-ncu", "--scale", str(scale)]
        cmd = [ncu, "--log-file", str(log), *options, sys.executable, *child]
        env = {**os.environ, "CUDA_COURSE_BACKEND": "pycuda"}
        proc = subprocess.run(cmd, env=env, cwd=ROOT, text=True, capture_output=True)
        if proc.returncode != 0 or not log.exists():
            sys.exit(f"ncu failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        figures = parse_ncu_csv(log.read_text())
    missing = [k for k in kernels if k not in figures]
    if missing:
        sys.exit(f"ncu reported no figures for {', '.join(missing)}")
    device = re.search(r"^device: (.+)$", proc.stdout, flags=re.M)
    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip()
    data = {"command": f"CUDA_COURSE_BACKEND=pycuda python bench/microscope.py --collect-gpu "
                       f"--scale {scale}",
            "ncu_command": " ".join(["ncu", *options, "python", *child]),
            "ncu_version": version, "device": device.group(1) if device else "unknown GPU",
            "date": datetime.date.today().isoformat(), "scale": scale, "kernels": figures}
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".json.part")
    partial.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(partial, out)
    print(f"wrote {out} ({len(figures)} kernels, {data['device']})")


class _NoArrays:
    """A stand-in gpuarray for listing the cases without a device."""

    @staticmethod
    def to_gpu(a):
        return a

    @staticmethod
    def empty(shape, dtype):
        return None

    zeros = empty


# ---- the simulator side ----------------------------------------------------------------------------
def simulate(scale):
    """{kernel: {ncu metric: value}} from one traced run of every case on the simulator."""
    from helpers.backend import read_cu
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule
    from helpers.sim.microscope.trace import trace

    with trace(accesses=0) as t:
        kernels = list(launch_all(lambda f: SourceModule(read_cu(f)), gpuarray, scale))
    return {k: t[k].metrics() for k in kernels}


def _ratio(figures, kind):
    """(value per request, requests) of one kind (global_ld, shared_st, ...), or None."""
    requests = figures.get(METRICS[f"{kind}_requests"], 0)
    if not requests:
        return None
    top = METRICS[f"{kind}_sectors"] if kind.startswith("global") else METRICS[f"{kind}_bank_conflicts"]
    return figures.get(top, 0) / requests, int(requests)


def agree(sim, gpu):
    if abs(sim) < ZERO and abs(gpu) < ZERO:
        return True
    return abs(sim - gpu) <= TOLERANCE * abs(gpu)


def _cell(figure, form, part=0):
    return "-" if figure is None else form.format(figure[part])


def comparison(sim, gpu):
    """Rows of the table, and whether every figure agrees."""
    rows, all_agree = [], True
    for kernel, figures in sim.items():
        for kind, label in RATIOS:
            mine = _ratio(figures, kind)
            theirs = _ratio(gpu.get(kernel, {}), kind) if gpu else None
            if mine is None and theirs is None:
                continue
            ok = None if not gpu else (mine is not None and theirs is not None
                                       and agree(mine[0], theirs[0]))
            all_agree = all_agree and ok is not False
            rows.append([kernel, label, _cell(mine, "{:.2f}"), _cell(theirs, "{:.2f}") if gpu else "",
                         {True: "yes", False: "NO", None: ""}[ok], _cell(mine, "{:,}", 1),
                         _cell(theirs, "{:,}", 1) if gpu else ""])
    return rows, all_agree


def print_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))


# ---- what tracing costs ----------------------------------------------------------------------------
def overhead(repeat):
    """(untraced, traced) one 1-megapixel rgb_to_gray launch each, in turns, `repeat` times:
    the fastest of each, in wall-clock seconds and in CPU seconds (all worker threads). The
    fastest run is the one other programs disturbed least (as `timeit` advises)."""
    from helpers.backend import read_cu
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule
    from helpers.sim.microscope.trace import trace

    fn = SourceModule(read_cu("grayscale.cu")).get_function("rgb_to_gray")
    rgb = gpuarray.to_gpu(np.random.default_rng(0).integers(0, 256, (1024, 1024, 3), np.uint8))
    gray = gpuarray.empty((1024, 1024), np.uint8)

    def launch():
        fn(rgb, gray, np.int32(1024), np.int32(1024), block=(32, 8, 1), grid=(32, 128))

    def timed(traced):
        wall, cpu = time.perf_counter(), time.process_time()
        with trace() if traced else contextlib.nullcontext():
            launch()
        return time.perf_counter() - wall, time.process_time() - cpu

    timed(True)  # builds (or finds) the instrumented module
    rounds = [(timed(False), timed(True)) for _ in range(repeat)]
    plain = [min(p[k] for p, _ in rounds) for k in (0, 1)]
    traced = [min(t[k] for _, t in rounds) for k in (0, 1)]
    return plain, traced


def _shown(path):
    path = path.resolve()
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collect-gpu", action="store_true",
                        help="run the launches under ncu on this machine's GPU; write --data")
    parser.add_argument("--launch-for-ncu", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="problem size (1: 1024x1024 images, 256x256 matrices, 1M-element sums)")
    parser.add_argument("--data", type=Path, default=DATA, help="the GPU figures (JSON)")
    parser.add_argument("--repeat", type=int, default=11, help="runs of the overhead measurement")
    args = parser.parse_args()
    if args.launch_for_ncu:
        return run_for_ncu(args.scale)
    if args.collect_gpu:
        return collect_gpu(args.scale, args.data)

    gpu = json.loads(args.data.read_text()) if args.data.exists() else None
    if gpu and gpu.get("scale") != args.scale:
        print(f"note: the GPU figures were measured at --scale {gpu.get('scale')}, these at "
              f"--scale {args.scale}")
    sim = simulate(args.scale)
    rows, all_agree = comparison(sim, gpu["kernels"] if gpu else None)
    device = gpu["device"] if gpu else "GPU"
    print(f"Simulator's memory trace against Nsight Compute ({device}), scale {args.scale}")
    print_table(["kernel", "figure", "simulator", device, "agree", "requests (sim)",
                 f"requests ({device})"], rows)
    if gpu:
        print(f"\nGPU figures: {_shown(args.data)}, from `{gpu['command']}` on "
              f"{gpu['device']}, {gpu['date']} ({gpu['ncu_version'].splitlines()[-1]}).")
        print(f"All figures within {TOLERANCE:.0%}: {'yes' if all_agree else 'NO'}")
    else:
        print(f"\nNo GPU figures ({_shown(args.data)} is missing). On a machine with an "
              "NVIDIA GPU, PyCUDA and Nsight Compute, run\n"
              "    CUDA_COURSE_BACKEND=pycuda python bench/microscope.py --collect-gpu\n"
              "and commit the JSON it writes.")
    plain, traced = overhead(args.repeat)
    ratio, cpu_ratio = traced[0] / plain[0], traced[1] / max(plain[1], 1e-9)
    print(f"\nTracing cost: rgb_to_gray on 1024x1024 pixels, fastest of {args.repeat} runs each, "
          f"in turns ({os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}): "
          f"{plain[0] * 1e3:.1f} ms untraced, {traced[0] * 1e3:.1f} ms traced: {ratio:.1f}x "
          f"({cpu_ratio:.1f}x in CPU time); target at most {TARGET_OVERHEAD:.0f}x: "
          f"{'MET' if ratio <= TARGET_OVERHEAD else 'MISSED'}")

if __name__ == "__main__":
    main()
