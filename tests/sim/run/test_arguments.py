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


def test_a_complex_array_for_a_float_parameter_is_named_and_a_complex_parameter_takes_it():
    f = SourceModule("__global__ void twice(float *x) { x[threadIdx.x] *= 2; }").get_function("twice")
    z = np.ones(4, np.complex64)
    for arg in (gpuarray.to_gpu(z), drv.InOut(z)):
        with pytest.raises(TypeError, match=r"'float\*'.*complex64 \(pairs of 4-byte floats.*"
                                            r"a\.real\.astype\(np\.float32\).*a\.view\(np\.float32\)"):
            f(arg, block=(4, 1, 1))
    g = SourceModule("#include <pycuda-complex.hpp>\n__global__ void twice(pycuda::complex<float> "
                     "*x) { x[threadIdx.x] *= 2; }").get_function("twice")
    a = gpuarray.to_gpu(z)
    g(a, block=(4, 1, 1))
    assert (a.get() == 2).all()


def test_arrays_of_python_objects_never_reach_device_memory():
    objects = np.array([1.0, "a", None, 2], dtype=object)
    with pytest.raises(TypeError, match="cannot hold Python objects.*np.asarray"):
        gpuarray.to_gpu(objects)
    with pytest.raises(TypeError, match="memcpy_htod: the host array holds Python objects"):
        drv.memcpy_htod(drv.mem_alloc(32), objects)
