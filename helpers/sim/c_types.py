"""C types and NumPy dtypes, in one place: PyCUDA's registry of C names (`dtype_to_ctype`,
`get_or_register_dtype`, which pycuda.tools exposes) and what a kernel parameter's C type says
about the argument it takes.

The C type names are PyCUDA's (`dtype_to_ctype(np.float32) == "float"`, complex64 is
`pycuda::complex<float>`), so generated kernels read the same on both backends.
"""

import re
import warnings

import numpy as np


# ---- C type names of dtypes -------------------------------------------------------------------
class TypeNameNotKnown(RuntimeError):  # noqa: N818 - PyCUDA's name
    pass


_DTYPE_TO_NAME = {}
_NAME_TO_DTYPE = {}


def get_or_register_dtype(names, dtype=None):
    """Register the C names of a dtype (the first is the one dtype_to_ctype gives), or, without
    a dtype, look one up."""
    names = [names] if isinstance(names, str) else list(names)
    if dtype is None:
        found = {_NAME_TO_DTYPE[name] for name in names if name in _NAME_TO_DTYPE}
        if len(found) != 1:
            raise TypeNameNotKnown(f"no single dtype registered for {names}")
        return found.pop()
    dtype = np.dtype(dtype)
    dtype = _NAME_TO_DTYPE.get(_DTYPE_TO_NAME.get(dtype), dtype)
    for name in names:
        if _NAME_TO_DTYPE.setdefault(name, dtype) != dtype:
            raise RuntimeError(f"name '{name}' already registered to different dtype")
    _DTYPE_TO_NAME.setdefault(dtype, names[0])
    return dtype


def register_dtype(dtype, c_names, alias_ok=False):
    warnings.warn("register_dtype is deprecated. Use get_or_register_dtype instead.",
                  DeprecationWarning, stacklevel=2)
    dtype = np.dtype(dtype)
    if not alias_ok and dtype in _DTYPE_TO_NAME:
        raise RuntimeError(f"dtype '{dtype}' already registered (as '{_DTYPE_TO_NAME[dtype]}')")
    get_or_register_dtype(c_names, dtype)


def _fill_registry():
    get_or_register_dtype("bool", np.bool_)
    get_or_register_dtype(["signed char", "char"], np.int8)
    get_or_register_dtype("unsigned char", np.uint8)
    get_or_register_dtype(["short", "signed short", "signed short int", "short signed int"],
                          np.int16)
    get_or_register_dtype(["unsigned short", "unsigned short int", "short unsigned int"],
                          np.uint16)
    get_or_register_dtype(["int", "signed int"], np.int32)
    get_or_register_dtype(["unsigned", "unsigned int"], np.uint32)
    get_or_register_dtype(["long", "long int", "signed long int", "long signed int"], np.int64)
    get_or_register_dtype(["unsigned long", "unsigned long int", "long unsigned int"], np.uint64)
    get_or_register_dtype("float", np.float32)
    get_or_register_dtype("double", np.float64)
    get_or_register_dtype("pycuda::complex<float>", np.complex64)
    get_or_register_dtype("pycuda::complex<double>", np.complex128)


_fill_registry()


def dtype_to_ctype(dtype, with_fp_tex_hack=False):
    if dtype is None:
        raise ValueError("dtype may not be None")
    dtype = np.dtype(dtype)
    if with_fp_tex_hack:
        fp_tex = {np.float32: "fp_tex_float", np.float64: "fp_tex_double",
                  np.complex64: "fp_tex_cfloat", np.complex128: "fp_tex_cdouble"}
        for numpy_type, name in fp_tex.items():
            if dtype == numpy_type:
                return name
    try:
        return _DTYPE_TO_NAME[dtype]
    except KeyError:
        raise ValueError(f"unable to map dtype '{dtype}'") from None


# ---- what a parameter's C type says ------------------------------------------------------------
_MORE_NUMBERS = {"short int": np.int16, "long long": np.int64, "long long int": np.int64,
                 "unsigned long long": np.uint64, "long long unsigned int": np.uint64}
# Vector types, counted by the element a learner indexes (a uchar3 image is indexed by byte),
# and cuda_fp16.h's and cuda_bf16.h's numbers, which are no NumPy number PyCUDA registers.
_VECTOR_ELEMENT_BYTES = {"uchar3": 1, "uchar4": 4, "float2": 8, "float3": 4, "float4": 16,
                         "int2": 8, "int4": 16, "uint4": 16, "double2": 16,
                         "__half": 2, "half": 2, "__half2": 4, "half2": 4, "__nv_bfloat16": 2,
                         "nv_bfloat16": 2, "__nv_bfloat162": 4, "nv_bfloat162": 4}


def pointed_to(type_name):
    """The C type a pointer parameter points to, without qualifiers: 'const float *' -> 'float';
    the type a reference parameter binds to: 'float&' -> 'float'."""
    name = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|[*&]", " ", type_name)
    return " ".join(name.split())


def number_dtype(c_name):
    """The NumPy dtype of a C number type ('unsigned int' -> uint32), or None for any other."""
    found = _NAME_TO_DTYPE.get(c_name, _MORE_NUMBERS.get(c_name))
    # the registry holds the vector types too (float4, ..., as gpuarray.vec registers them)
    return np.dtype(found) if found is not None and np.dtype(found).kind in "biufc" else None


def element_bytes(type_name):
    """Bytes of the element a `T *` parameter points to, as the learner indexes it (1 when
    unknown)."""
    c_name = pointed_to(type_name)
    number = number_dtype(c_name)
    return number.itemsize if number is not None else _VECTOR_ELEMENT_BYTES.get(c_name, 1)


def numpy_name(kind, size):
    """NumPy's name for a C number of kind 'i', 'u' or 'f' and size bytes ('f', 4 -> 'float32')."""
    return np.dtype(f"{kind}{size}").name if kind in "iuf" and size in (1, 2, 4, 8) else None
