"""`pycuda.scan`, for the CPU simulator: inclusive and exclusive scans (prefix sums) generated
from a C expression.

`InclusiveScanKernel(np.int32, "a+b")(x)` replaces x by its running sums. The kernels are
PyCUDA's (after Thrust's): each block scans one interval of the input in units of
WG_SIZE x K elements (a scan along K in each thread, then a tree scan across the threads), one
block then scans the blocks' totals, and a last kernel adds each block's carry to its interval.
PyCUDA writes them as Mako templates; here the same code is built with Python's formatting.
"""

import numpy as np

from . import driver
from .compiler import SourceModule
from .unsupported import module_getattr
from .tools import dtype_to_ctype

_PREAMBLE = """
#define local_barrier() __syncthreads();
#define WITHIN_KERNEL __device__
#define KERNEL extern "C" __global__
#define GLOBAL_MEM /* empty */
#define LOCAL_MEM __shared__
#define LOCAL_MEM_ARG /* empty */
#define REQD_WG_SIZE(X,Y,Z) __launch_bounds__(X*Y*Z, 1)
#define LID_0 threadIdx.x
#define GID_0 blockIdx.x

#define WG_SIZE %(wg_size)d
#define SCAN_EXPR(a, b) %(scan_expr)s

%(preamble)s

typedef %(scan_type)s scan_type;
"""


def _group_scan(name, wg_size, with_bounds_check):
    """A tree scan of array[0..WG_SIZE) by the block's threads, one step per power of two."""
    bound = "\n      && LID_0 < n" if with_bounds_check else ""
    steps, offset = [], 1
    while offset <= wg_size:
        steps.append(f"""
    if (LID_0 >= {offset}{bound})
    {{
      scan_type tmp = array[LID_0 - {offset}];
      val = SCAN_EXPR(tmp, val);
    }}
    local_barrier();
    array[LID_0] = val;
    local_barrier();""")
        offset *= 2
    n_arg = ", const size_t n" if with_bounds_check else ""
    return (f"WITHIN_KERNEL\nvoid {name}(LOCAL_MEM_ARG scan_type *array{n_arg})\n{{\n"
            f"    scan_type val = array[LID_0];\n{''.join(steps)}\n}}\n")


def _unit(is_tail):
    """One unit of WG_SIZE x K elements of the interval: load, scan along K, tree scan along
    the threads, update, store (the tail unit checks bounds)."""
    def tail(cond):
        return f"if ({cond})" if is_tail else ""
    loop = "if (unit_base < interval_end)" if is_tail else (
        "for(; unit_base + unit_size <= interval_end; unit_base += unit_size)")
    group_scan = ("scan_group_n(&ldata[K][0], offset_end / K);" if is_tail
                  else "scan_group(&ldata[K][0]);")
    return f"""
    {loop}
    {{
      for(unsigned int k = 0; k < K; k++)
      {{
        const size_t offset = k*WG_SIZE + LID_0;
        {tail("unit_base + offset < interval_end")}
        {{ ldata[offset % K][offset / K] = input[unit_base + offset]; }}
      }}
      if (LID_0 == 0 && unit_base != interval_begin)
        ldata[0][0] = SCAN_EXPR(ldata[K][WG_SIZE - 1], ldata[0][0]);
      local_barrier();

      scan_type sum = ldata[0][LID_0];
      {"const size_t offset_end = interval_end - unit_base;" if is_tail else ""}
      for(unsigned int k = 1; k < K; k++)
      {{
        {tail("K * LID_0 + k < offset_end")}
        {{
          scan_type tmp = ldata[k][LID_0];
          sum = SCAN_EXPR(sum, tmp);
          ldata[k][LID_0] = sum;
        }}
      }}
      ldata[K][LID_0] = sum;
      local_barrier();

      {group_scan}

      if (LID_0 > 0)
      {{
        sum = ldata[K][LID_0 - 1];
        for(unsigned int k = 0; k < K; k++)
        {{
          {tail("K * LID_0 + k < offset_end")}
          {{
            scan_type tmp = ldata[k][LID_0];
            ldata[k][LID_0] = SCAN_EXPR(sum, tmp);
          }}
        }}
      }}
      local_barrier();

      for(unsigned int k = 0; k < K; k++)
      {{
        const size_t offset = k*WG_SIZE + LID_0;
        {tail("unit_base + offset < interval_end")}
        {{ output[unit_base + offset] = ldata[offset % K][offset / K]; }}
      }}
      local_barrier();
    }}"""


def _scan_intervals_source(name_prefix, wg_size, seq_batches):
    return (f"#define K {seq_batches}\n"
            + _group_scan("scan_group", wg_size, False)
            + _group_scan("scan_group_n", wg_size, True) + f"""
KERNEL
REQD_WG_SIZE(WG_SIZE, 1, 1)
void {name_prefix}_scan_intervals(GLOBAL_MEM scan_type *input, const size_t N,
    const unsigned int interval_size, GLOBAL_MEM scan_type *output,
    GLOBAL_MEM scan_type *group_results)
{{
    LOCAL_MEM scan_type ldata[K + 1][WG_SIZE + 1];
    const size_t interval_begin = interval_size * GID_0;
    const size_t interval_end   = min((size_t) (interval_begin + interval_size), N);
    const unsigned int unit_size  = K * WG_SIZE;
    size_t unit_base = interval_begin;
    {_unit(False)}
    {_unit(True)}
    if (LID_0 == 0)
        group_results[GID_0] = output[interval_end - 1];
}}
""")


_INCLUSIVE_UPDATE = """
KERNEL
REQD_WG_SIZE(WG_SIZE, 1, 1)
void %(name_prefix)s_final_update(GLOBAL_MEM scan_type *output, const size_t N,
    const unsigned int interval_size, GLOBAL_MEM scan_type *group_results)
{
    const size_t interval_begin = interval_size * GID_0;
    const size_t interval_end   = min((size_t) (interval_begin + interval_size), N);
    if (GID_0 == 0)
        return;
    scan_type prev_group_sum = group_results[GID_0 - 1];
    output += interval_begin + LID_0;
    for(size_t unit_base = interval_begin; unit_base < interval_end;
        unit_base += WG_SIZE, output += WG_SIZE)
    {
        const size_t i = unit_base + LID_0;
        if(i < interval_end)
            *output = SCAN_EXPR(prev_group_sum, *output);
    }
}
"""

_EXCLUSIVE_UPDATE = """
KERNEL
REQD_WG_SIZE(WG_SIZE, 1, 1)
void %(name_prefix)s_final_update(GLOBAL_MEM scan_type *output, const size_t N,
    const unsigned int interval_size, GLOBAL_MEM scan_type *group_results)
{
    LOCAL_MEM scan_type ldata[WG_SIZE];
    const size_t interval_begin = interval_size * GID_0;
    const size_t interval_end   = min((size_t) (interval_begin + interval_size), N);
    scan_type carry = %(neutral)s;
    if(GID_0 != 0)
    {
        scan_type tmp = group_results[GID_0 - 1];
        carry = SCAN_EXPR(carry, tmp);
    }
    scan_type val = carry;
    output += interval_begin + LID_0;
    for (size_t unit_base = interval_begin; unit_base < interval_end;
        unit_base += WG_SIZE, output += WG_SIZE)
    {
        const size_t i = unit_base + LID_0;
        if(i < interval_end)
        {
            scan_type tmp = *output;
            ldata[LID_0] = SCAN_EXPR(carry, tmp);
        }
        local_barrier();
        if (LID_0 != 0)
            val = ldata[LID_0 - 1];
        if (i < interval_end)
            *output = val;
        if(LID_0 == 0)
            val = ldata[WG_SIZE - 1];
        local_barrier();
    }
}
"""


def uniform_interval_splitting(n, granularity, max_intervals):
    """(interval size, number of intervals): n split into at most max_intervals intervals
    whose sizes are multiples of granularity (pytools' function of that name)."""
    grains = -(-n // granularity)
    if grains <= max_intervals:
        return granularity, grains
    interval_size = -(-grains // max_intervals) * granularity
    return interval_size, -(-n // interval_size)


class _ScanKernelBase:
    scan_wg_size, update_wg_size, scan_wg_seq_batches = 128, 256, 6

    def __init__(self, dtype, scan_expr, neutral=None, name_prefix="scan", options=None,
                 preamble="", devices=None):
        if isinstance(self, ExclusiveScanKernel) and neutral is None:
            raise ValueError("neutral element is required for exclusive scan")
        self.dtype, self.neutral = np.dtype(dtype), neutral
        values = {"preamble": preamble, "name_prefix": name_prefix, "neutral": neutral,
                  "scan_type": dtype_to_ctype(self.dtype), "scan_expr": scan_expr}
        intervals_src = (_PREAMBLE % dict(values, wg_size=self.scan_wg_size)
                         + _scan_intervals_source(name_prefix, self.scan_wg_size,
                                                  self.scan_wg_seq_batches))
        self.scan_intervals_knl = SourceModule(intervals_src, options=options, no_extern_c=True
                                               ).get_function(name_prefix + "_scan_intervals")
        self.scan_intervals_knl.prepare("PNIPP")
        update_src = (_PREAMBLE % dict(values, wg_size=self.update_wg_size)
                      + self.final_update_template % values)
        self.final_update_knl = SourceModule(update_src, options=options, no_extern_c=True
                                             ).get_function(name_prefix + "_final_update")
        self.final_update_knl.prepare("PNIP")

    def __call__(self, input_ary, output_ary=None, allocator=None, stream=None):
        allocator = allocator or input_ary.allocator
        if output_ary is None:
            output_ary = input_ary
        if isinstance(output_ary, str) and output_ary == "new":
            from .gpuarray import empty_like
            output_ary = empty_like(input_ary)
        if input_ary.shape != output_ary.shape:
            raise ValueError("input and output must have the same shape")
        if not input_ary.flags.forc:
            raise RuntimeError("ScanKernel cannot deal with non-contiguous arrays")
        n, = input_ary.shape
        if not n:
            return output_ary
        dev = driver.Context.get_device()
        max_groups = 3 * dev.get_attribute(driver.device_attribute.MULTIPROCESSOR_COUNT)
        interval_size, num_groups = uniform_interval_splitting(
            n, self.scan_wg_size * self.scan_wg_seq_batches, max_groups)
        block_results = allocator(self.dtype.itemsize * num_groups)
        dummy_results = allocator(self.dtype.itemsize)
        self.scan_intervals_knl.prepared_async_call(
            (num_groups, 1), (self.scan_wg_size, 1, 1), stream, input_ary.gpudata, n,
            interval_size, output_ary.gpudata, block_results)
        self.scan_intervals_knl.prepared_async_call(
            (1, 1), (self.scan_wg_size, 1, 1), stream, block_results, num_groups,
            interval_size, block_results, dummy_results)
        self.final_update_knl.prepared_async_call(
            (num_groups, 1), (self.update_wg_size, 1, 1), stream, output_ary.gpudata, n,
            interval_size, block_results)
        return output_ary


class InclusiveScanKernel(_ScanKernelBase):
    final_update_template = _INCLUSIVE_UPDATE


class ExclusiveScanKernel(_ScanKernelBase):
    final_update_template = _EXCLUSIVE_UPDATE


__getattr__ = module_getattr("pycuda.scan")
