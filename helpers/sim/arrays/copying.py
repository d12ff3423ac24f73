"""Copies between GPUArrays and NumPy arrays, where PyCUDA's would succeed.

PyCUDA copies a contiguous array with one cuMemcpy of its bytes, and others with Memcpy2D or
Memcpy3D, which handle up to two axes with gaps. The simulator copies element by element with
NumPy (always right), but refuses what PyCUDA refuses, and what PyCUDA would get wrong: copying
between a C-ordered and a Fortran-ordered array, whose bytes PyCUDA copies unchanged.
"""

import numpy as np


def _order_problem(dst, src):
    """Why PyCUDA's copy between these layouts would fail or go wrong, or None."""
    if src.flags.forc and dst.flags.forc:
        c = {a.flags.c_contiguous for a in (src, dst)}
        f = {a.flags.f_contiguous for a in (src, dst)}
        if dst.ndim > 1 and len(c) > 1 and len(f) > 1 and src.size > 1:
            return ("one is C-ordered and the other Fortran-ordered: PyCUDA copies the bytes "
                    "as they are, which would transpose the data without an error")
        return None
    info = sorted((src.strides[a], a) for a in range(src.ndim) if src.shape[a] > 1)
    sizes = [src.shape[a] for _, a in info]
    s_str, d_str = [s for s, _ in info], [dst.strides[a] for _, a in info]
    if not sizes or s_str[0] != src.dtype.itemsize or d_str[0] != dst.dtype.itemsize:
        sizes, s_str, d_str = [1, *sizes], [0, *s_str], [0, *d_str]
    i = 1
    while i < len(sizes):
        if d_str[i] < d_str[i - 1]:
            return "src and dst must have same order"
        if s_str[i - 1] * sizes[i - 1] == s_str[i] and d_str[i - 1] * sizes[i - 1] == d_str[i]:
            sizes[i - 1:i + 1] = [sizes[i - 1] * sizes[i]]
            del s_str[i], d_str[i]
        else:
            i += 1
    if len(sizes) > 3:
        return "more than 2 discontiguous axes not supported"
    return None


def copy_array(dst, src):
    """Copy src into dst (GPUArrays or NumPy arrays of the same shape and dtype), where
    PyCUDA's copy (cuMemcpy, Memcpy2D or Memcpy3D) would."""
    check_copy(dst, src)
    target = dst if isinstance(dst, np.ndarray) else dst._view(kernel=False)
    target[...] = src if isinstance(src, np.ndarray) else src._view(kernel=False)


def check_copy(dst, src):
    """Refuse, as copy_array would, a copy PyCUDA refuses or would get wrong."""
    for name, a in (("src", src), ("dst", dst)):
        if not isinstance(a, np.ndarray) and not hasattr(a, "_view"):
            raise TypeError(f"{name} must be GPUArray or ndarray")
    if src.shape != dst.shape:
        raise ValueError(f"src and dst must be same shape (they are {src.shape} and {dst.shape})")
    if src.dtype != dst.dtype:
        raise TypeError(f"src and dst must have same dtype (they are {src.dtype} and {dst.dtype})")
    problem = None if isinstance(src, np.ndarray) and isinstance(dst, np.ndarray) else (
        _order_problem(dst, src))
    if problem:
        raise ValueError(f"copying between a GPUArray and an array of other strides: {problem}. "
                         "Make the layouts match first (np.ascontiguousarray, or .copy()).")
