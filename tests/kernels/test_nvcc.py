"""nvcc compiles every cuda_src/**/*.cu the way PyCUDA's SourceModule does.

The simulator compiles kernels with the host C++ compiler, which accepts things nvcc rejects;
this test catches them. Each file is compiled as `compile_cu` hands it to PyCUDA's SourceModule
(wrapped in `extern "C" { ... }`), to a cubin for sm_90 (the H200 the course is checked on).
A file that declares its kernels extern "C" itself (it includes a C++ header, cuda_fp16.h, which
cannot sit inside that wrapper) is compiled as SourceModule(..., no_extern_c=True) takes it,
unwrapped. Where nvcc is absent the tests are skipped, except when the CI environment variable is set:
CI has nvcc, so there they fail instead.

nvcc's verdict is kept, as the simulator keeps a compiled module: a file in the compile cache
named for everything nvcc was given (its path and version, the architecture, the text). The same
nvcc given the same text gives the same verdict, so a file it accepted before is not compiled
again on the next run (some 40 files at about 0.4 s each); a changed file, or another nvcc, is.
"""

import os
import re

import pytest

from helpers.backend import CUDA_SRC, read_cu
from kernel_sources import find_nvcc, nvcc_accepted, nvcc_verdict

CU_FILES = sorted(CUDA_SRC.rglob("*.cu"))
OWN_EXTERN_C = re.compile(r'^extern "C" __global__', re.M)
"""A file whose kernels say extern "C" themselves: the course compiles it with no_extern_c=True."""


@pytest.fixture(scope="module")
def nvcc():
    path = find_nvcc()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("nvcc not found (PATH, /usr/local/cuda/bin) but CI is set: CI must "
                        "compile every kernel with nvcc")
        pytest.skip("nvcc not found on PATH or in /usr/local/cuda/bin")
    return path


@pytest.fixture(scope="module")
def accepted(nvcc):
    return nvcc_accepted(nvcc)


def test_cuda_src_has_kernels():
    assert CU_FILES, f"no .cu file under {CUDA_SRC}"


@pytest.mark.parametrize("cu", CU_FILES, ids=[str(p.relative_to(CUDA_SRC)) for p in CU_FILES])
def test_nvcc_compiles(cu, nvcc, accepted, tmp_path):
    # tmp_path is unique per test, so parallel runs (pytest -n) never share files.
    # The text SourceModule gets from compile_cu (a #line directive naming the file, so that
    # messages give the .cu file's own line numbers), wrapped as SourceModule wraps it. No -I:
    # PyCUDA compiles in a temporary directory, so a kernel cannot #include its neighbours.
    name = cu.relative_to(CUDA_SRC).as_posix()
    text = read_cu(name)
    wrapped = text if OWN_EXTERN_C.search(text) else 'extern "C" {\n%s\n}\n' % text
    said = nvcc_verdict(nvcc, accepted, wrapped, tmp_path)
    assert said is None, f"nvcc rejects cuda_src/{name}:\n{said}"


def test_a_rejected_text_is_compiled_again_each_time(nvcc, accepted, tmp_path):
    """Only an acceptance is kept: a file nvcc rejects is rejected on every run."""
    broken = '#line 1 "broken.cu"\n__global__ void k(float *x) { x[0] = 1.0f }\n'
    for attempt in ("first", "second"):
        (tmp_path / attempt).mkdir()
        said = nvcc_verdict(nvcc, accepted, broken, tmp_path / attempt)
        assert said and "broken.cu(1)" in said, said
