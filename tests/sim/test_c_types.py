"""C types and NumPy dtypes in one place (helpers/sim/c_types.py): PyCUDA's registry of C names,
and what a kernel parameter's C type says about the argument it takes."""

import numpy as np
import pytest

from helpers.sim import c_types, tools


def test_the_registry_gives_pycudas_c_names_and_tools_hands_them_on():
    assert c_types.dtype_to_ctype(np.float32) == "float"
    assert c_types.dtype_to_ctype(np.complex64) == "pycuda::complex<float>"
    assert c_types.dtype_to_ctype(np.uint64) == "unsigned long"
    assert tools.dtype_to_ctype is c_types.dtype_to_ctype
    assert c_types.get_or_register_dtype("unsigned int") == np.uint32
    with pytest.raises(ValueError, match="unable to map dtype"):
        c_types.dtype_to_ctype(np.dtype("V3"))


def test_a_parameters_c_type_names_the_element_it_points_to():
    assert c_types.pointed_to("const float *__restrict__") == "float"
    assert c_types.pointed_to("volatile unsigned int*") == "unsigned int"
    assert c_types.number_dtype("long long unsigned int") == np.uint64
    assert c_types.number_dtype("short int") == np.int16
    assert c_types.number_dtype("float4") is None
    assert [c_types.element_bytes(t) for t in ("const double *", "uchar3 *", "float4 *",
                                               "struct point *")] == [8, 1, 16, 1]
    assert [c_types.element_bytes(t) for t in ("const __half *", "half2 *",
                                               "__nv_bfloat16 *")] == [2, 4, 2]


def test_numpy_names_of_c_numbers():
    assert c_types.numpy_name("f", 4) == "float32"
    assert c_types.numpy_name("u", 1) == "uint8"
    assert c_types.numpy_name("i", 8) == "int64"
    assert c_types.numpy_name("S", 12) is None
