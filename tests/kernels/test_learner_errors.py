"""The errors a learner meets at a launch or a compile, the same kind on both backends (this file
runs on whichever backend helpers.backend chose, as tests/kernels/test_kernels.py does)."""

import re

import numpy as np
import pytest

from helpers.backend import SourceModule, drv, gpuarray

INDEX_1D = r"""
__global__ void index_1d(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}
"""


def test_a_plain_python_int_is_a_type_error():
    mod = SourceModule(INDEX_1D)
    out = gpuarray.zeros(10, np.int32)
    with pytest.raises(TypeError, match=r"invalid type on parameter #1"):
        mod.get_function("index_1d")(out, 10, block=(32, 1, 1))


@pytest.mark.parametrize("block, grid", [((2048, 1, 1), (1, 1)), ((32, 32, 2), (1, 1)),
                                         ((32, 1, 1), (0, 1))])
def test_launch_limits_are_a_logic_error(block, grid):
    out = gpuarray.zeros(10, np.int32)
    with pytest.raises(drv.LogicError, match="invalid argument"):
        SourceModule(INDEX_1D).get_function("index_1d")(out, np.int32(10), block=block, grid=grid)
        drv.Context.synchronize()


def test_a_compile_error_names_the_file_and_line():
    src = '#line 1 "broken.cu"\n__global__ void k(float *x) {\n    x[0] = 1.0f\n}\n'
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src)
    assert re.search(r"broken\.cu[:(]\s*[23]\b", str(err.value)), str(err.value)
