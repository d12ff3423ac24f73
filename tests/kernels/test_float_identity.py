"""bench/float_identity.py cannot rot: it stores outputs (here the simulator's, standing in for a
GPU's) and compares the simulator against them, and without stored outputs says how to make them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.float_identity import identical
from helpers.sim.compile import toolchain

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "float_identity.py"


def bench(*args):
    env = {**os.environ, "CUDA_COURSE_BACKEND": "simulator"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, timeout=600)


def test_compares_the_simulator_with_stored_outputs(tmp_path):
    data = tmp_path / "outputs.npz"
    for name in ("matmul_tiled", "horner"):  # one at a time: the second joins the first
        stored = bench("--store", "--allow-simulator", "--data", str(data), "--only", name)
        assert stored.returncode == 0 and data.is_file(), stored.stderr
    run = bench("--data", str(data))
    assert run.returncode == 0, run.stderr
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in run.stdout.splitlines() if line.startswith("| ")}
    assert set(rows) == {"kernel", "matmul_tiled", "horner"}
    for name in ("matmul_tiled", "horner"):
        fused, unfused, both_unfused = rows[name][1:]
        assert fused == "100.00% (0)" and both_unfused == "100.00% (0)", rows[name]
        if toolchain.cpu_has_fma():
            # The stored outputs are the simulator's fused ones: where the CPU has FMA, the
            # simulator promises to fuse as nvcc does, so its unfused run must differ. Equal
            # means the "fused" build was not fused (as with a GCC tuned to avoid FMA chains
            # before toolchain.float_flags turned that off), not a CPU without FMA.
            assert unfused != "100.00% (0)", (f"{name}: the simulator's default build gave the "
                                               f"bits of its --fmad=false build: {run.stdout}")


def test_a_gpu_is_needed_to_store_and_the_missing_file_is_explained(tmp_path):
    refused = bench("--store", "--data", str(tmp_path / "x.npz"))
    assert refused.returncode != 0 and "PyCUDA finds a GPU" in refused.stderr
    missing = bench("--data", str(tmp_path / "none.npz"))
    assert missing.returncode == 2
    assert "CUDA_COURSE_BACKEND=pycuda python bench/float_identity.py --store" in missing.stdout


def test_storing_some_cases_into_another_devices_file_is_refused(tmp_path):
    data = tmp_path / "outputs.npz"
    meta = {"device": "NVIDIA H200", "inputs": {"horner": "x"}, "sources": {"horner": "y"}}
    np.savez_compressed(data, meta=np.array(json.dumps(meta)), **{"horner.fmad": np.zeros(2)})
    refused = bench("--store", "--allow-simulator", "--data", str(data), "--only", "matmul_tiled")
    assert refused.returncode != 0 and "holds the outputs of NVIDIA H200" in refused.stderr
    assert set(np.load(data).files) == {"meta", "horner.fmad"}  # left as it was


def test_nans_with_other_bits_are_counted_apart_from_the_ulps():
    bits = lambda *b: np.array(b, np.uint32).view(np.float32)  # noqa: E731
    # the same NaN, NaNs with other bits, 1 ulp apart, a NaN against a number
    got = bits(0x7FFFFFFF, 0xFFC00000, 0x3F800001, 0x7FC00000)
    want = bits(0x7FFFFFFF, 0x7FFFFFFF, 0x3F800000, 0x3F800000)
    fraction, ulp, nan_bits = identical(got[:3], want[:3])
    assert (fraction, ulp, nan_bits) == (1 / 3, 1, 1)
    _, ulp, nan_bits = identical(got, want)
    assert ulp > 1 << 20 and nan_bits == 1
