"""The functions of `pycuda.gpuarray` that take GPUArrays: conditionals, minimum/maximum,
reductions (sum, dot, min, max and their subset_ forms, any, all), logical operations,
concatenate and stack.

As for the operators (arithmetic.py), NumPy computes them on the simulated device memory with
PyCUDA's dtypes: a reduction returns a 0-d GPUArray of the input's dtype (`float(...)` works),
min and max skip NaNs as CUDA's fminf/fmaxf do, any and all give bool.
"""

import builtins

import numpy as np

from .arithmetic import c_promote, c_scalar, check_same_order, common_dtype
from ..unsupported import NeedsGPU
from .creation import empty, empty_like
from .array import GPUArray
from ..unsupported import TEXTURES

__all__ = ["if_positive", "where", "minimum", "maximum", "sum", "any", "all", "subset_sum",
           "dot", "subset_dot", "min", "max", "subset_min", "subset_max", "logical_and",
           "logical_or", "logical_not", "concatenate", "stack", "transpose", "reshape",
           "take", "multi_take", "multi_take_put", "multi_put"]


# ---- conditionals ---------------------------------------------------------------------------
def _choose(test, criterion, then_, else_, out, call):
    if not criterion.shape == then_.shape == else_.shape:
        raise ValueError(f"{call}: shapes do not match ({criterion.shape}, {then_.shape}, "
                         f"{else_.shape})")
    if then_.dtype != else_.dtype:
        raise ValueError(f"{call}: dtypes do not match ({then_.dtype}, {else_.dtype})")
    out = empty_like(then_) if out is None else out
    check_same_order(call, criterion, then_, else_, out)
    out._view()[...] = np.where(test(criterion._view()), then_._view(), else_._view())
    return out


def if_positive(criterion, then_, else_, out=None, stream=None):
    return _choose(lambda c: c > 0, criterion, then_, else_, out, "if_positive")


def where(criterion, then_, else_, out=None, stream=None):
    return _choose(lambda c: c != 0, criterion, then_, else_, out, "where")


def _minmax(ufunc, name):
    """minimum/maximum: fminf/fmaxf (NaN-ignoring) for floats, min/max for integers; the result
    has the dtype of the array argument (the first, when both are arrays)."""
    def f(a, b, out=None, stream=None):
        if not isinstance(a, GPUArray):
            a, b = b, a  # PyCUDA swaps a scalar first argument
        out = empty_like(a) if out is None else out
        if isinstance(b, GPUArray):
            check_same_order(name, a, b, out)
            y = b._view()
        else:
            check_same_order(name, a, out)
            y = c_scalar(b, a.dtype, f"gpuarray.{name}")
        ufunc(a._view(), y, out=out._view(), casting="unsafe")
        return out
    f.__name__ = name
    return f


minimum = _minmax(np.fmin, "minimum")
maximum = _minmax(np.fmax, "maximum")


# ---- reductions: a 0-d GPUArray, like PyCUDA's ReductionKernel ---------------------------
def sum(a, dtype=None, stream=None, allocator=None):  # noqa: A001 - PyCUDA's name
    dtype = np.dtype(dtype or a.dtype)
    return a._reduced(np.sum(a._reduction_input("sum"), dtype=dtype), dtype, allocator)


def any(a, stream=None, allocator=None):  # noqa: A001
    return a.any(stream, allocator)


def all(a, stream=None, allocator=None):  # noqa: A001
    return a.all(stream, allocator)


def _subset(subset, a, call):
    table, values = subset._reduction_input(call), a._reduction_input(call)
    if table.size and (table.min() < 0 or table.max() >= values.size):
        raise IndexError(f"{call}: the subset holds indices outside 0..{values.size - 1}; on a "
                         "GPU these would read past the array")
    return values[table]


def subset_sum(subset, a, dtype=None, stream=None, allocator=None):
    dtype = np.dtype(dtype or a.dtype)
    values = _subset(subset, a, "subset_sum")
    return a._reduced(np.sum(values, dtype=dtype), dtype, allocator)


def _dot(x, y, dtype, like, allocator):
    dtype = np.dtype(dtype)
    products = np.multiply(x, y, dtype=c_promote(x.dtype, y.dtype))
    return like._reduced(np.sum(products, dtype=dtype), dtype, allocator)


def dot(a, b, dtype=None, stream=None, allocator=None):
    if a.size != b.size:
        raise ValueError(f"dot: the arrays have {a.size} and {b.size} elements")
    check_same_order("dot", a, b)
    return _dot(a._reduction_input("dot"), b._reduction_input("dot"), dtype or common_dtype(a, b), a,
                allocator)


def subset_dot(subset, a, b, dtype=None, stream=None, allocator=None):
    check_same_order("subset_dot", a, b)
    return _dot(_subset(subset, a, "subset_dot"), _subset(subset, b, "subset_dot"),
                dtype or a.dtype, a, allocator)


def _extreme(values, what, dtype):
    """fminf/fmaxf over floats (NaNs skipped), min/max over integers; the neutral element
    (+-inf, or the integer type's limit) for no elements."""
    if dtype.kind not in "fiu":
        raise TypeError("unsupported dtype specified")
    if values.size == 0:
        if dtype.kind == "f":
            return np.inf if what == "min" else -np.inf
        return getattr(np.iinfo(dtype), what)
    ufunc = {"min": np.fmin, "max": np.fmax}[what]
    return ufunc.reduce(values)


def _make_extreme(what):
    def f(a, stream=None):
        return a._reduced(_extreme(a._reduction_input(what), what, a.dtype), a.dtype)

    def subset_f(subset, a, stream=None):
        values = _subset(subset, a, f"subset_{what}")
        return a._reduced(_extreme(values, what, a.dtype), a.dtype)

    f.__name__, subset_f.__name__ = what, f"subset_{what}"
    return f, subset_f


min, subset_min = _make_extreme("min")  # noqa: A001
max, subset_max = _make_extreme("max")  # noqa: A001


# ---- logical operations: bool results ---------------------------------------------------------
def _logical(x1, x2, out, allocator, ufunc, name):
    if np.isscalar(x1) and np.isscalar(x2):
        out = empty((), np.bool_, allocator=allocator) if out is None else out
        out._view()[...] = ufunc(x1, x2)
        return out
    arrays = [x for x in (x1, x2) if isinstance(x, GPUArray)]
    if len(arrays) + builtins.sum(1 for x in (x1, x2) if np.isscalar(x)) != 2:
        raise ValueError(f"{name} can take either scalar or GPUArrays as inputs")
    if len(arrays) == 2 and x1.shape != x2.shape:
        raise NotImplementedError("Broadcasting not supported")
    out = arrays[0]._new_like_me(dtype=np.bool_) if out is None else out
    check_same_order(name, *arrays, out)
    views = [x._view() if isinstance(x, GPUArray) else x for x in (x1, x2)]
    ufunc(*views, out=out._view())
    return out


def logical_and(x1, x2, /, out=None, *, allocator=None):
    return _logical(x1, x2, out, allocator, np.logical_and, "logical_and")


def logical_or(x1, x2, /, out=None, *, allocator=None):
    return _logical(x1, x2, out, allocator, np.logical_or, "logical_or")


def logical_not(x, /, out=None, *, allocator=None):
    if np.isscalar(x):
        out = empty((), np.bool_, allocator=allocator) if out is None else out
        out._view()[...] = np.logical_not(x)
        return out
    out = empty(x.shape, np.bool_, allocator=allocator or x.allocator) if out is None else out
    check_same_order("logical_not", x, out)
    np.logical_not(x._view(), out=out._view())
    return out


# ---- shapes ------------------------------------------------------------------------------------
def concatenate(arrays, axis=0, allocator=None):
    """Join arrays along an existing axis."""
    shape = list(arrays[0].shape)
    rest = shape[:axis] + shape[axis + 1:]
    for i, ary in enumerate(arrays[1:], 1):
        if ary.ndim != len(shape) or list(ary.shape[:axis] + ary.shape[axis + 1:]) != rest:
            raise ValueError(f"{i}'th array has residual not matching other arrays")
        shape[axis] += ary.shape[axis]
    dtype = np.result_type(*(ary.dtype for ary in arrays))
    result = empty(tuple(shape), dtype, allocator=allocator or arrays[0].allocator)
    start, full = 0, (slice(None),) * len(shape)
    for ary in arrays:
        n = ary.shape[axis]
        result[(*full[:axis], slice(start, start + n), *full[axis + 1:])] = ary
        start += n
    return result


def stack(arrays, axis=0, allocator=None):
    """Join arrays along a new axis."""
    if not arrays:
        raise ValueError("need at least one array to stack")
    shape, ndim = arrays[0].shape, arrays[0].ndim
    axis = ndim if axis == -1 else axis
    if not builtins.all(ary.shape == shape for ary in arrays[1:]):
        raise ValueError("arrays must have the same shape")
    if not 0 <= axis <= ndim:
        raise ValueError("invalid axis")
    result = empty((*shape[:axis], len(arrays), *shape[axis:]),
                   np.result_type(*(ary.dtype for ary in arrays)),
                   allocator=allocator or arrays[0].allocator, order="C" if axis == 0 else "F")
    for i, ary in enumerate(arrays):
        result[(slice(None),) * axis + (i,) + (slice(None),) * (ndim - axis)] = ary
    return result


def transpose(a, axes=None):
    return a.transpose(axes)


def reshape(a, *shape, **kwargs):
    return a.reshape(*shape, **kwargs)


# ---- take and put -----------------------------------------------------------------------------
def take(a, indices, out=None, stream=None):
    raise NeedsGPU(TEXTURES, "gpuarray.take")


def multi_take(arrays, indices, out=None, stream=None):
    raise NeedsGPU(TEXTURES, "gpuarray.multi_take")


def multi_take_put(arrays, dest_indices, src_indices, dest_shape=None, out=None,
                   stream=None, src_offsets=None):
    raise NeedsGPU(TEXTURES, "gpuarray.multi_take_put")


def multi_put(arrays, dest_indices, dest_shape=None, out=None, stream=None):
    """out[k][dest_indices[i]] = arrays[k][i], in memory order."""
    if out is None:
        out = [empty(dest_shape, a.dtype, allocator=a.allocator) for a in arrays]
    table = dest_indices._reduction_input("multi_put")
    for src, dst in zip(arrays, out):
        dst._flat()[table] = src._flat()[:table.size]
    return out
