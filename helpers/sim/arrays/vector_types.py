"""`gpuarray.vec`: NumPy dtypes for CUDA's vector types (float3, int2, ...) and their make_*
functions, registered with their C names so that generated kernels can name them."""

import numpy as np

from ..c_types import get_or_register_dtype


class vec:  # noqa: N801 - PyCUDA's name
    pass


def _create_vector_types():
    fields = ["x", "y", "z", "w"]
    for base_name, base_type, counts in [
            ("char", np.int8, [1, 2, 3, 4]), ("uchar", np.uint8, [1, 2, 3, 4]),
            ("short", np.int16, [1, 2, 3, 4]), ("ushort", np.uint16, [1, 2, 3, 4]),
            ("int", np.int32, [1, 2, 3, 4]), ("uint", np.uint32, [1, 2, 3, 4]),
            ("long", np.int64, [1, 2, 3, 4]), ("ulong", np.uint64, [1, 2, 3, 4]),
            ("longlong", np.int64, [1, 2]), ("ulonglong", np.uint64, [1, 2]),
            ("float", np.float32, [1, 2, 3, 4]), ("double", np.float64, [1, 2])]:
        for count in counts:
            name = f"{base_name}{count}"
            dtype = get_or_register_dtype(name, np.dtype([(f, base_type) for f in fields[:count]]))
            setattr(vec, name, dtype)
            setattr(vec, "make_" + name, staticmethod(_maker(dtype, count)))


def _maker(dtype, count):
    def make(*values):
        if len(values) != count:
            raise TypeError(f"make_{dtype_name(dtype)} takes {count} values, got {len(values)}")
        return np.array(tuple(values), dtype=dtype)
    return make


def dtype_name(dtype):
    return next(name for name in vars(vec) if getattr(vec, name) is dtype)


_create_vector_types()
