"""A source compiles for the simulated device's compute capability, as nvcc compiles it for the
GPU's (helpers/sim/compile/capabilities.py): __CUDA_ARCH__ is its number, and a function or a
warp matrix fragment that GPUs of that capability lack is a compile error that names it and both
capabilities. These run the simulator whatever backend is chosen; the refusal is compiled into a
cache of its own."""

import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compile import capabilities
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import NeedsNewerGPUError
from helpers.sim.settings import settings

ARCH = ('#line 1 "arch.cu"\n__global__ void arch(int *out)\n{\n#if __CUDA_ARCH__ >= 800\n'
        "    out[0] = __reduce_add_sync(0xffffffff, 1) * 1000 + __CUDA_ARCH__;\n#else\n"
        "    out[0] = __CUDA_ARCH__;\n#endif\n}\n")
CALLS = ('#line 1 "count.cu"\n__global__ void count(unsigned *out)\n{\n'
         "    out[0] = __reduce_or_sync(0xffffffff, 1u) + __reduce_add_sync(0xffffffff, 1u);\n}\n")
FRAGMENT = ('#line 1 "tile.cu"\n#include <mma.h>\nusing namespace nvcuda;\n'
            'extern "C" __global__ void tile(int *out)\n{\n'
            "    wmma::fragment<wmma::%s> f;\n    out[0] = f.num_elements;\n}\n")


def test_only_a_source_that_names_the_architecture_or_a_newer_function_is_told_it():
    assert capabilities.macros("__global__ void k(int *x) { x[0] = 1; }", (7, 5)) == []
    assert capabilities.macros("#if __CUDA_ARCH__ >= 800\n#endif", (8, 6)) == [
        "-D__CUDA_ARCH__=860"]
    assert capabilities.macros(CALLS, (7, 5)) == [
        "-D__CUDA_ARCH__=750", "-U__reduce_add_sync", "-U__reduce_or_sync"]
    assert capabilities.macros(CALLS, (9, 0)) == ["-D__CUDA_ARCH__=900"]
    assert capabilities.macros(FRAGMENT, (7, 5)) == ["-D__CUDA_ARCH__=750"]  # mma.h reads it


@pytest.mark.parametrize("cc, expected", [("7.5", 750), ("8.9", 32 * 1000 + 890)])
def test_the_branch_for_the_device_s_architecture_is_the_one_built(cc, expected):
    with settings.changed(compute_capability=cc):
        out = gpuarray.zeros(1, np.int32)
        SourceModule(ARCH).get_function("arch")(out, block=(32, 1, 1), grid=(1, 1))
        assert out.get()[0] == expected


def test_a_function_the_device_lacks_is_refused_naming_it_and_both_capabilities(tmp_path):
    with settings.changed(compute_capability="7.5"), \
            pytest.raises(NeedsNewerGPUError) as refused:
        SourceModule(CALLS, cache_dir=str(tmp_path))
    err = refused.value
    assert (err.function, err.needs, err.device) == ("__reduce_or_sync", (8, 0), (7, 5))
    assert (err.file, err.line) == ("count.cu", 3)
    with settings.changed(compute_capability="8.0"):
        SourceModule(CALLS, cache_dir=str(tmp_path))  # the same source, on a GPU that has it


@pytest.mark.parametrize("fragment, refused_at, needs, accepted_at", [
    ("matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major", "7.5", (8, 0), "8.0"),
    ("matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major", "7.5", (8, 0), "8.0"),
    ("accumulator, 16, 16, 8, float", "7.5", (8, 0), "8.0"),   # tf32's shape
    ("matrix_a, 16, 16, 16, signed char, wmma::row_major", "7.0", (7, 2), "7.5"),
    ("matrix_a, 16, 16, 16, half, wmma::row_major", None, None, "7.0"),
], ids=["bf16", "tf32", "tf32-accumulator", "int8", "fp16"])
def test_a_fragment_the_device_lacks_is_refused_naming_both_capabilities(
        fragment, refused_at, needs, accepted_at, tmp_path):
    source = FRAGMENT % fragment
    if refused_at:
        with settings.changed(compute_capability=refused_at), \
                pytest.raises(NeedsNewerGPUError) as refused:
            SourceModule(source, no_extern_c=True, cache_dir=str(tmp_path))
        err = refused.value
        device = tuple(map(int, refused_at.split(".")))
        assert (err.function, err.needs, err.device) == ("wmma::fragment", needs, device)
        assert (err.file, err.line) == ("tile.cu", 5)
    with settings.changed(compute_capability=accepted_at):   # the same source, on a GPU that has it
        out = gpuarray.zeros(1, np.int32)
        SourceModule(source, no_extern_c=True, cache_dir=str(tmp_path)).get_function("tile")(
            out, block=(32, 1, 1), grid=(1, 1))
        assert out.get()[0] > 0
