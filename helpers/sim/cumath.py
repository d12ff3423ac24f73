"""`pycuda.cumath`, for the CPU simulator: elementwise math functions on GPUArrays, each run as
a generated kernel as in PyCUDA (`z[i] = sinf(y[i])` for a float32 array, `sin` for float64,
the complex functions of pycuda-complex.hpp for complex arrays).

fmod, frexp, ldexp and modf use PyCUDA's kernels, which are written for float32 arrays only; on
a GPU other dtypes would be read as float32 without an error, so the simulator refuses them.
"""

import warnings

import numpy as np

from . import elementwise
from .arrays.arithmetic import ONLY_CONTIGUOUS
from .driver import Stream
from .unsupported import module_getattr
from .gpuarray import GPUArray


def _make_unary_array_func(name):
    def f(array, stream_or_out=None, **kwargs):
        out, stream = kwargs.get("out"), kwargs.get("stream")
        if stream_or_out is not None:
            warnings.warn("please use 'out' or 'stream' keyword arguments", DeprecationWarning,
                          stacklevel=2)
            if isinstance(stream_or_out, Stream):
                stream = stream_or_out
            else:
                out = stream_or_out
        if not array.flags.forc:
            raise RuntimeError(ONLY_CONTIGUOUS)
        if out is None:
            out = array._new_like_me()
        elif (out.dtype, out.strides, out.shape) != (array.dtype, array.strides, array.shape):
            raise ValueError(f"cumath.{name}: out must have the array's dtype, shape and strides")
        func_name = name + "f" if array.dtype == np.float32 else name
        func = elementwise.get_unary_func_kernel(func_name, array.dtype)
        func.prepared_async_call(array._grid, array._block, stream, array.gpudata, out.gpudata,
                                 array.mem_size)
        return out

    f.__name__ = name
    return f


for _name in ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan",
              "asin", "acos", "atan", "sinh", "cosh", "tanh"]:
    globals()[_name] = _make_unary_array_func(_name)


def _float32_only(call, *arrays):
    for a in arrays:
        if not a.flags.forc:
            raise RuntimeError(ONLY_CONTIGUOUS)
        if a.dtype != np.float32:
            raise TypeError(f"cumath.{call}: PyCUDA's kernel for it takes float32 arrays only; "
                            f"this one holds {a.dtype}, which a GPU would misread without an "
                            "error. Convert it with .astype(np.float32).")


def _run(kernel, first, *arrays, stream=None):
    kernel.prepared_async_call(first._grid, first._block, stream,
                               *[a.gpudata for a in arrays], first.mem_size)


def fmod(arg, mod, stream=None):
    """The remainder of arg / mod, elementwise."""
    _float32_only("fmod", arg, mod)
    result = GPUArray(arg.shape, arg.dtype)
    _run(elementwise.get_elwise_kernel("float *arg, float *mod, float *z",
                                       "z[i] = fmod(arg[i], mod[i])", "fmod_kernel"),
         arg, arg, mod, result, stream=stream)
    return result


def frexp(arg, stream=None):
    """(significands, exponents) with arg == significand * 2**exponent."""
    _float32_only("frexp", arg)
    sig, expt = GPUArray(arg.shape, arg.dtype), GPUArray(arg.shape, arg.dtype)
    _run(elementwise.get_elwise_kernel(
        "float *x, float *significand, float *exponent",
        "int expt = 0; significand[i] = frexp(x[i], &expt); exponent[i] = expt;",
        "frexp_kernel"), arg, arg, sig, expt, stream=stream)
    return sig, expt


def ldexp(significand, exponent, stream=None):
    """significand * 2**exponent, elementwise."""
    _float32_only("ldexp", significand, exponent)
    result = GPUArray(significand.shape, significand.dtype)
    _run(elementwise.get_elwise_kernel("float *sig, float *expt, float *z",
                                       "z[i] = ldexp(sig[i], int(expt[i]))", "ldexp_kernel"),
         significand, significand, exponent, result, stream=stream)
    return result


def modf(arg, stream=None):
    """(fractional parts, integer parts) of arg."""
    _float32_only("modf", arg)
    intpart, fracpart = GPUArray(arg.shape, arg.dtype), GPUArray(arg.shape, arg.dtype)
    _run(elementwise.get_elwise_kernel("float *x, float *intpart ,float *fracpart",
                                       "fracpart[i] = modf(x[i], &intpart[i])", "modf_kernel"),
         arg, arg, intpart, fracpart, stream=stream)
    return fracpart, intpart


__getattr__ = module_getattr("pycuda.cumath")
