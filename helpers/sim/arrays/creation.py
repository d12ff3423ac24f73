"""The functions of `pycuda.gpuarray` that make arrays: to_gpu, empty, zeros, ones, the *_like
functions (with NumPy's order="K" rules) and arange (with PyCUDA's dtype guess)."""

import warnings

import numpy as np

from ..machine.allocations import mem_alloc
from .array import GPUArray
from .layout import compact_strides

__all__ = ["to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like", "zeros_like",
           "ones_like", "arange"]


def to_gpu(ary, allocator=mem_alloc):
    """A GPUArray holding a copy of the NumPy array ary, in the same memory order."""
    if not hasattr(ary, "shape") or not hasattr(ary, "dtype"):
        raise TypeError(f"to_gpu takes a NumPy array, not a {type(ary).__name__}; "
                        "wrap it first, e.g. to_gpu(np.array(x, dtype=np.float32))")
    result = GPUArray(ary.shape, ary.dtype, allocator, strides=compact_strides(ary))
    result.set(ary)
    return result


def to_gpu_async(ary, allocator=mem_alloc, stream=None):
    """A GPUArray that receives a copy of ary when the stream reaches the copy (at once from
    pageable memory, which CUDA stages; page-locked memory is read when the copy runs)."""
    result = GPUArray(ary.shape, ary.dtype, allocator, strides=compact_strides(ary))
    result.set_async(ary, stream)
    return result


empty = GPUArray


def zeros(shape, dtype=np.float64, allocator=mem_alloc, order="C"):
    return GPUArray(shape, dtype, allocator, order=order).fill(0)


def ones(shape, dtype=np.float64, allocator=mem_alloc, order="C"):
    return GPUArray(shape, dtype, allocator, order=order).fill(1)


def _array_like(other, dtype, order):
    """(dtype, order, strides) as NumPy's *_like functions choose them."""
    strides = None
    if order == "A":
        order = "F" if other.flags.f_contiguous and not other.flags.c_contiguous else "C"
    elif order == "K":
        if other.flags.c_contiguous or other.ndim <= 1:
            order = "C"
        elif other.flags.f_contiguous:
            order = "F"
        else:
            ratio = np.dtype(dtype or other.dtype).itemsize / other.itemsize
            strides = [int(abs(s) * ratio) for s in other.strides]
    elif order not in ("C", "F"):
        raise ValueError(f"Unsupported order: {order!r}")
    return dtype or other.dtype, order, strides


def empty_like(other_ary, dtype=None, order="K"):
    dtype, order, strides = _array_like(other_ary, dtype, order)
    return GPUArray(other_ary.shape, dtype, other_ary.allocator, order=order, strides=strides)


def zeros_like(other_ary, dtype=None, order="K"):
    return empty_like(other_ary, dtype, order).fill(0)


def ones_like(other_ary, dtype=None, order="K"):
    return empty_like(other_ary, dtype, order).fill(1)


def arange(*args, **kwargs):
    """Like np.arange, with PyCUDA's dtype guess (and its warning when it guesses)."""
    dtype = kwargs.pop("dtype", None)
    if args and isinstance(args[-1], np.dtype):
        args, dtype = args[:-1], args[-1]
    if len(args) > 3:
        raise ValueError("too many arguments")
    names = [(), ("stop",), ("start", "stop"), ("start", "stop", "step")][len(args)]
    values = dict(zip(names, args))
    for key in ("start", "stop", "step"):
        if key in kwargs:
            if key in values:
                raise ValueError(f"may not specify '{key}' by position and keyword")
            values[key] = kwargs.pop(key)
    kwargs.pop("stream", None)
    if kwargs or "stop" not in values:
        raise ValueError(f"unexpected keyword arguments {sorted(kwargs)}" if kwargs
                         else "stop argument required")
    start, stop, step = values.get("start", 0), values["stop"], values.get("step", 1)
    if dtype is None:
        dtype = np.array([start, stop, step]).dtype
        if dtype != np.float32:
            warnings.warn("behavior change: arange guessed dtype other than float32. "
                          "suggest specifying explicit dtype.", stacklevel=2)
    dtype = np.dtype(dtype)
    start, stop, step = dtype.type(start), dtype.type(stop), dtype.type(step)
    size = int(np.ceil((stop - start) / step))
    result = GPUArray((size,), dtype)
    if size:
        wide = np.float64 if dtype.kind == "f" else np.int64
        i = np.arange(size, dtype=wide)
        np.copyto(result._view(), i * step.astype(wide) + start.astype(wide), casting="unsafe")
    return result
