"""C++ casts and shifts whose answer C++ leaves to the machine: a GPU's, never silently another.

`(int)x` of NaN or of a float outside int's range, and `x << k` with k of 32 or more, are undefined
in C++. x86 gives INT_MIN or wraps around, and takes a shift's count modulo 32; a GPU's cvt
saturates and its shl/shr clamp the count. The simulator cannot change C++'s operators: where its
answer would differ from the GPU's, it stops the launch with a ConversionError or ShiftError that
names the thread, the line, the operand and what a GPU gives. Where the two agree (300.0f to
unsigned char is 44 on both, NaN to long long is 0x8000000000000000 on both), the kernel runs.

On PyCUDA each kernel runs and gives the GPU's values (as an H200 with CUDA 13.0 gave them); on
the simulator the same kernel stops, with those values in the error's fields, or runs unchanged.
"""

import math

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray

KERNELS = r"""
__global__ void to_int(const float *x, int *out) { out[threadIdx.x] = (int)x[threadIdx.x]; }
__global__ void to_uint(const float *x, unsigned *out) { out[threadIdx.x] = (unsigned)x[threadIdx.x]; }
__global__ void to_uchar(const float *x, unsigned char *out) {
    out[threadIdx.x] = (unsigned char)x[threadIdx.x];
}
__global__ void to_ll(const double *x, long long *out) { out[threadIdx.x] = (long long)x[threadIdx.x]; }
__global__ void shl(const unsigned *v, const int *k, unsigned *out) {
    out[threadIdx.x] = v[threadIdx.x] << k[threadIdx.x];
}
__global__ void shr(const int *v, const int *k, int *out) {
    out[threadIdx.x] = v[threadIdx.x] >> k[threadIdx.x];
}
__global__ void shl64(const unsigned long long *v, const int *k, unsigned long long *out) {
    out[threadIdx.x] = v[threadIdx.x] << k[threadIdx.x];
}
"""
LINES = {"to_int": 2, "to_uint": 3, "to_uchar": 5, "to_ll": 7, "shl": 9, "shr": 12, "shl64": 15}
CASTS = {"to_int": (np.float32, np.int32), "to_uint": (np.float32, np.uint32),
         "to_uchar": (np.float32, np.uint8), "to_ll": (np.float64, np.int64)}
SHIFTS = {"shl": (np.uint32, "<<"), "shr": (np.int32, ">>"), "shl64": (np.uint64, "<<")}

# (kernel, input, what a GPU gives, what this CPU gives where it differs, else None)
BAD_CASTS = [("to_int", 3e9, 2**31 - 1, -2**31), ("to_int", math.nan, 0, -2**31),
             ("to_uint", -1.0, 0, 2**32 - 1), ("to_uint", 5e9, 2**32 - 1, 705032704),
             ("to_uchar", -1.0, 0, 255), ("to_uchar", 1e20, 255, 0),
             ("to_ll", 1e300, 2**63 - 1, -2**63),
             ("to_int", -3e9, -2**31, None), ("to_uchar", 300.0, 44, None),
             ("to_ll", math.nan, -2**63, None)]
# (kernel, value shifted, count, what a GPU gives)
BAD_SHIFTS = [("shl", 1, 34, 0), ("shl", 5, 32, 0), ("shl", 1, -1, 0), ("shr", -8, 40, -1),
              ("shr", 8, 33, 0), ("shl64", 1, 64, 0), ("shl64", 3, 100, 0)]


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS)


def _cast(mod, name, values):
    source, target = CASTS[name]
    out = gpuarray.zeros(len(values), target)
    mod.get_function(name)(gpuarray.to_gpu(np.array(values, source)), out,
                           block=(len(values), 1, 1))
    return out.get().tolist()


def _shift(mod, name, values, counts):
    dtype, _ = SHIFTS[name]
    out = gpuarray.zeros(len(values), dtype)
    mod.get_function(name)(gpuarray.to_gpu(np.array(values).astype(dtype)),
                           gpuarray.to_gpu(np.array(counts, np.int32)), out,
                           block=(len(values), 1, 1))
    return out.get().tolist()


@pytest.mark.parametrize("name,x,gpu,cpu", BAD_CASTS, ids=lambda v: str(v))
def test_a_cast_out_of_range_gives_the_gpus_value_or_stops_on_the_simulator(mod, name, x, gpu, cpu):
    values = [1.5, x]  # thread 1 converts the bad value
    if BACKEND == "pycuda" or cpu is None:
        assert _cast(mod, name, values) == [1, gpu]
        return
    with pytest.raises(drv.LaunchError) as caught:
        _cast(mod, name, values)
    err = caught.value
    assert (err.kind, err.kernel, err.thread, err.block) == ("conversion", name, (1, 0, 0), (0, 0, 0))
    assert err.line == f"kernel.cu:{LINES[name]}"
    assert (err.gpu, err.cpu) == (gpu, cpu)
    as_given = float(np.array(x, CASTS[name][0]))  # a float32's value, as the kernel read it
    assert err.value == as_given or (math.isnan(x) and math.isnan(err.value))
    assert (err.from_type, err.to_type) == (
        {np.float32: "float", np.float64: "double"}[CASTS[name][0]],
        {"to_int": "int", "to_uint": "unsigned int", "to_uchar": "unsigned char",
         "to_ll": "long long int"}[name])


@pytest.mark.parametrize("name,value,count,gpu", BAD_SHIFTS, ids=lambda v: str(v))
def test_a_shift_by_the_width_or_more_gives_the_gpus_value_or_stops_on_the_simulator(
        mod, name, value, count, gpu):
    dtype, operator = SHIFTS[name]
    if BACKEND == "pycuda":
        assert _shift(mod, name, [value, value], [1, count])[1] == np.array(gpu).astype(dtype)
        return
    with pytest.raises(drv.LaunchError) as caught:
        _shift(mod, name, [value, value], [1, count])
    err = caught.value
    assert (err.kind, err.kernel, err.thread) == ("shift", name, (1, 0, 0))
    assert err.line == f"kernel.cu:{LINES[name]}"
    assert (err.operand, err.count, err.operator, err.gpu) == (value, count, operator, gpu)
    assert err.count_type == "int" and err.operand_type == {
        "shl": "unsigned int", "shr": "int", "shl64": "long long unsigned int"}[name]


def test_casts_in_range_and_shifts_below_the_width_run_unchanged(mod):
    assert _cast(mod, "to_int", [1.9, -2.9, 2147483520.0]) == [1, -2, 2147483520]
    assert _cast(mod, "to_uchar", [0.0, 255.9, -0.5]) == [0, 255, 0]
    assert _cast(mod, "to_ll", [-1e18, 2.0**62]) == [-10**18, 2**62]
    counts = list(range(32))
    assert _shift(mod, "shl", [1] * 32, counts) == [1 << k for k in counts]
    assert _shift(mod, "shr", [-2**31] * 32, counts) == [-2**31 >> k for k in counts]
    assert _shift(mod, "shl64", [1] * 32, [k + 32 for k in counts]) == [1 << (k + 32) for k in counts]
    assert _shift(mod, "shl", [0, 0], [40, -3]) == [0, 0]  # 0 on both, whatever the count
