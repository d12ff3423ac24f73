"""What the simulator leaves out of CUDA's device functions (helpers/sim/compile/not_simulated.py):
one list, each function under the feature it needs, and a kernel that calls one refused at
compile time with the function and its feature. (That the list and CUDA's own headers agree is
tests/kernels/test_intrinsics_complete.py, where nvcc is installed.) These run the simulator
whatever backend is chosen; one refusal is compiled, into a cache of its own."""

import pytest

from helpers.sim.compile import not_simulated
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import NotSimulatedError


def test_each_function_stands_under_one_feature():
    listed = [name for names in not_simulated.FEATURES.values() for name in names.split()]
    assert len(listed) == len(set(listed)) == len(not_simulated.FUNCTIONS)
    assert not_simulated.FUNCTIONS["tex2D"] == "textures and surfaces"
    assert not_simulated.FUNCTIONS["cudaMalloc"].startswith("the device runtime")
    assert "__syncthreads" not in not_simulated.FUNCTIONS  # what the simulator has is not here


def test_a_kernel_calling_left_out_functions_is_refused_with_each_call(tmp_path):
    src = ('#line 1 "left_out.cu"\n__global__ void k(unsigned *x) {\n'
           "    __prof_trigger(0);\n"
           "    x[0] = __clusterSizeInBlocks().x;\n}\n")
    with pytest.raises(NotSimulatedError) as refused:
        SourceModule(src, cache_dir=str(tmp_path))
    err = refused.value
    assert (err.function, err.file, err.line) == ("__prof_trigger", "left_out.cu", 2)
    assert err.feature == not_simulated.FUNCTIONS["__prof_trigger"]
    assert [(f, line) for f, _, _, line in err.calls] == [("__prof_trigger", 2),
                                                         ("__clusterSizeInBlocks", 3)]


def test_inline_ptx_is_refused_at_its_line_as_the_gpu_s_own_instructions(tmp_path):
    """nvcc assembles asm("...") as PTX; the host's assembler refuses it, and the error says so
    rather than quoting the assembler."""
    src = ('#line 1 "lane.cu"\n__global__ void k(int *x) {\n    int lane;\n'
           '    asm("mov.u32 %0, %%laneid;" : "=r"(lane));\n    x[0] = lane;\n}\n')
    with pytest.raises(NotSimulatedError) as refused:
        SourceModule(src, cache_dir=str(tmp_path))
    err = refused.value
    assert (err.function, err.feature, err.file, err.line) == ("asm", not_simulated.INLINE_PTX,
                                                               "lane.cu", 3)
    assert "Error: no such instruction" not in str(err).split("[command")[0]
