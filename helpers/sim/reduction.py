"""`pycuda.reduction`, for the CPU simulator: reductions generated from C expressions.

`ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
arguments="float *x, float *y")` generates PyCUDA's two-stage reduction: stage 1 has each block
of 512 threads reduce `seq_count` runs of elements into one value, stage 2 reduces those values
the same way until one is left, returned as a 0-d GPUArray.

One difference in the generated code: PyCUDA's kernel finishes its tree inside the last warp
without barriers ("warp-synchronous", written for GPUs before Volta, a race on newer ones); here
every step of the tree ends with __syncthreads(), so the simulator, which runs a block's threads
one after another between barriers, computes the same sum a GPU does.
"""

import numpy as np

from .compiler import SourceModule
from .unsupported import module_getattr
from .tools import context_dependent_memoize, dtype_to_ctype, get_arg_type

BLOCK_SIZE = 512
_MAX_BLOCK_COUNT, _SMALL_SEQ_COUNT = 1024, 4

_SOURCE = """
#include <pycuda-complex.hpp>

#define BLOCK_SIZE %(block_size)d
#define READ_AND_MAP(i) (%(map_expr)s)
#define REDUCE(a, b) (%(reduce_expr)s)

%(preamble)s

typedef %(out_type)s out_type;

extern "C"
__global__
void %(name)s(out_type *out, %(arguments)s, unsigned int seq_count, size_t n)
{
  extern __shared__ out_type sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = blockIdx.x*BLOCK_SIZE*seq_count + tid;

  out_type acc = %(neutral)s;
  for (unsigned s = 0; s < seq_count; ++s)
  {
    if (i >= n)
      break;
    acc = REDUCE(acc, READ_AND_MAP(i));
    i += BLOCK_SIZE;
  }
  sdata[tid] = acc;
  __syncthreads();

  for (unsigned int half = BLOCK_SIZE / 2; half > 0; half /= 2)
  {
    if (tid < half)
      sdata[tid] = REDUCE(sdata[tid], sdata[tid + half]);
    __syncthreads();
  }

  if (tid == 0) out[blockIdx.x] = sdata[0];
}
"""


def get_reduction_module(out_type, block_size, neutral, reduce_expr, map_expr, arguments,
                         name="reduce_kernel", keep=False, options=None, preamble=""):
    source = _SOURCE % {
        "out_type": out_type, "arguments": arguments, "block_size": block_size,
        "neutral": neutral, "reduce_expr": reduce_expr, "map_expr": map_expr, "name": name,
        "preamble": preamble}
    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def get_reduction_kernel_and_types(stage, out_type, block_size, neutral, reduce_expr,
                                   map_expr=None, arguments=None, name="reduce_kernel",
                                   keep=False, options=None, preamble=""):
    if stage == 1:
        map_expr = map_expr or "in[i]"
    else:
        map_expr = map_expr or "pycuda_reduction_inp[i]"
        in_arg = f"const {out_type} *pycuda_reduction_inp"
        arguments = f"{in_arg}, {arguments}" if arguments else in_arg
    mod = get_reduction_module(out_type, block_size, neutral, reduce_expr, map_expr, arguments,
                               name, keep, options, preamble)
    func = mod.get_function(name)
    arg_types = [get_arg_type(arg) for arg in arguments.split(",")]
    func.prepare("P%sIN" % "".join(arg_types))
    return func, arg_types


class ReductionKernel:
    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None, arguments=None,
                 name="reduce_kernel", keep=False, options=None, preamble="", allocator=None):
        self.dtype_out = np.dtype(dtype_out)
        self.block_size = BLOCK_SIZE
        common = dict(keep=keep, options=options, preamble=preamble)
        out_type = dtype_to_ctype(dtype_out)
        s1_func, self.stage1_arg_types = get_reduction_kernel_and_types(
            1, out_type, self.block_size, neutral, reduce_expr, map_expr, arguments,
            name=name + "_stage1", **common)
        s2_func, self.stage2_arg_types = get_reduction_kernel_and_types(
            2, out_type, self.block_size, neutral, reduce_expr, arguments=arguments,
            name=name + "_stage2", **common)
        self.stage1_func, self.stage2_func = s1_func.prepared_async_call, s2_func.prepared_async_call
        if "P" not in self.stage1_arg_types:
            raise AssertionError("ReductionKernel can only be used with functions that have at "
                                 "least one vector argument")

    def _launch_shape(self, n):
        """(blocks, elements a thread reads): PyCUDA's choice."""
        if n <= self.block_size * _SMALL_SEQ_COUNT * _MAX_BLOCK_COUNT:
            total = _SMALL_SEQ_COUNT * self.block_size
            return (n + total - 1) // total, _SMALL_SEQ_COUNT
        macroblock = _MAX_BLOCK_COUNT * self.block_size
        return _MAX_BLOCK_COUNT, (n + macroblock - 1) // macroblock

    def __call__(self, *args, **kwargs):
        from .gpuarray import empty
        stream, out = kwargs.get("stream"), kwargs.pop("out", None)
        s1_func, s2_func = self.stage1_func, self.stage2_func
        if kwargs.get("kernel_wrapper") is not None:
            s1_func, s2_func = kwargs["kernel_wrapper"](s1_func), kwargs["kernel_wrapper"](s2_func)
        func, arg_types, stage1_args = s1_func, self.stage1_arg_types, args
        while True:
            invocation, vectors = [], []
            for arg, arg_type in zip(args, arg_types):
                if arg_type == "P":
                    if not arg.flags.forc:
                        raise RuntimeError("ReductionKernel cannot deal with non-contiguous "
                                           "arrays")
                    vectors.append(arg)
                    invocation.append(arg.gpudata)
                else:
                    invocation.append(arg)
            size = vectors[0].size
            allocator = kwargs.get("allocator") or vectors[0].allocator
            block_count, seq_count = self._launch_shape(size)
            if block_count == 1 and out is not None:
                if out.dtype != self.dtype_out:
                    raise ValueError("out must have the same dtype as dtype_out")
                if out.size == 0:
                    raise ValueError("out array is empty")
                result = out
            else:
                result = empty(() if block_count == 1 else (block_count,), self.dtype_out,
                               allocator=allocator)
            func((block_count, 1), (self.block_size, 1, 1), stream, result.gpudata,
                 *invocation, seq_count, size,
                 shared_size=self.block_size * self.dtype_out.itemsize)
            if block_count == 1:
                return result
            func, arg_types, args = s2_func, self.stage2_arg_types, (result, *stage1_args)


# ---- PyCUDA's reductions, as kernels (gpuarray.sum and friends compute with NumPy) ----------
def _reduction(dtype_out, neutral, reduce_expr, map_expr=None, **types):
    arguments = ", ".join(f"const {dtype_to_ctype(dtype)} *{name}" for name, dtype in types.items())
    preamble = "#define MY_INFINITY (1./0)" if "INFINITY" in str(neutral) else ""
    return ReductionKernel(dtype_out, neutral, reduce_expr, map_expr, arguments,
                           preamble=preamble)


@context_dependent_memoize
def get_sum_kernel(dtype_out, dtype_in):
    return _reduction(dtype_out or dtype_in, "0", "a+b", **{"in": dtype_in})


@context_dependent_memoize
def get_any_kernel(dtype_out, dtype_in):
    return _reduction(dtype_out or dtype_in, "0", "(a != 0) || (b != 0)", **{"in": dtype_in})


@context_dependent_memoize
def get_all_kernel(dtype_out, dtype_in):
    return _reduction(dtype_out or dtype_in, "1", "(a != 0) && (b != 0)", **{"in": dtype_in})


@context_dependent_memoize
def get_subset_sum_kernel(dtype_out, dtype_subset, dtype_in):
    return _reduction(dtype_out or dtype_in, "0", "a+b", "in[lookup_tbl[i]]",
                      lookup_tbl=dtype_subset, **{"in": dtype_in})


@context_dependent_memoize
def get_dot_kernel(dtype_out, dtype_a, dtype_b):
    return _reduction(dtype_out, "0", "a+b", "a[i]*b[i]", a=dtype_a, b=dtype_b)


@context_dependent_memoize
def get_subset_dot_kernel(dtype_out, dtype_subset, dtype_a=None, dtype_b=None):
    dtype_a = dtype_a or dtype_out
    return _reduction(dtype_out or dtype_a, "0", "a+b", "a[lookup_tbl[i]]*b[lookup_tbl[i]]",
                      lookup_tbl=dtype_subset, a=dtype_a, b=dtype_b or dtype_a)


def get_minmax_neutral(what, dtype):
    dtype = np.dtype(dtype)
    if what not in ("min", "max"):
        raise ValueError("what is not min or max.")
    if dtype.kind in "fc":
        return "MY_INFINITY" if what == "min" else "-MY_INFINITY"
    info = np.iinfo(dtype)
    return str(info.max if what == "min" else info.min)


def _minmax_expr(what, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return f"f{what}(a,b)"
    if dtype == np.float32:
        return f"f{what}f(a,b)"
    if dtype.kind in "iu":
        return f"{what}(a,b)"
    raise TypeError("unsupported dtype specified")


@context_dependent_memoize
def get_minmax_kernel(what, dtype):
    return _reduction(dtype, get_minmax_neutral(what, dtype), _minmax_expr(what, dtype),
                      **{"in": dtype})


@context_dependent_memoize
def get_subset_minmax_kernel(what, dtype, dtype_subset):
    return _reduction(dtype, get_minmax_neutral(what, dtype), _minmax_expr(what, dtype),
                      "in[lookup_tbl[i]]", lookup_tbl=dtype_subset, **{"in": dtype})


__getattr__ = module_getattr("pycuda.reduction")
