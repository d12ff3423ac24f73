"""bench/simulator.py and bench/per_core.py run end to end at a tiny size, so that the benchmarks
cannot rot.

Only that it runs, prints every section and finds the results in agreement is checked here; its
figures at a tiny size say nothing about the targets (run the script itself for those). The
Numba part is left out where numba is not installed.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAVE_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.mark.slow
def test_simulator_benchmark_runs_at_a_tiny_size():
    cmd = [sys.executable, str(ROOT / "bench" / "simulator.py"), "--size", "48", "--iters", "32",
           "--repeat", "1", "--numpy-repeat", "1", "--reduce-n", "5000", "--numba-size", "16",
           "--numba-repeat", "1", "--user-cache"]   # the cache the tests use: hits after a run
    if not HAVE_NUMBA:
        cmd.append("--no-numba")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CUDA_SIM_WORKERS": "2"})
    out = proc.stdout
    assert proc.returncode == 0, f"{out}\n{proc.stderr}"
    for text in ("compile: simulator mandelbrot.cu", "serial C++ (g++ -O2, 1 core)",
                 "NumPy (vectorized, float32)", "reduction, 2 workers", "reduction, 1 worker",
                 "Verdicts:", "simulator per core within 2x", "5000-element reduction in at most",
                 "Barrier cost", "at most 5 ns a barrier per thread",
                 "results agree: yes"):
        assert text in out, f"{text!r} missing from:\n{out}"
    assert "DISAGREE" not in out
    assert "5000 -> 20 -> 1" in out  # the reduction was launched until one value was left
    if HAVE_NUMBA:
        assert "Numba (16x16) vs simulator --fmad=false (16x16)" in out, out
        assert "Mandelbrot at least 500x faster than Numba's simulator: NOT MEASURED" not in out
    else:
        assert "NOT MEASURED" in out


@pytest.mark.slow
def test_per_core_benchmark_runs_at_a_tiny_size():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "per_core.py"), "--tiny", "--rounds", "1",
                           "--processes", "2"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CUDA_COURSE_BACKEND": "simulator"})
    out = proc.stdout
    assert proc.returncode == 0, f"{out}\n{proc.stderr}"
    assert "median of 2 processes" in out.splitlines()[0], out
    rows = [line.split() for line in out.splitlines()[2:-1]]
    assert [r[0] for r in rows] == ["vector_add", "saxpy", "rgb_to_gray", "rgb_to_gray_x16",
                                    "mandelbrot", "iterate_sin"], out
    for *_, per_core, spread in rows:  # the median of the processes' ratios, and their range
        low, high = (float(x) for x in spread.strip("(x)").split("-"))
        assert per_core.endswith("x") and 0 < low <= float(per_core[:-1]) <= high, out
    assert "WRONG" not in out
