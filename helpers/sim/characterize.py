"""`pycuda.characterize`, for the CPU simulator: what the (simulated) device supports."""

import struct

import numpy as np

from . import driver
from .unsupported import module_getattr
from .tools import context_dependent_memoize


def platform_bits():
    return struct.calcsize("P") * 8


def has_stack():
    return driver.Context.get_device().compute_capability() >= (2, 0)


def has_double_support():
    return driver.Context.get_device().compute_capability() >= (1, 3)


@context_dependent_memoize
def sizeof(type_name, preamble=""):
    """sizeof(type_name) as the device compiler sees it, found by running a kernel."""
    from . import gpuarray
    from .compiler import SourceModule
    mod = SourceModule(f"""
    {preamble}
    extern "C" __global__ void write_size(size_t *output) {{ *output = sizeof({type_name}); }}
    """, no_extern_c=True)
    output = gpuarray.empty((), dtype=np.uintp)
    mod.get_function("write_size")(output, block=(1, 1, 1), grid=(1, 1))
    return int(output.get())


__getattr__ = module_getattr("pycuda.characterize")
