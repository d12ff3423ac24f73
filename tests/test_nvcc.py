"""nvcc compiles every cuda_src/**/*.cu the way PyCUDA's SourceModule does.

The simulator compiles kernels with the host C++ compiler, which accepts things nvcc rejects;
this test catches them. Each file is compiled as `compile_cu` hands it to PyCUDA's SourceModule
(wrapped in `extern "C" { ... }`), to a cubin for sm_90 (the H200 the course is checked on).
Where nvcc is absent the tests are skipped, except when the CI environment variable is set:
CI has nvcc, so there they fail instead.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.backend import CUDA_SRC, read_cu

CU_FILES = sorted(CUDA_SRC.rglob("*.cu"))
ARCH = "sm_90"


def find_nvcc():
    path = shutil.which("nvcc")
    if path:
        return path
    fallback = Path("/usr/local/cuda/bin/nvcc")
    return str(fallback) if os.access(fallback, os.X_OK) else None


@pytest.fixture(scope="module")
def nvcc():
    path = find_nvcc()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("nvcc not found (PATH, /usr/local/cuda/bin) but CI is set: CI must "
                        "compile every kernel with nvcc")
        pytest.skip("nvcc not found on PATH or in /usr/local/cuda/bin")
    return path


def test_cuda_src_has_kernels():
    assert CU_FILES, f"no .cu file under {CUDA_SRC}"


@pytest.mark.parametrize("cu", CU_FILES, ids=[str(p.relative_to(CUDA_SRC)) for p in CU_FILES])
def test_nvcc_compiles(cu, nvcc, tmp_path):
    # tmp_path is unique per test, so parallel runs (pytest -n) never share files.
    # The text SourceModule gets from compile_cu (a #line directive naming the file, so that
    # messages give the .cu file's own line numbers), wrapped as SourceModule wraps it. No -I:
    # PyCUDA compiles in a temporary directory, so a kernel cannot #include its neighbours.
    name = cu.relative_to(CUDA_SRC).as_posix()
    source = read_cu(name)
    wrapped = tmp_path / "kernel.cu"
    wrapped.write_text('extern "C" {\n%s\n}\n' % source, encoding="utf-8")
    cmd = [nvcc, f"-arch={ARCH}", "--cubin", "-o", str(tmp_path / "kernel.cubin"),
           "-x", "cu", str(wrapped)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"nvcc rejects cuda_src/{name}:\n{p.stdout}{p.stderr}"
    assert (tmp_path / "kernel.cubin").stat().st_size > 0
