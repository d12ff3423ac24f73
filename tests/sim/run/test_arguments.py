"""Kernel arguments checked against the compiled parameters (run/arguments.py): stricter than
PyCUDA where PyCUDA would go wrong silently."""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule


def test_float64_for_a_float_parameter_names_the_c_type():
    f = SourceModule("__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }") \
        .get_function("scale")
    x = gpuarray.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"parameter #1.*'float'.*float64.*numpy\.float32"):
        f(x, np.float64(2.0), block=(4, 1, 1))
    with pytest.raises(TypeError, match=r"parameter #0.*copy it to the device|gpuarray\.to_gpu"):
        f(np.zeros(4, np.float32), np.float32(2), block=(4, 1, 1))
    with pytest.raises(TypeError, match="takes 2 parameters"):
        f(x, block=(4, 1, 1))


def test_an_array_of_the_wrong_element_type_is_named():
    f = SourceModule("__global__ void add(const float *a, float *b) { b[threadIdx.x] += a[threadIdx.x]; }") \
        .get_function("add")
    out = gpuarray.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"parameter #0.*'const float\*'.*float64.*astype\(np\.float32\)"):
        f(gpuarray.to_gpu(np.ones(4)), out, block=(4, 1, 1))
    with pytest.raises(TypeError, match="int64"):
        f(drv.In(np.ones(4, np.int64)), out, block=(4, 1, 1))
    f(gpuarray.to_gpu(np.ones(4, np.float32)), out, block=(4, 1, 1))          # right type
    f(gpuarray.to_gpu(np.ones(16, np.uint8)), out, block=(4, 1, 1))           # bytes: any view
    assert (out.get() != 0).all()
