"""The simulator reports an overrun as compute-sanitizer's memcheck does on a GPU: the same
access, thread, block, distance from the nearest allocation and its size. On a GPU the kernel runs
under `compute-sanitizer --tool memcheck` in a subprocess (a real illegal address ends the
process's context); on the simulator it runs here. Both sides check the same facts."""

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.backend import BACKEND

ROOT = Path(__file__).resolve().parents[3]

KERNELS = r"""
__global__ void one_too_many(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 1.0f;
}
__global__ void shift_left(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i - 1] = in[i];
}
__global__ void stride_by(float *out, int stride) {
    int t = threadIdx.x;
    out[t * stride] = 1.0f;
}
"""

# name: (the launch, in Python; what both report: access, thread, block, distance, size)
CASES = {
    "past_the_end": (
        "out = gpuarray.zeros(1001, np.float32)\n"
        "mod.get_function('one_too_many')(out, np.int32(1001), block=(256, 1, 1), grid=(4, 1))",
        ("write", (233, 0, 0), (3, 0, 0), "1 bytes after", 4004)),
    "before_the_start": (
        "x, out = gpuarray.zeros(1000, np.float32), gpuarray.zeros(1000, np.float32)\n"
        "mod.get_function('shift_left')(x, out, np.int32(1000), block=(128, 1, 1), grid=(8, 1))",
        ("write", (0, 0, 0), (0, 0, 0), "4 bytes before", 4000)),
    # Far off: on the simulator, a write that must fault, not land in the process's memory. On a
    # GPU another allocation may lie nearer (on the H200, 256 MiB past the array, memcheck named
    # one of 512 bytes, 130,022,913 bytes below): there only the side is compared (FAR).
    "far_past_the_end": (
        "out = gpuarray.zeros(1000, np.float32)\n"
        "mod.get_function('stride_by')(out, np.int32(1 << 26), block=(2, 1, 1))",
        ("write", (1, 0, 0), (0, 0, 0), "268431457 bytes after", 4000)),
    "far_before_the_start": (
        "out = gpuarray.zeros(1000, np.float32)\n"
        "mod.get_function('stride_by')(out, np.int32(-(1 << 26)), block=(2, 1, 1))",
        ("write", (1, 0, 0), (0, 0, 0), "268435456 bytes before", 4000)),
}
FAR = {"far_past_the_end", "far_before_the_start"}

PROGRAM = """
import numpy as np
from helpers.backend import SourceModule, drv, gpuarray
mod = SourceModule({kernels!r})
try:
{launch}
    drv.Context.synchronize()
except Exception as err:
    print("ERROR:", err)
    print("FACTS:", {{name: getattr(err, name, None)
                     for name in ("is_write", "thread", "block", "offset", "allocation")}})
"""


def run_case(name):
    launch = textwrap.indent(CASES[name][0], "    ")
    program = PROGRAM.format(kernels=KERNELS, launch=launch)
    cmd = [sys.executable, "-c", program]
    if BACKEND != "simulator":
        # --launch-timeout: how long it waits for the child to reach CUDA (default 10 s). A child
        # starting among 15 other busy test workers took longer on the H200, and the tool then
        # said "No attachable process found" and waited out the whole 300 s below.
        cmd = ["compute-sanitizer", "--tool", "memcheck", "--launch-timeout", "240", *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=300)
    return proc.stdout + proc.stderr


def child_env():
    """This process's environment, with the repository first on PYTHONPATH and the paths
    already there kept: PyCUDA may be found only through them (on the H200 machine it was, and
    a child without them said "CUDA_COURSE_BACKEND=pycuda, but PyCUDA is not installed")."""
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def test_the_child_finds_what_this_process_finds_through_pythonpath(tmp_path, monkeypatch):
    (tmp_path / "path").mkdir()
    (tmp_path / "path" / "found_only_through_pythonpath.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "path"))
    proc = subprocess.run([sys.executable, "-c", "import found_only_through_pythonpath, helpers"],
                          capture_output=True, text=True, env=child_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(BACKEND != "simulator" and not shutil.which("compute-sanitizer"),
                    reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_overrun_is_reported_as_memcheck_reports_it(name):
    access, thread, block, distance, size = CASES[name][1]
    out = run_case(name)
    if BACKEND == "simulator":  # the error's fields, which the child prints
        printed = re.search(r"^FACTS: (.*)$", out, re.M)
        assert printed, out
        facts = ast.literal_eval(printed.group(1))
        n, side = re.fullmatch(r"(\d+) bytes (after|before)", distance).groups()
        offset = size + int(n) - 1 if side == "after" else -int(n)  # as memcheck counts
        assert (facts["is_write"], facts["thread"], facts["block"], facts["offset"],
                facts["allocation"][1]) == (access == "write", thread, block, offset, size), out
    else:
        assert f"Invalid __global__ {access} of size 4 bytes" in out, out
        assert f"by thread ({','.join(map(str, thread))}) in block ({','.join(map(str, block))})" in out, out
        n, side = distance.split(" bytes ")
        n, size = ((r"[\d,]+", r"[\d,]+") if name in FAR
                   else (f"{n}|{int(n):,}", f"{size:,}|{size}"))
        assert re.search(rf"and is ({n}) bytes {side} the nearest allocation at "
                         rf"0x[0-9a-f]+ of size ({size}) bytes", out), out
