"""`make bench` at a tiny size, so that the benchmark cannot rot: bench/course_kernels.py runs
on the current backend (the simulator in CI) and must print its table and write its CSV and PNG,
one row per course kernel, every result checked and every figure sane."""

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ["vector_add", "saxpy", "rgb_to_gray", "rgb_to_gray_x16", "mandelbrot", "iterate_sin",
           "transpose_naive", "transpose_tiled", "transpose_padded",
           "matmul_naive", "matmul_tiled", "matmul_register_tiled",
           "reduce_grid_stride", "reduce_grid_stride_x4", "histogram_global", "histogram_shared_x16",
           "histogram_shared_runs", "histogram_once", "histogram_once [histogram()]",
           "histogram_shared_x16 [tiled]"]
CEILINGS = ["copy (ceiling)", "fma_peak (ceiling)"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "course_kernels.py"), "--tiny",
                           "--out", str(out)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout, out


def test_prints_one_table_with_every_kernel(bench):
    stdout, _ = bench
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    names = [row.split("|")[1].strip() for row in rows[1:]]      # after the header row
    assert names == CEILINGS + KERNELS
    assert "WRONG" not in stdout
    assert "Python launch overhead not counted" in stdout


def test_csv_has_sane_figures(bench):
    _, out = bench
    [path] = out.glob("course_kernels-*.csv")
    rows = {r["kernel"]: r for r in csv.DictReader(path.open())}
    assert list(rows) == CEILINGS + KERNELS
    for name, r in rows.items():
        assert r["check"] == "ok", name
        for col in ("median_ms", "rate"):
            assert math.isfinite(float(r[col])) and float(r[col]) > 0, (name, col, r[col])
        if r["pct_of_ceiling"]:
            assert 0 < float(r["pct_of_ceiling"]) < 1000, (name, r["pct_of_ceiling"])
        if name in KERNELS:
            assert float(r["NumPy"]) > 0, (name, r["NumPy"])   # NumPy is always a peer
    assert rows["vector_add"]["unit"] == "GB/s" and rows["mandelbrot"]["unit"] == "Gpix-iter/s"
    assert rows["iterate_sin"]["pct_of_ceiling"] == ""          # no FLOP count for sinf
    for name in ("matmul_naive", "matmul_tiled", "matmul_register_tiled"):
        assert rows[name]["unit"] == "GFLOP/s" and float(rows[name]["pct_of_ceiling"]) > 0
        if "serial C++" in rows[name]:                          # the simulator's peers
            assert rows[name]["serial C++"] == rows[name]["Numba sim"] == "-"   # none of its own


def test_png_is_written(bench):
    _, out = bench
    [path] = out.glob("course_kernels-*.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 10_000


def test_a_wrong_result_posts_no_figure():
    """A kernel (or a peer) whose result differs from NumPy's prints WRONG, not a time."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("course_kernels",
                                                  ROOT / "bench" / "course_kernels.py")
    ck = sys.modules["course_kernels"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ck)
    import numpy as np

    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    ck.NUMPY_MAX["add"] = 4

    def case(result, xp_op):
        return ck.Case("broken", "add", "4 floats", 4, launch=lambda: None, result=result,
                       sample=lambda m: ck.leading(m, 4, a, b), xp_op=xp_op,
                       numpy_op=lambda p, a, b: a + b, check=ck.close(1e-6, 0),
                       rate=lambda ms: (1.0, "GB/s", 50.0))

    wrong_kernel = case(lambda: a - b, lambda p, a, b: a + b)
    row = ck.run_case(wrong_kernel, {"NumPy": ck.NUMPY}, 1, {}, [])
    assert not row.ok and row.ms is None and row.rate is None
    assert "WRONG" in ck.table([row])

    fake_gpu = ck.Peer("fake", np, put=lambda x: x, get=np.asarray)
    wrong_peer = case(lambda: a + b, lambda p, a, b: a * b)
    row = ck.run_case(wrong_peer, {"NumPy": ck.NUMPY, "fake": fake_gpu}, 1, {}, [])
    assert row.ok and row.peers["fake"] == "WRONG" and isinstance(row.peers["NumPy"], float)
