"""CUDA's vector types as NumPy dtypes (helpers/sim/arrays/vector_types.py): gpuarray.vec's
float3, int2, ... and their make_* functions, registered under their C names. These run on
whichever backend helpers.backend chose; the one kernel is shared by the file."""

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray

if BACKEND == "pycuda":
    from pycuda import tools
else:
    from helpers.sim import tools


def test_a_kernel_takes_and_writes_a_vector_type():
    mod = SourceModule("""
    __global__ void set_them(float3 *dest, float3 x) { dest[threadIdx.x] = x; }
    """)
    value = gpuarray.vec.make_float3(1, 2, 3)
    dest = np.empty(64, gpuarray.vec.float3)
    mod.get_function("set_them")(drv.Out(dest), value, block=(64, 1, 1))
    assert (dest == value).all()


def test_vector_dtypes_have_cudas_fields_sizes_and_c_names():
    vec = gpuarray.vec
    assert vec.float3.names == ("x", "y", "z") and vec.float3.itemsize == 12
    assert vec.uchar4.itemsize == 4 and vec.double2.fields["y"][0] == np.float64
    assert vec.ulonglong2.fields["x"][0] == np.uint64
    v = vec.make_int2(7, -1)
    assert v.dtype == vec.int2 and (int(v["x"]), int(v["y"])) == (7, -1)
    for name in ("float3", "int2", "uchar4", "double2"):
        assert tools.dtype_to_ctype(getattr(vec, name)) == name


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own check")
def test_a_make_function_takes_as_many_values_as_the_type_has():
    from helpers.sim.arrays import vector_types

    with pytest.raises(TypeError, match="make_float3 takes 3 values, got 2"):
        gpuarray.vec.make_float3(1, 2)
    assert vector_types.dtype_name(gpuarray.vec.short2) == "short2"
