"""`pycuda.tools`, for the CPU simulator: C type names of NumPy dtypes, kernel argument
declarations, memoization per context, the default context, device data and the helpers
PyCUDA's own tests use.

The C type names are PyCUDA's (`dtype_to_ctype(np.float32) == "float"`, complex64 is
`pycuda::complex<float>`), so generated kernels read the same on both backends.
"""

import functools
import os
import re
import struct

import numpy as np

from .machine import device as _device
from .c_types import (  # noqa: F401 - pycuda.tools' names
    _NAME_TO_DTYPE, TypeNameNotKnown, dtype_to_ctype, get_or_register_dtype, register_dtype)
from .unsupported import module_getattr
from .machine.mempool import (  # noqa: F401 - pycuda.tools' names
    DeviceMemoryPool, PageLockedAllocator, PageLockedMemoryPool, bitlog2)


# ---- kernel argument declarations ------------------------------------------------------------
class Argument:
    def __init__(self, dtype, name):
        self.dtype, self.name = np.dtype(dtype), name

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"


class VectorArg(Argument):
    struct_char = "P"

    def declarator(self):
        return f"{dtype_to_ctype(self.dtype)} *{self.name}"


class ScalarArg(Argument):
    def declarator(self):
        return f"{dtype_to_ctype(self.dtype)} {self.name}"

    @property
    def struct_char(self):
        char = self.dtype.char
        return f"{self.dtype.itemsize}s" if char == "V" else char


_DECLARATOR = re.compile(r"(\**)\s*([_a-zA-Z0-9]+)(\s*\[[ 0-9]*\])*\s*$")


def parse_c_arg(c_arg):
    """'float *x' -> VectorArg(float32, 'x'); 'int n' -> ScalarArg(int32, 'n')."""
    text = re.sub(r"\b(const|volatile|__restrict__|restrict)\b", "", c_arg)
    m = _DECLARATOR.search(text)
    if m is None:
        raise ValueError(f"couldn't parse C declarator '{c_arg}'")
    c_type = " ".join(text[:m.start()].split())
    if c_type not in _NAME_TO_DTYPE:
        raise ValueError(f"unknown type '{c_type}'")
    cls = VectorArg if m.group(1) or m.group(3) is not None else ScalarArg
    return cls(_NAME_TO_DTYPE[c_type], m.group(2))


def get_arg_type(c_arg):
    return parse_c_arg(c_arg).struct_char


# ---- memoization per context -----------------------------------------------------------------
context_dependent_memoized_functions = []


def context_dependent_memoize(func):
    """Cache func's results per (current context, arguments), as PyCUDA does."""
    cache = {}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        key = (_device.Context.get_current(), args, frozenset(kwargs.items()))
        if key not in cache:
            context_dependent_memoized_functions.append(cache)
            cache[key] = func(*args, **kwargs)
        return cache[key]

    return wrapper


def clear_context_caches():
    for cache in context_dependent_memoized_functions:
        cache.clear()


# ---- the default context and device data ----------------------------------------------------
def make_default_context(ctx_maker=None):
    """A context on the device CUDA_DEVICE names (0 to settings.devices - 1; 0 by default)."""
    ctx_maker = ctx_maker or (lambda dev: dev.make_context())
    number = os.environ.get("CUDA_DEVICE", "0")
    return ctx_maker(_device.Device(int(number)))


def get_default_device(default=0):
    return _device.Device(default)


class DeviceData:
    def __init__(self, dev=None):
        dev = dev or _device.Context.get_device()
        attr = dev.get_attributes()
        self.max_threads = attr["MAX_THREADS_PER_BLOCK"]
        self.warp_size = attr["WARP_SIZE"]
        self.warps_per_mp = 64
        self.thread_blocks_per_mp = 8
        self.registers = attr["MAX_REGISTERS_PER_BLOCK"]
        self.shared_memory = attr["MAX_SHARED_MEMORY_PER_BLOCK"]
        self.smem_alloc_granularity, self.smem_granularity = 128, 32
        self.register_allocation_unit = "warp"

    def align_bytes(self, word_size=4):
        if word_size not in (4, 8, 16):
            raise ValueError("no alignment possible for fetches of size %d" % word_size)
        return 64 if word_size == 4 else 128

    def align(self, nbytes, word_size=4):
        return -(-nbytes // self.align_bytes(word_size)) * self.align_bytes(word_size)

    def align_words(self, word_size):
        return self.align_bytes(word_size) // word_size

    def align_dtype(self, elements, dtype_size):
        words = self.align_words(dtype_size)
        return -(-elements // words) * words

    def coalesce(self, thread_count):
        return -(-thread_count // 16) * 16


# ---- what PyCUDA's tests use -----------------------------------------------------------------
def mark_cuda_test(inner_f):
    """Run a test inside a fresh default context, as PyCUDA's tests do."""
    @functools.wraps(inner_f)
    def f(*args, **kwargs):
        ctx = make_default_context()
        try:
            inner_f(*args, **kwargs)
        finally:
            ctx.pop()
            clear_context_caches()
            import gc
            gc.collect()

    return f


def init_cuda_context_fixture():
    ctx = make_default_context()
    yield
    ctx.pop()
    clear_context_caches()
    import gc
    gc.collect()


def platform_bits():
    return struct.calcsize("P") * 8


__getattr__ = module_getattr("pycuda.tools")
