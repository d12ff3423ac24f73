"""bench/point_cloud_and_split.py at a tiny size (two simulated devices in CI): it prints the
back-projection kernels' figures against the copy and the split Mandelbrot's from 1 to N
devices, every result checked (no WRONG)."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_prints_both_figures_with_every_result_checked():
    env = dict(os.environ, CUDA_SIM_DEVICES="2",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "point_cloud_and_split.py"),
                           "--tiny"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "WRONG" not in out, out
    assert "copy of the cloud 640 x 480:" in out, out
    for kernel in ("one pixel a thread", "four pixels a thread"):
        assert re.search(rf"back-projection, {kernel}: .* \d+% of the copy", out), out
    devices = int(re.search(r"(\d+) device\(s\)\n", out).group(1))
    splits = re.findall(r"split Mandelbrot .*, (\d+) device\(s\): [\d.]+ ms, [\d.]+x one device",
                        out)
    assert [int(n) for n in splits] == list(range(1, devices + 1)), out
