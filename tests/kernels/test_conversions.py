"""The type-cast intrinsics give PTX cvt's answers, bit for bit, on the edge cases: each rounds
in its mode (rn: to nearest, ties to even; rz: towards zero; rd: down; ru: up), then saturates
to the integer type's range (PTX ISA, cvt: "the result is clamped to the destination range by
default"). NaN gives 0 from a float to a 32-bit integer, and the top bit of the integer's width
from a double to a 32-bit integer or from either to a 64-bit one (an H200 with CUDA 13.0 gave so
for all 32 casts). x86 gives INT_MIN for anything out of range and wraps unsigned values around,
so these are the cases where a CPU and a GPU differ.

The expected values are written here in Python from those rules, and the test runs on whichever
backend helpers.backend chose: on the H200 it checks the rules themselves.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from helpers.backend import SourceModule, gpuarray

TYPES = {"int": (-2**31, 2**31 - 1), "uint": (0, 2**32 - 1), "ll": (-2**63, 2**63 - 1),
         "ull": (0, 2**64 - 1)}
MODES = ("rn", "rz", "rd", "ru")
NAMES = [f"__{src}2{dst}_{mode}" for src in ("float", "double") for dst in TYPES for mode in MODES]

KERNEL = r"""
__global__ void casts(const float *f, const double *d, unsigned long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long *o = out + %(count)d * i;
    %(calls)s
}
"""

EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, -1.0, 0.49999997,
         1.0000001, 2.0**31, -2.0**31, 2147483520.0, 2.0**32, 4294967040.0, 2.0**63, -2.0**63,
         2.0**64, 1e10, -1e10, 3e38, -3e38, 2147483647.5, -2147483648.5, 4294967295.5,
         -2147483649.0, 9.2233720368547748e18, -9.2233720368547758e18, 1.8446744073709550e19]


def _round(x, mode):
    if mode == "rn":
        return round(x)          # Python rounds ties to even, as cvt.rni does
    return {"rz": math.trunc, "rd": math.floor, "ru": math.ceil}[mode](x)


def expected(x, dst, mode, src="float"):
    """What cvt gives for x: for NaN 0 or the top bit of dst's width (from a double, or to a
    64-bit integer), else x rounded in the mode and clamped to dst's range; as the kernel stores
    it (a 64-bit unsigned: signed values in two's complement)."""
    lo, hi = TYPES[dst]
    if math.isnan(x):
        width = 64 if dst in ("ll", "ull") else 32
        r = 0 if src == "float" and width == 32 else -(2**31) if dst == "int" else 2**(width - 1)
        return r & (2**64 - 1)
    r = lo if x == -math.inf else hi if x == math.inf else min(max(_round(x, mode), lo), hi)
    return r & (2**64 - 1)


@pytest.fixture(scope="module")
def results():
    calls = "\n    ".join(f"o[{k}] = (unsigned long long){name}({'f' if 'float2' in name else 'd'}[i]);"
                           for k, name in enumerate(NAMES))
    fn = SourceModule(KERNEL % {"count": len(NAMES), "calls": calls}).get_function("casts")
    f, d = np.array(EDGES, np.float32), np.array(EDGES, np.float64)
    out = gpuarray.zeros((len(EDGES), len(NAMES)), np.uint64)
    fn(gpuarray.to_gpu(f), gpuarray.to_gpu(d), out, np.int32(len(EDGES)), block=(64, 1, 1))
    return f, d, out.get()


@pytest.mark.parametrize("name", NAMES)
def test_each_cast_rounds_saturates_and_gives_the_gpus_nan(results, name):
    f, d, got = results
    src, rest = name[2:].split("2", 1)
    dst, mode = rest.split("_")
    inputs = f if src == "float" else d
    col = NAMES.index(name)
    want = [expected(float(x), dst, mode, src) for x in inputs]
    wrong = [(float(x), int(g), w) for x, g, w in zip(inputs, got[:, col], want) if int(g) != w]
    assert wrong == [], f"{name}: (input, got, expected) {wrong}"


ROUNDED = r"""
__global__ void rounded(float *f, double *d) {
    f[0] = __int2float_rz(16777217);  f[1] = __int2float_ru(16777217);  f[2] = __int2float_rd(-16777217);
    f[3] = __uint2float_ru(4294967295u); f[4] = __ll2float_rz(-9007199791611905LL);
    f[5] = __ull2float_rd(18446744073709551615ull);
    f[6] = __fadd_rz(1.0f, 1e-10f); f[7] = __fadd_ru(1.0f, 1e-10f); f[8] = __fsub_rd(1.0f, 1e-10f);
    f[9] = __fmul_ru(3.0f, 1.0f / 3.0f); f[10] = __fdiv_rz(1.0f, 3.0f); f[11] = __fdiv_ru(1.0f, 3.0f);
    f[12] = __double2float_ru(1.0 + 1e-12); f[13] = __double2float_rd(-1.0 - 1e-12);
    f[14] = __fsqrt_rd(2.0f); f[15] = __fsqrt_ru(2.0f); f[16] = __frcp_rz(3.0f);
    f[17] = __fmaf_ru(1.0f, 1.0f, 1e-10f);
    d[0] = __dadd_ru(1.0, 1e-20); d[1] = __dadd_rz(-1.0, -1e-20); d[2] = __ddiv_rd(1.0, 3.0);
    d[3] = __ddiv_ru(1.0, 3.0); d[4] = __ll2double_rz(9007199254740993LL);
    d[5] = __ll2double_ru(9007199254740993LL); d[6] = __dsqrt_ru(2.0); d[7] = __fma_rd(1.0, 1.0, -1e-20);
}
"""


def directed(v, mode, dtype):
    """The exact value v (a Fraction) rounded to dtype towards zero ("rz"), down or up."""
    if mode == "rz":
        mode = "rd" if v >= 0 else "ru"
    c, inf = dtype(float(v)), dtype(np.inf)
    while mode == "rd" and Fraction(float(c)) > v:
        c = np.nextafter(c, -inf)
    while mode == "rd" and Fraction(float(np.nextafter(c, inf))) <= v:
        c = np.nextafter(c, inf)
    while mode == "ru" and Fraction(float(c)) < v:
        c = np.nextafter(c, inf)
    while mode == "ru" and Fraction(float(np.nextafter(c, -inf))) >= v:
        c = np.nextafter(c, -inf)
    return float(c)


def test_the_arithmetic_rounds_in_its_mode():
    f, d = gpuarray.zeros(18, np.float32), gpuarray.zeros(8, np.float64)
    SourceModule(ROUNDED).get_function("rounded")(f, d, block=(1, 1, 1))
    F = Fraction
    third32, tiny32 = F(float(np.float32(1 / 3))), F(float(np.float32(1e-10)))
    f32 = [(F(16777217), "rz"), (F(16777217), "ru"), (F(-16777217), "rd"), (F(2**32 - 1), "ru"),
           (F(-9007199791611905), "rz"), (F(2**64 - 1), "rd"), (1 + tiny32, "rz"), (1 + tiny32, "ru"),
           (1 - tiny32, "rd"), (3 * third32, "ru"), (F(1, 3), "rz"), (F(1, 3), "ru"),
           (F(1) + F(1e-12), "ru"), (F(-1) - F(1e-12), "rd"), (None, "rd"), (None, "ru"),
           (F(1, 3), "rz"), (1 + tiny32, "ru")]
    got = f.get().tolist()
    for k, (v, mode) in enumerate(f32):
        if v is None:  # sqrt(2): the float below and the float above it
            low = float(np.float32(math.sqrt(2)))
            low = low if low * low < 2 else float(np.nextafter(np.float32(low), np.float32(0)))
            want = low if mode == "rd" else float(np.nextafter(np.float32(low), np.float32(2)))
        else:
            want = directed(v, mode, np.float32)
        assert got[k] == want, (k, got[k], want)
    f64 = [(F(1) + F(1e-20), "ru"), (F(-1) - F(1e-20), "rz"), (F(1, 3), "rd"), (F(1, 3), "ru"),
           (F(9007199254740993), "rz"), (F(9007199254740993), "ru"), (None, "ru"),
           (F(1) - F(1e-20), "rd")]
    got = d.get().tolist()
    for k, (v, mode) in enumerate(f64):
        if v is None:
            low = math.sqrt(2)
            low = low if F(low) ** 2 < 2 else math.nextafter(low, 0)
            want = math.nextafter(low, 2)
        else:
            want = directed(v, mode, np.float64)
        assert got[k] == want, (k, got[k], want)
