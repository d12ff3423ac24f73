"""`make bench` at a tiny size, so that the benchmark cannot rot: bench/course_kernels.py runs
on the current backend (the simulator in CI) and must print its table and write its CSV and PNG,
one row per course kernel, every result checked and every figure sane. And the pieces it stands
on: a wrong result posts no figure, every Mandelbrot of the bench computes the same image, one
source reader, RESULTS.md written section by section."""

import csv
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ["vector_add", "saxpy", "rgb_to_gray", "rgb_to_gray_x16", "mandelbrot", "iterate_sin",
           "transpose_naive", "transpose_tiled", "transpose_padded",
           "matmul_naive", "matmul_tiled", "matmul_register_tiled", "matmul_warp_tiled",
           "matmul_async", "reduce_grid_stride", "reduce_grid_stride_x4", "histogram_global", "histogram_shared_x16",
           "histogram_shared_runs", "histogram_once", "histogram_once [histogram()]",
           "histogram_shared_x16 [tiled]", "shared_tiles_fp16", "shared_tiles_bf16",
           "softmax_warp", "softmax_block", "softmax_online",
           "attention_three_kernels", "attention_fused", "attention_tiled"]
CEILINGS = ["copy (ceiling)", "fma_peak (ceiling)"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "course_kernels.py"), "--tiny",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout, out


@pytest.mark.slow
def test_prints_one_table_with_every_kernel(bench):
    stdout, _ = bench
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    names = [row.split("|")[1].strip() for row in rows[1:]]      # after the header row
    assert names == CEILINGS + KERNELS
    assert "WRONG" not in stdout
    assert "Python launch overhead not counted" in stdout


@pytest.mark.slow
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
    for name in ("matmul_naive", "matmul_tiled", "matmul_register_tiled", "matmul_warp_tiled",
                 "matmul_async"):
        assert rows[name]["unit"] == "GFLOP/s" and float(rows[name]["pct_of_ceiling"]) > 0
        if "serial C++" in rows[name]:                          # the simulator's peers
            assert rows[name]["serial C++"] == rows[name]["Numba sim"] == "-"   # none of its own
    for name in ("attention_three_kernels", "attention_fused", "attention_tiled"):
        assert rows[name]["unit"] == "GFLOP/s" and float(rows[name]["pct_of_ceiling"]) > 0
    for name in ("shared_tiles_fp16", "shared_tiles_bf16"):   # no tensor-core ceiling measured
        assert rows[name]["unit"] == "TFLOP/s" and rows[name]["pct_of_ceiling"] == ""
    assert rows["softmax_online"]["unit"] == "GB/s"


@pytest.mark.slow
def test_png_is_written(bench):
    _, out = bench
    [path] = out.glob("course_kernels-*.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 10_000


def test_a_wrong_result_posts_no_figure():
    """A kernel (or a peer) whose result differs from NumPy's prints WRONG, not a time."""
    from bench import course_kernels as ck
    from bench.cases import Case, close, leading
    from bench.reference import NUMPY, ArrayLibrary
    from bench.results import table

    a, b = np.arange(4, dtype=np.float32), np.ones(4, np.float32)

    def case(result, xp_op):
        return Case("broken", "add", "4 floats", 4, launch=lambda: None, result=result,
                    sample=lambda m: leading(m, 4, a, b), xp_op=xp_op,
                    numpy_op=lambda p, a, b: a + b, check=close(1e-6, 0),
                    rate=lambda ms: (1.0, "GB/s", 50.0))

    wrong_kernel = case(lambda: a - b, lambda p, a, b: a + b)
    row = ck.Run({"NumPy": NUMPY}, repeat=1, numpy_max={"add": 4}).case(wrong_kernel)
    assert not row.ok and row.ms is None and row.rate is None
    assert "WRONG" in table([row], ["NumPy"])

    fake_gpu = ArrayLibrary("fake", np, put=lambda x: x, get=np.asarray)
    wrong_peer = case(lambda: a + b, lambda p, a, b: a * b)
    row = ck.Run({"NumPy": NUMPY, "fake": fake_gpu}, repeat=1,
                 numpy_max={"add": 4}).case(wrong_peer)
    assert row.ok and row.peers["fake"] == "WRONG" and isinstance(row.peers["NumPy"], float)


def test_every_mandelbrot_of_the_bench_computes_the_same_image():
    """NumPy's reference, the array libraries' masked loop and the serial C++ loop: one view,
    the kernel's float32 arithmetic, the same iteration counts."""
    from bench import reference

    w, h, max_iter, view = 64, 48, 64, (-2.2, -1.2, 3.2 / 64, 2.4 / 48)
    c_re, c_im = reference.plane(*view, w, h)
    want = reference.mandelbrot(reference.NUMPY, c_re, c_im, max_iter)
    assert 0 < want.min() < want.max() == max_iter           # some escape, some never do
    masks = reference.mandelbrot_masks(reference.NUMPY, c_re, c_im, max_iter)
    assert np.array_equal(masks, want)
    serial = reference.SerialLibrary().mandelbrot(w, h, *view, max_iter)
    assert np.array_equal(serial, want)


def test_the_bench_reads_sources_as_compile_cu_does():
    """One reader: cuda_src/ files tagged as helpers.backend.read_cu tags them (so the compile
    cache is shared with the notebooks), the bench's own by their path in the repository."""
    from bench import BENCH, CUDA_SRC, read_source
    from helpers.backend import read_cu

    assert read_source(CUDA_SRC / "mandelbrot.cu") == read_cu("mandelbrot.cu")
    assert read_source(CUDA_SRC / "solutions" / "julia.cu") == read_cu("solutions/julia.cu")
    assert read_source(BENCH / "reduction.cu").startswith('#line 1 "bench/reduction.cu"\n')


def test_recorded_results_replace_their_own_section_only(tmp_path):
    from bench.results import record

    path = tmp_path / "RESULTS.md"
    path.write_text("# Results\n\nprose before\n")
    record("one", "first figures", path)
    record("two", "other figures", path)
    record("one", "new figures", path)
    text = path.read_text()
    assert text.startswith("# Results\n\nprose before\n")
    assert "new figures" in text and "first figures" not in text and "other figures" in text
    assert text.index("## one") < text.index("new figures") < text.index("## two")
    assert [p.name for p in tmp_path.iterdir()] == ["RESULTS.md"]   # no partial file left


def test_suite_times_gives_the_median_of_repeated_runs():
    from bench import suite_times as st

    runs = [st.Timed("unit tests", f"{kind} {i}/3", wall, wall * 2, modules, True, target)
            for i, (cold, warm) in enumerate([(95.0, 40.0), (88.0, 47.0), (91.0, 44.0)], 1)
            for kind, wall, modules, target in [("cold", cold, 185, 90), ("warm", warm, 0, 45)]]
    cold, warm = st.medians(runs)
    assert (cold.cache, cold.wall_s, cold.cpu_s, cold.modules) == ("cold, median of 3", 91.0,
                                                                   182.0, 185)
    assert (warm.cache, warm.wall_s, warm.target_s) == ("warm, median of 3", 44.0, 45)
    assert "| unit tests | warm, median of 3 | 44.0 s" in st.table([warm], 2)


# A test that compiles on purpose (to see the compiler's warning anew) does so in a cache of its
# own: in the run's cache it would be one more module each run, as a unique comment made it.
ON_PURPOSE = "tests/sim/compile/test_messages.py::test_a_printf_format_that_does_not_fit_is_a_warning"


@pytest.mark.slow
def test_suite_times_counts_what_a_cold_run_compiles_and_a_warm_one_does_not():
    """bench/suite_times.py on one small test file and a test that compiles on purpose: cold
    compiles the file's module into the fresh cache, warm finds it there (a test whose source
    changed from run to run would show here)."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "suite_times.py"), "--tests",
                           "tests/test_backend.py", ON_PURPOSE, "--no-notebooks", "--jobs", "0"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line.split("|")[6].strip()
            for line in proc.stdout.splitlines() if line.startswith("| unit tests")}
    what = f"unit tests (tests/test_backend.py {ON_PURPOSE})"
    assert rows == {(what, "cold"): "1", (what, "warm"): "0"}, proc.stdout
