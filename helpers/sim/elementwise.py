"""`pycuda.elementwise`, for the CPU simulator: kernels generated from a C expression.

`ElementwiseKernel("float a, float *x, float *z", "z[i] = a*x[i]")` writes the CUDA C source
that PyCUDA writes (a grid-stride loop over i around the operation, `#include
<pycuda-complex.hpp>` first) and compiles it with the simulator's SourceModule, so the learner's
expression runs as a kernel: an index past the end of an array is caught and named, and
CUDA_SIM_RACECHECK=1 checks it for races. The get_*_kernel functions generate PyCUDA's kernels
of the same names.
"""

import numpy as np

from .compiler import SourceModule
from .unsupported import module_getattr
from .tools import ScalarArg, VectorArg, context_dependent_memoize, dtype_to_ctype, parse_c_arg

_LOOP = """
    for (i = cta_start + tid; i < n; i += total_threads)
    {
      %(operation)s;
    }
"""

_RANGE_LOOP = """
    if (step < 0)
    {
      for (i = start + (cta_start + tid)*step; i > stop; i += total_threads*step)
      {
        %(operation)s;
      }
    }
    else
    {
      for (i = start + (cta_start + tid)*step; i < stop; i += total_threads*step)
      {
        %(operation)s;
      }
    }
"""

_MODULE = """
#include <pycuda-complex.hpp>

%(preamble)s

extern "C"
__global__ void %(name)s(%(arguments)s)
{
  size_t tid = threadIdx.x;
  size_t total_threads = gridDim.x*blockDim.x;
  size_t cta_start = blockDim.x*blockIdx.x;
  %(index_type)s i;

  %(loop_prep)s;
%(loop)s
  %(after_loop)s;
}
"""


def _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop,
            use_range):
    source = _MODULE % {
        "arguments": ", ".join(arg.declarator() for arg in arguments), "name": name,
        "preamble": preamble, "loop_prep": loop_prep, "after_loop": after_loop,
        "index_type": "long" if use_range else "size_t",
        "loop": (_RANGE_LOOP if use_range else _LOOP) % {"operation": operation}}
    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def get_elwise_module(arguments, operation, name="kernel", keep=False, options=None,
                      preamble="", loop_prep="", after_loop=""):
    return _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop,
                   use_range=False)


def get_elwise_range_module(arguments, operation, name="kernel", keep=False, options=None,
                            preamble="", loop_prep="", after_loop=""):
    return _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop,
                   use_range=True)


def get_elwise_kernel_and_types(arguments, operation, name="kernel", keep=False, options=None,
                                use_range=False, **kwargs):
    if isinstance(arguments, str):
        arguments = [parse_c_arg(arg) for arg in arguments.split(",")]
    arguments = list(arguments)
    if use_range:
        arguments += [ScalarArg(np.intp, "start"), ScalarArg(np.intp, "stop"),
                      ScalarArg(np.intp, "step")]
    else:
        arguments.append(ScalarArg(np.uintp, "n"))
    build = get_elwise_range_module if use_range else get_elwise_module
    mod = build(arguments, operation, name, keep, options, **kwargs)
    func = mod.get_function(name)
    func.prepare("".join(arg.struct_char for arg in arguments))
    return mod, func, arguments


def get_elwise_kernel(arguments, operation, name="kernel", keep=False, options=None, **kwargs):
    return get_elwise_kernel_and_types(arguments, operation, name, keep, options, **kwargs)[1]


class ElementwiseKernel:
    """A kernel that applies `operation` (C code using the index i) for every i of its first
    array argument, or of range=/slice= when given."""

    def __init__(self, arguments, operation, name="kernel", keep=False, options=None, **kwargs):
        self.gen_kwargs = dict(kwargs, keep=keep, options=options, name=name,
                               operation=operation, arguments=arguments)
        self._kernels = {}

    def generate_stride_kernel_and_types(self, use_range):
        if use_range not in self._kernels:
            mod, func, arguments = get_elwise_kernel_and_types(use_range=use_range,
                                                               **self.gen_kwargs)
            if not any(isinstance(arg, VectorArg) for arg in arguments):
                raise AssertionError("ElementwiseKernel can only be used with functions that "
                                     "have at least one vector argument")
            self._kernels[use_range] = mod, func, arguments
        return self._kernels[use_range]

    def get_texref(self, name, use_range=False):
        return self.generate_stride_kernel_and_types(use_range)[0].get_texref(name)

    def __call__(self, *args, range=None, slice=None, stream=None):  # noqa: A002
        if range is not None and slice is not None:
            raise TypeError("may not specify both range and slice keyword arguments")
        _, func, arguments = self.generate_stride_kernel_and_types(
            range is not None or slice is not None)
        vectors, invocation = [], []
        for arg, descr in zip(args, arguments):
            if isinstance(descr, VectorArg):
                if not arg.flags.forc:
                    raise RuntimeError("elementwise kernel cannot deal with non-contiguous "
                                       "arrays")
                vectors.append(arg)
                invocation.append(arg.gpudata)
            else:
                invocation.append(arg)
        first = vectors[0]
        if slice is not None:
            range = _builtin_slice(*slice.indices(first.size))
        if range is not None:
            step = 1 if range.step is None else range.step
            invocation += [range.start, range.stop, step]
            from .gpuarray import splay
            grid, block = splay(abs(range.stop - range.start) // abs(step))
        else:
            grid, block = first._grid, first._block
            invocation.append(first.mem_size)
        func.prepared_async_call(grid, block, stream, *invocation)


_builtin_slice = slice


# ---- PyCUDA's generated kernels -------------------------------------------------------------
def _types(**dtypes):
    return {f"tp_{key}": dtype_to_ctype(dtype) for key, dtype in dtypes.items()}


@context_dependent_memoize
def get_copy_kernel(dtype_dest, dtype_src):
    return get_elwise_kernel("%(tp_dest)s *dest, %(tp_src)s *src"
                             % _types(dest=dtype_dest, src=dtype_src),
                             "dest[i] = src[i]", "copy")


@context_dependent_memoize
def get_fill_kernel(dtype):
    return get_elwise_kernel("%(tp)s a, %(tp)s *z" % {"tp": dtype_to_ctype(dtype)}, "z[i] = a",
                             "fill")


@context_dependent_memoize
def get_axpbyz_kernel(dtype_x, dtype_y, dtype_z):
    return get_elwise_kernel("%(tp_x)s a, %(tp_x)s *x, %(tp_y)s b, %(tp_y)s *y, %(tp_z)s *z"
                             % _types(x=dtype_x, y=dtype_y, z=dtype_z),
                             "z[i] = a*x[i] + b*y[i]", "axpbyz")


@context_dependent_memoize
def get_axpbz_kernel(dtype_x, dtype_z):
    return get_elwise_kernel("%(tp_z)s a, %(tp_x)s *x, %(tp_z)s b, %(tp_z)s *z"
                             % _types(x=dtype_x, z=dtype_z), "z[i] = a * x[i] + b", "axpb")


@context_dependent_memoize
def get_binary_op_kernel(dtype_x, dtype_y, dtype_z, operator):
    return get_elwise_kernel("%(tp_x)s *x, %(tp_y)s *y, %(tp_z)s *z"
                             % _types(x=dtype_x, y=dtype_y, z=dtype_z),
                             f"z[i] = x[i] {operator} y[i]", "multiply")


@context_dependent_memoize
def get_scalar_op_kernel(dtype_x, dtype_a, dtype_y, operator):
    return get_elwise_kernel("%(tp_x)s *x, %(tp_a)s a, %(tp_y)s *y"
                             % _types(x=dtype_x, a=dtype_a, y=dtype_y),
                             f"y[i] = x[i] {operator} a", "scalarop_kernel")


@context_dependent_memoize
def get_unary_func_kernel(func_name, in_dtype, out_dtype=None):
    return get_elwise_kernel("%(tp_in)s *y, %(tp_out)s *z"
                             % _types(**{"in": in_dtype, "out": out_dtype or in_dtype}),
                             f"z[i] = {func_name}(y[i])", f"{func_name}_kernel")


@context_dependent_memoize
def get_binary_func_kernel(func, dtype_x, dtype_y, dtype_z):
    return get_elwise_kernel("%(tp_x)s *x, %(tp_y)s *y, %(tp_z)s *z"
                             % _types(x=dtype_x, y=dtype_y, z=dtype_z),
                             f"z[i] = {func}(x[i], y[i])", f"{func}_kernel")


@context_dependent_memoize
def get_reverse_kernel(dtype):
    return get_elwise_kernel("%(tp)s *y, %(tp)s *z" % {"tp": dtype_to_ctype(dtype)},
                             "z[i] = y[n-1-i]", "reverse")


@context_dependent_memoize
def get_arange_kernel(dtype):
    return get_elwise_kernel("%(tp)s *z, %(tp)s start, %(tp)s step"
                             % {"tp": dtype_to_ctype(dtype)}, "z[i] = start + i*step", "arange")


__getattr__ = module_getattr("pycuda.elementwise")
