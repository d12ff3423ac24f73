"""nvcc compiles every cuda_src/**/*.cu the way PyCUDA's SourceModule does.

The simulator compiles kernels with the host C++ compiler, which accepts things nvcc rejects;
this test catches them. Each file is compiled as `compile_cu` hands it to PyCUDA's SourceModule
(wrapped in `extern "C" { ... }`), to a cubin for sm_90 (the H200 the course is checked on). A
file whose text depends on the architecture (it names `__CUDA_ARCH__`, or a function that older
GPUs lack, or the tensor cores' mma.h: helpers/sim/compile/capabilities.py) is compiled for sm_75
too, a T4, the lowest GPU learners have: PyCUDA compiles for the device's own architecture, so
what needs a newer GPU must sit behind `#if __CUDA_ARCH__ >= ...`, with another way for older
ones (a T4's tensor cores take FP16 fragments, and no BF16 or TF32 ones: those need sm_80). (Every file for sm_75
cost 18 more CPU-seconds cold, 40 instead of 22 for the 47 files; all passed on 2026-12-02.)
A file that declares its kernels extern "C" itself (it includes a C++ header, cuda_fp16.h or
mma.h, which cannot sit inside that wrapper) is compiled as SourceModule(..., no_extern_c=True)
takes it, unwrapped. Where nvcc is absent the tests are skipped, except when the CI environment variable is set:
CI has nvcc, so there they fail instead.

nvcc's verdict is kept, as the simulator keeps a compiled module: a file in the compile cache
named for everything nvcc was given (its path and version, the architecture, the text). The same
nvcc given the same text gives the same verdict, so a file it accepted before is not compiled
again on the next run (some 40 files at about 0.4 s each); a changed file, or another nvcc, is.
"""

import re

import pytest

from helpers.backend import CUDA_SRC, read_cu
from helpers.sim.compile import capabilities
from kernel_sources import ARCH, LOWEST_ARCH, nvcc_verdict

CU_FILES = sorted(CUDA_SRC.rglob("*.cu"))
TENSOR_CORE_FILES = [cu for cu in CU_FILES if "#include <mma.h>" in cu.read_text()]
OWN_EXTERN_C = re.compile(r'^extern "C" __global__', re.M)
"""A file whose kernels say extern "C" themselves: the course compiles it with no_extern_c=True."""


def test_cuda_src_has_kernels():
    assert CU_FILES, f"no .cu file under {CUDA_SRC}"


@pytest.mark.parametrize("cu", CU_FILES, ids=[str(p.relative_to(CUDA_SRC)) for p in CU_FILES])
def test_nvcc_compiles(cu, nvcc, accepted, tmp_path):
    # tmp_path is unique per test, so parallel runs (pytest -n) never share files.
    # The text SourceModule gets from compile_cu (a #line directive naming the file, so that
    # messages give the .cu file's own line numbers), wrapped as SourceModule wraps it. No -I:
    # PyCUDA compiles in a temporary directory, so a kernel cannot #include its neighbours.
    # A file whose kernels say extern "C" themselves includes a C++ header (mma.h, cuda_fp16.h),
    # which nvcc refuses inside that block: it is compiled as SourceModule(no_extern_c=True) does.
    name = cu.relative_to(CUDA_SRC).as_posix()
    text = read_cu(name)
    arches = (ARCH, LOWEST_ARCH) if capabilities.macros(text, (7, 5)) else (ARCH,)
    wrapped = text if OWN_EXTERN_C.search(text) else 'extern "C" {\n%s\n}\n' % text
    said = nvcc_verdict(nvcc, accepted, wrapped, tmp_path, arches)
    assert said is None, f"nvcc rejects cuda_src/{name} for {' or '.join(arches)}:\n{said}"


@pytest.mark.parametrize("cu", TENSOR_CORE_FILES,
                         ids=[str(p.relative_to(CUDA_SRC)) for p in TENSOR_CORE_FILES])
def test_the_tensor_core_files_compile_for_a_t4_too(cu, nvcc, accepted, tmp_path):
    """Each file that includes mma.h, for sm_75 as for sm_90 (test_nvcc_compiles compiles it so;
    the verdict is the same one): notebook 13's tensor_cores.cu among them."""
    name = cu.relative_to(CUDA_SRC).as_posix()
    said = nvcc_verdict(nvcc, accepted, read_cu(name), tmp_path, (ARCH, LOWEST_ARCH))
    assert said is None, f"nvcc rejects cuda_src/{name} for {LOWEST_ARCH}:\n{said}"


def test_a_rejected_text_is_compiled_again_each_time(nvcc, accepted, tmp_path):
    """Only an acceptance is kept: a file nvcc rejects is rejected on every run."""
    broken = '#line 1 "broken.cu"\n__global__ void k(float *x) { x[0] = 1.0f }\n'
    for attempt in ("first", "second"):
        (tmp_path / attempt).mkdir()
        said = nvcc_verdict(nvcc, accepted, broken, tmp_path / attempt)
        assert said and "broken.cu(1)" in said, said


def test_what_a_t4_lacks_is_rejected_unless_kept_for_newer_gpus(nvcc, accepted, tmp_path):
    call = "__global__ void k(unsigned *o) { o[0] = %s; }\n"
    for folder in ("bare", "guarded"):
        (tmp_path / folder).mkdir()
    bare = call % "__reduce_add_sync(0xffffffff, 1u)"
    said = nvcc_verdict(nvcc, accepted, bare, tmp_path / "bare", (ARCH, LOWEST_ARCH))
    assert said and "__reduce_add_sync" in said, said
    guarded = call % ("\n#if __CUDA_ARCH__ >= 800\n__reduce_add_sync(0xffffffff, 1u)\n#else\n"
                      "32u\n#endif\n")
    assert nvcc_verdict(nvcc, accepted, guarded, tmp_path / "guarded", (ARCH, LOWEST_ARCH)) is None
