"""The math functions take on the simulator the argument types nvcc lets them take in device code
(include/sim_math_args.h).

nvcc refuses sqrt of an int ("calling a constexpr __host__ function("sqrt") from a __global__
function is not allowed"), fmin of a float and an int, min of an int and a float ("more than one
instance of overloaded function"); g++ took them all, so a kernel that ran on a laptop did not
build on a GPU. Each call below is compiled by nvcc and by the simulator, and both must give the
same verdict; the refusals are MathArgumentErrors with the function and the types as fields.
"""

import hashlib
import json
import re
import subprocess

import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import CompileError, HostFunctionError, MathArgumentError

VARIABLES = {"n": "int", "u": "unsigned", "l": "long", "c": "char", "b": "bool", "x": "float",
             "d": "double", "ll": "long long"}
ONE = ["sqrt", "ceil", "floor", "exp", "log", "log2", "sin", "cos", "tanh", "fabs", "round", "trunc",
       "lround", "isnan", "signbit", "rsqrt", "exp10", "erfinv", "sinpi", "abs"]
TWO = ["fmin", "fmax", "fmod", "atan2", "hypot", "copysign", "pow", "min", "max", "ldexp",
       "remainder", "isless"]
PAIRS = [("x", "x"), ("d", "d"), ("x", "d"), ("x", "n"), ("n", "x"), ("n", "n"), ("u", "n"),
         ("l", "n"), ("l", "l"), ("c", "n")]
CALLS = ([f"{f}({v})" for f in ONE for v in ("n", "u", "x", "d", "b")]
         + [f"{f}({a}, {b})" for f in TWO for a, b in PAIRS]
         + ["fma(x, x, x)", "fma(x, x, 1)", "fma(x, x, 1.0f)", "fma(d, d, 1)", "frexp(x, &q)",
            "frexp(n, &q)", "remquo(x, n, &q)", "std::sqrt(x)", "std::sqrt(n)", "ceil(n / 2)",
            "ceil(n / 2.0f)", "sqrt((float)n)", "max(x, 0)", "max(x, 0.0f)", "min(n, 2)",
            "std::max(x, 2.0f)", "std::min(n, 2)", "std::max(d, d)"])
DECLARED = "unsigned u = n; long l = n; char c = 1; bool b = true; long long ll = n; int q;"


def source(calls):
    """One kernel a call, a call a line (line i + 1 holds calls[i])."""
    return "".join(f"__global__ void k{i}(double *o, int n, float x, double d) "
                   f"{{ {DECLARED} o[0] = {call}; }}\n" for i, call in enumerate(calls))


def _until_clean(calls, refused_lines):
    """The indexes of the calls that do not compile: compiled again without those that failed
    until nothing fails, since nvcc checks host calls only once its earlier checks found nothing."""
    bad, left = set(), list(range(len(calls)))
    while left:
        found = {left[i - 1] for i in refused_lines([calls[j] for j in left])}
        if not found:
            return bad
        bad |= found
        left = [j for j in left if j not in found]
    return bad


def nvcc_refuses(nvcc, accepted, tmp_path):
    """The calls nvcc refuses, kept in the compile cache for this nvcc and these calls."""
    kept, this_nvcc = accepted
    answer = kept / ("math-" + hashlib.sha256(f"{this_nvcc}\0{CALLS}".encode()).hexdigest())
    if answer.is_file():
        return set(json.loads(answer.read_text()))

    def refused_lines(calls):
        (tmp_path / "k.cu").write_text(source(calls))
        p = subprocess.run([nvcc, "-arch=sm_90", "-c", str(tmp_path / "k.cu"), "-o",
                            str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
        return {int(m) for m in re.findall(r"k\.cu\((\d+)\): error", p.stdout + p.stderr)}

    bad = _until_clean(CALLS, refused_lines)
    answer.write_text(json.dumps(sorted(bad)))
    return bad


def simulator_refuses():
    def refused_lines(calls):
        try:
            SourceModule(source(calls))
        except CompileError as err:
            said = err.stderr or ""
            return {int(m) for m in re.findall(
                r"kernel\.cu:(\d+):\d+: (?:error|note: in expansion of macro)", said)}
        return set()
    return _until_clean(CALLS, refused_lines)


def test_the_simulator_refuses_the_math_calls_nvcc_refuses_and_no_other(nvcc, accepted, tmp_path):
    by_nvcc, by_simulator = nvcc_refuses(nvcc, accepted, tmp_path), simulator_refuses()
    differ = [f"{CALLS[i]}: nvcc {'refuses' if i in by_nvcc else 'accepts'}, the simulator "
              f"{'refuses' if i in by_simulator else 'accepts'}"
              for i in range(len(CALLS)) if (i in by_nvcc) != (i in by_simulator)]
    assert not differ, "\n".join(differ)
    assert len(by_nvcc) > len(CALLS) / 3  # the table holds refusals, not only calls that pass


@pytest.mark.parametrize("call, function, arguments", [
    ("sqrt(n)", "sqrt", ("int",)),
    ("ceil(n / TILE)", "ceil", ("int",)),
    ("fminf(x, 1.0f) + fmin(x, 2)", "fmin", ("float", "int")),
    ("std::sqrt(n)", "sqrt", ("int",)),
    ("fma(x, x, 1)", "fma", ("float", "float", "int")),
    ("max(x, 0)", "max", ("float", "int")),
    ("min(n, x)", "min", ("int", "float")),
])
def test_a_refused_call_names_the_function_and_the_types_at_the_learners_line(call, function,
                                                                            arguments):
    src = f"#define TILE 16\n__global__ void k(float *o, int n, float x) {{\n    o[0] = {call};\n}}\n"
    with pytest.raises(MathArgumentError) as caught:
        SourceModule(src)
    err = caught.value
    assert (err.function, err.arguments, err.line) == (function, arguments, 3)
    assert str(err).splitlines()[1].startswith(f"kernel.cu:3: error: {function}(")


@pytest.mark.parametrize("call, function", [("isless(x, 1.0f)", "isless"),
                                            ("std::max(x, 1.0f)", "std::max"),
                                            ("std::min(1, 2)", "std::min")])
def test_a_math_function_cuda_has_no_device_version_of_is_a_host_function(call, function):
    with pytest.raises(HostFunctionError) as caught:
        SourceModule(f"__global__ void k(float *o, float x) {{\n    o[0] = {call};\n}}\n")
    assert (caught.value.function, caught.value.line) == (function, 2)


def test_sin_and_log_of_a_float_are_sinf_and_logf_with_a_gpus_bits():
    """CUDA's sin(float) is sinf: on the simulator both give libdevice's bits (sim_trig.h,
    sim_log.h), not the C library's sin of a float."""
    f = SourceModule("""
    __global__ void k(const float *x, float *a, float *b, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { a[2 * i] = sin(x[i]); b[2 * i] = sinf(x[i]);
                     a[2 * i + 1] = log(x[i]); b[2 * i + 1] = logf(x[i]); }
    }""").get_function("k")
    x = np.random.default_rng(7).uniform(0.01, 1e4, 4096).astype(np.float32)
    a, b = gpuarray.zeros(2 * x.size, np.float32), gpuarray.zeros(2 * x.size, np.float32)
    f(gpuarray.to_gpu(x), a, b, np.int32(x.size), block=(256, 1, 1), grid=(16, 1))
    assert np.array_equal(a.get().view(np.uint32), b.get().view(np.uint32))
