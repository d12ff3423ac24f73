"""bench/microscope.py: its reading of ncu's CSV, its comparison, and an end-to-end run at a tiny
size (so that the benchmark cannot rot). The GPU side (--collect-gpu) needs ncu and a GPU: the
lead runs it on the H200 (see the README)."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "bench" / "microscope.py"
spec = importlib.util.spec_from_file_location("microscope", SCRIPT)
microscope = importlib.util.module_from_spec(spec)
spec.loader.exec_module(microscope)

NCU_CSV = '''==PROF== Connected to process 4242 (/usr/bin/python3.12)
==PROF== Profiling "rgb_to_gray": 0%....50%....100% - 3 passes
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","python3.12","127.0.0.1","rgb_to_gray","1","7","(32, 8, 1)","(32, 128, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","request","98,304"
"0","4242","python3.12","127.0.0.1","rgb_to_gray","1","7","(32, 8, 1)","(32, 128, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","294,912"
"1","4242","python3.12","127.0.0.1","transpose_tiled(const float *, float *, int, int)","1","7","(32, 8, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","1,015,808"
'''


def test_ncu_csv_is_read_per_kernel():
    figures = microscope.parse_ncu_csv(NCU_CSV)
    assert figures["rgb_to_gray"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 294912
    assert figures["transpose_tiled"][
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 1015808


def test_figures_agree_within_5_percent_and_zero_is_zero():
    m = microscope.METRICS
    sim = {"k": {m["global_ld_requests"]: 100, m["global_ld_sectors"]: 400,
                 m["shared_ld_requests"]: 100, m["shared_ld_bank_conflicts"]: 0}}
    close = {"k": {m["global_ld_requests"]: 100, m["global_ld_sectors"]: 415,
                   m["shared_ld_requests"]: 100, m["shared_ld_bank_conflicts"]: 0.5}}
    far = {"k": {m["global_ld_requests"]: 100, m["global_ld_sectors"]: 430,
                 m["shared_ld_requests"]: 100, m["shared_ld_bank_conflicts"]: 10}}
    # Nsight Compute's replays of other origin: 1,570 in 102,400 loads of a conflict-free kernel
    noise = {"k": {m["global_ld_requests"]: 100, m["global_ld_sectors"]: 400,
                   m["shared_ld_requests"]: 102_400, m["shared_ld_bank_conflicts"]: 1_570}}
    assert microscope.comparison(sim, close)[1]
    assert microscope.comparison(sim, noise)[1]
    rows, ok = microscope.comparison(sim, far)
    assert not ok and [r[4] for r in rows] == ["NO", "NO"]


def test_the_benchmark_runs_at_a_tiny_size(tmp_path):
    # The simulator's own figures, stored as if a GPU had measured them: the whole comparison
    # path runs, and agrees with itself. (The compile cache is the one the other tests share.)
    sim = microscope.simulate(0.05)
    fake = tmp_path / "fake.json"
    fake.write_text(json.dumps({"command": "test", "device": "FakeGPU", "date": "today",
                                "ncu_version": "none", "scale": 0.05, "kernels": sim}))
    env = {**os.environ, "CUDA_SIM_WORKERS": "2", "CUDA_COURSE_BACKEND": "simulator"}
    cmd = [sys.executable, str(SCRIPT), "--scale", "0.05", "--repeat", "1", "--data", str(fake)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for text in ("transpose_tiled", "bank conflicts/request, shared loads", "matmul_tiled",
                 "reduce_grid_stride", "FakeGPU", "All figures within 5%: yes",
                 "Tracing cost: rgb_to_gray"):
        assert text in proc.stdout, proc.stdout


FAKE_NCU = r'''#!/usr/bin/env python3
"""Stands in for Nsight Compute: --version, or writes a CSV of figures for every kernel named."""
import re, sys
if "--version" in sys.argv:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2099.1 (fake)")
    sys.exit(0)
log = sys.argv[sys.argv.index("--log-file") + 1]
metrics = sys.argv[sys.argv.index("--metrics") + 1].split(",")
kernels = re.match(r"regex:\^\((.*)\)\$", sys.argv[sys.argv.index("--kernel-name") + 1]).group(1)
with open(log, "w") as f:
    f.write("==PROF== Connected to process 1\n")
    f.write('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n')
    for i, kernel in enumerate(kernels.split("|")):
        for m in metrics:
            f.write(f'"{i}","{kernel}","{m}","","1,024"\n')
print("device: Fake H200")
'''


def test_collect_gpu_writes_what_ncu_measured(tmp_path):
    ncu = tmp_path / "bin" / "ncu"
    ncu.parent.mkdir()
    ncu.write_text(FAKE_NCU)
    ncu.chmod(0o755)
    out = tmp_path / "ncu.json"
    env = {**os.environ, "PATH": f"{ncu.parent}:{os.environ['PATH']}"}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--collect-gpu", "--scale", "0.05",
                           "--data", str(out)], capture_output=True, text=True, env=env,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    assert data["device"] == "Fake H200" and "2099.1" in data["ncu_version"]
    assert "--collect-gpu" in data["command"] and "--launch-for-ncu" in data["ncu_command"]
    assert len(data["kernels"]) == 13
    assert data["kernels"]["transpose_tiled"][microscope.METRICS["shared_ld_bank_conflicts"]] == 1024
