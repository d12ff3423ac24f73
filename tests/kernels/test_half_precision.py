"""Half precision and bfloat16 (cuda_fp16.h, cuda_bf16.h), bit for bit: bench/half_kernels.cu
against models written here from the formats' definitions.

A binary16 has 5 bits of exponent and 10 of fraction, a bfloat16 (a float's top half) 8 and 7;
every operation rounds its exact result once, to nearest even unless its name says otherwise
(_rz, _rd, _ru), subnormals included, and overflows to infinity. NumPy's float16 rounds so from a
float; the bfloat16 model rounds the same way to 7 bits. NaN results are the canonical NaN, 0x7fff,
except where a value keeps its NaN's payload (a double's NaN to 16 bits, bfloat16 to float): what an
H200 gives. The kernels run on whichever backend helpers.backend chose, with no_extern_c (nvcc
refuses cuda_fp16.h inside PyCUDA's extern "C" block): on the H200 this checks the GPU's bits
against the same models.
"""

import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from helpers.backend import SourceModule, gpuarray
from kernel_sources import ARCH, find_nvcc

SOURCE = Path(__file__).resolve().parents[2] / "bench" / "half_kernels.cu"
FORMATS = {"half": (10, 15), "bfloat16": (7, 127)}   # fraction bits, exponent bias
NAN = 0x7FFF
OPS = ["add", "sub", "mul", "div", "fma", "max", "min", "max_nan", "min_nan", "add_sat",
       "fma_relu", "neg", "abs", "plus_assign", "mul2_low", "mul2_high", "sqrt", "rcp", "exp",
       "log", "sin", "cos", "floor", "rint"]


# ---- the models --------------------------------------------------------------------------------
def to_float(bits, fmt):
    """The exact values of 16-bit patterns, as float64 (NaN for every NaN)."""
    bits = np.asarray(bits, np.uint16)
    if fmt == "half":
        return bits.view(np.float16).astype(np.float64)
    with np.errstate(invalid="ignore"):                # signalling NaNs stay NaN
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _exact_bits(values, fmt):
    """Bits of values that the format holds exactly (or infinite)."""
    if fmt == "half":
        return values.astype(np.float16).view(np.uint16)
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def rounded(x, fmt, mode="rn"):
    """float64 values (exact inputs) rounded once to the format, in the mode; NaN canonical."""
    m, bias = FORMATS[fmt]
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float64)
        e = np.frexp(np.abs(x))[1] - 1
        q = np.maximum(e, 1 - bias) - m
        r = np.ldexp(np.rint(np.ldexp(np.abs(x), -q)), q) * np.sign(x)   # rint: ties to even
        biggest = to_float(np.uint16(((2 * bias + 1) << m) - 1), fmt)
        r = np.where(np.abs(r) > biggest, np.copysign(np.inf, x), np.where(x == 0, x, r))
        bits = _exact_bits(np.where(np.isnan(x), 0, r), fmt)
        if mode != "rn":
            got = to_float(bits, fmt)
            past = {"rd": got > x, "ru": got < x, "rz": np.abs(got) > np.abs(x)}[mode]
            back = {"rd": -1, "ru": 1, "rz": -np.sign(x)}[mode]    # the way back, when past x
            bits = np.where(past & (back < 0), _step(bits, -1), np.where(past & (back > 0),
                                                                        _step(bits, 1), bits))
    return np.where(np.isnan(x), NAN, bits).astype(np.uint16)


def _step(bits, direction):
    """The next 16-bit value up (direction 1) or down (-1)."""
    b = bits.astype(np.int32)
    neg = (b & 0x8000) != 0
    mag = b & 0x7FFF
    away = (direction > 0) != neg                  # the magnitude grows
    out = np.where(away, b + 1, np.where(mag == 0, (~b & 0x8000) | 1, b - 1))
    return out.astype(np.uint16)


def bfloat16_rn(f32):
    """The bfloat16 nearest each float, ties to even, from the float's top 16 bits."""
    u = np.asarray(f32, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f32), NAN, r).astype(np.uint16)


# ---- the runs ------------------------------------------------------------------------------------
def hashed_bits(n, seed):
    h = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(seed)
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(29)
    return h


@pytest.fixture(scope="module")
def module():
    return SourceModule(SOURCE.read_text(), no_extern_c=True)


def _launch(module, name, *args, n):
    module.get_function(name)(*args, np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))


@pytest.fixture(scope="module")
def widened(module):
    bits = np.arange(65536, dtype=np.uint16)
    h, b = gpuarray.zeros(65536, np.float32), gpuarray.zeros(65536, np.float32)
    back = gpuarray.zeros(2 * 65536, np.uint16)
    _launch(module, "widen", gpuarray.to_gpu(bits), h, b, back, n=65536)
    return bits, h.get(), b.get(), back.get().reshape(-1, 2)


def test_every_half_pattern_to_float_and_back(widened):
    bits, h, _, back = widened
    nan = np.isnan(bits.view(np.float16))
    want = bits.view(np.float16).astype(np.float32).view(np.uint32)
    want[nan] = 0x7FFFFFFF                     # cvt.f32.f16: the canonical NaN
    assert np.array_equal(h.view(np.uint32), want)
    assert np.array_equal(back[:, 0], np.where(nan, NAN, bits))


def test_every_bfloat16_pattern_to_float_and_back(widened):
    bits, _, b, back = widened
    assert np.array_equal(b.view(np.uint32), bits.astype(np.uint32) << 16)  # NaNs keep their bits
    assert np.array_equal(back[:, 1], np.where(np.isnan(b), NAN, bits))


@pytest.fixture(scope="module")
def narrowed(module):
    n = 1 << 16
    h = hashed_bits(n, 1)
    x = (h >> np.uint64(32)).astype(np.uint32).view(np.float32).copy()   # every kind of float
    x[n // 2:] = (hashed_bits(n // 2, 2) >> np.uint64(40)).astype(np.float64) / 2**24 * 2 - 1
    x[n // 2:] *= np.exp2(((hashed_bits(n // 2, 3) >> np.uint64(58)).astype(np.float64) - 40))
    x[:12] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 65504, 65519.996, 65520, -65520, 2**-24,
              2**-25, 3 * 2**-26]                                    # ties, overflow, subnormals
    with np.errstate(invalid="ignore"):
        d = x.astype(np.float64) * (1 + 2.0**-30)
    k = (h & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32).copy()
    k[: n // 2] >>= 12                                            # many within half's range
    out = gpuarray.zeros((n, 16), np.uint16)
    _launch(module, "narrow", gpuarray.to_gpu(x), gpuarray.to_gpu(d), gpuarray.to_gpu(k), out, n=n)
    return x, d, k, out.get()


@pytest.mark.parametrize("col, fmt, mode", [(0, "half", "rn"), (1, "half", "rz"), (2, "half", "rd"),
                                             (3, "half", "ru"), (4, "bfloat16", "rn"),
                                             (5, "bfloat16", "rz"), (6, "bfloat16", "rd"),
                                             (7, "bfloat16", "ru"), (15, "half", "rn")])
def test_float_to_16_bits_in_each_rounding_mode(narrowed, col, fmt, mode):
    x, _, _, out = narrowed
    want = rounded(x, fmt, mode)
    if (fmt, mode) == ("half", "rn"):
        with np.errstate(over="ignore", invalid="ignore"):
            numpy_half = x.astype(np.float16).view(np.uint16)
        assert np.array_equal(want, np.where(np.isnan(x), NAN, numpy_half))
    if (fmt, mode) == ("bfloat16", "rn"):
        assert np.array_equal(want, bfloat16_rn(x))
    wrong = np.nonzero(out[:, col] != want)[0]
    assert wrong.size == 0, [(float(x[i]), hex(out[i, col]), hex(want[i])) for i in wrong[:5]]


def test_doubles_round_once_and_keep_their_nans_payload(narrowed):
    _, d, _, out = narrowed
    top = d.view(np.uint64)
    nan = np.isnan(d)
    for col, fmt, m in ((8, "half", 10), (9, "bfloat16", 7)):
        keep = ((top >> np.uint64(48)) & np.uint64(0x8000)) | np.uint64((2 * FORMATS[fmt][1] + 1) << m) \
            | np.uint64(1 << (m - 1)) | ((top >> np.uint64(52 - m)) & np.uint64((1 << m) - 1))
        want = np.where(nan, keep.astype(np.uint16), rounded(d, fmt))
        assert np.array_equal(out[:, col], want), fmt


def test_ints_to_16_bits_in_each_rounding_mode(narrowed):
    _, _, k, out = narrowed
    for col, fmt, mode in ((10, "half", "rn"), (11, "half", "rz"), (12, "half", "rd"),
                           (13, "half", "ru"), (14, "bfloat16", "rn")):
        assert np.array_equal(out[:, col], rounded(k.astype(np.float64), fmt, mode)), (fmt, mode)


# ---- arithmetic, comparisons, math functions -----------------------------------------------------
@pytest.fixture(scope="module", params=["half", "bfloat16"])
def operated(module, request):
    fmt = request.param
    a = np.tile(np.arange(65536, dtype=np.uint16), 2)              # every pattern, twice
    n = a.size
    b = (hashed_bits(n, 5) >> np.uint64(48)).astype(np.uint16)
    c = (hashed_bits(n, 6) >> np.uint64(48)).astype(np.uint16)
    with np.errstate(invalid="ignore"):  # an infinity times a factor of 0: NaN, a pattern too
        near = rounded(((hashed_bits(n, 7) >> np.uint64(40)).astype(np.float64) / 2**23 - 1) *
                       to_float(a, fmt), fmt)                        # b near a: cancellation
    b[n // 2:] = near[n // 2:]
    out, ints = gpuarray.zeros((n, len(OPS)), np.uint16), gpuarray.zeros((n, 6), np.int32)
    kernel = "half_ops" if fmt == "half" else "bfloat16_ops"
    _launch(module, kernel, *(gpuarray.to_gpu(v) for v in (a, b, c)), out, ints, n=n)
    return fmt, a, b, c, out.get(), ints.get(), expected(fmt, a, b, c)


def expected(fmt, a, b, c):
    """{op: bits} from the exact values, each rounded once."""
    x, y, z = to_float(a, fmt), to_float(b, fmt), to_float(c, fmt)
    r = lambda v: rounded(v, fmt)  # noqa: E731
    with np.errstate(all="ignore"):
        big = np.where(x > y, a, b)
        zero_tie = (x == y) & (x == 0)
        mx = np.where(np.isnan(x), b, np.where(np.isnan(y), a, np.where(zero_tie, a & b, big)))
        mn = np.where(np.isnan(x), b, np.where(np.isnan(y), a, np.where(zero_tie, a | b,
                                                                        np.where(x < y, a, b))))
        both_nan = np.isnan(x) & np.isnan(y)
        either = np.isnan(x) | np.isnan(y)
        add = r(x + y)
        sat = np.where(np.isnan(x + y), 0, r(np.clip(x + y, 0, 1)))
        fma = fused(fmt, x, y, z)
        fma_v = to_float(fma, fmt)
        relu = np.where(np.isnan(fma_v), NAN, np.where(fma_v < 0, 0, fma))
        want = {"add": add, "sub": r(x - y), "mul": r(x * y), "div": r(x / y), "fma": fma,
                "max": np.where(both_nan, NAN, mx), "min": np.where(both_nan, NAN, mn),
                "max_nan": np.where(either, NAN, mx), "min_nan": np.where(either, NAN, mn),
                "add_sat": np.where(sat == 0x8000, 0, sat), "fma_relu": relu,
                "neg": np.where(np.isnan(x), NAN, a ^ 0x8000),
                "abs": np.where(np.isnan(x), NAN, a & 0x7FFF), "plus_assign": add,
                "mul2_low": r(x * y), "mul2_high": r(y * z), "sqrt": r(np.sqrt(x)),
                "rcp": r(1 / x), "exp": r(np.exp(x)), "log": r(np.log(x)), "sin": r(np.sin(x)),
                "cos": r(np.cos(x)), "floor": r(np.floor(x)), "rint": r(np.rint(x))}
    return {k: v.astype(np.uint16) for k, v in want.items()}


def fused(fmt, x, y, z):
    """a*b + c rounded once: from float64 where it holds the exact sum, else from fractions."""
    with np.errstate(all="ignore"):
        p = x * y                                       # exact: 22 bits at most
        s = p + z
        err = (p - (s - (s - p))) + (z - (s - p))       # what the float64 sum left out
        out = rounded(s, fmt)
        # only where the left-out part can change the rounding: the values beside s round apart
        apart = rounded(np.nextafter(s, -np.inf), fmt) != rounded(np.nextafter(s, np.inf), fmt)
    for i in np.nonzero(np.isfinite(s) & (err != 0) & apart)[0]:
        out[i] = _rounded_fraction(Fraction(x[i]) * Fraction(y[i]) + Fraction(z[i]), fmt)
    return out


def _rounded_fraction(t, fmt):
    """A nonzero exact value rounded to nearest even in the format (finite here)."""
    m, bias = FORMATS[fmt]
    binade = int(np.frexp(float(abs(t)))[1]) - 1          # float(t) may round up to the next one
    binade -= Fraction(2) ** binade > abs(t)
    e = max(binade, 1 - bias) - m                       # the quantum's exponent
    scaled = abs(t) / Fraction(2) ** e
    q, rest = divmod(scaled, 1)
    q += rest > Fraction(1, 2) or (rest == Fraction(1, 2) and q % 2 == 1)
    return rounded(float(q * Fraction(2) ** e * (1 if t > 0 else -1)), fmt)


@pytest.mark.parametrize("op", OPS)
def test_each_operation_rounds_once(operated, op):
    fmt, a, b, c, out, _, models = operated
    want = models[op]
    got = out[:, OPS.index(op)]
    wrong = np.nonzero(got != want)[0]
    assert wrong.size == 0, (fmt, op, [(hex(a[i]), hex(b[i]), hex(c[i]), hex(got[i]), hex(want[i]))
                                      for i in wrong[:5]])


def test_comparisons_and_conversions_to_int(operated):
    fmt, a, b, c, _, ints, _ = operated
    x, y, z = to_float(a, fmt), to_float(b, fmt), to_float(c, fmt)
    nan = np.isnan(x) | np.isnan(y)
    inf = np.where(x == np.inf, 1, np.where(x == -np.inf, 3, 0))     # __hisinf's -1, & 3
    with np.errstate(invalid="ignore"):
        gt2 = (x > y) & (y > z)
        flags = ((x == y) | (x != y) << 1 | (x < y) << 2 | (x <= y) << 3 | (x > y) << 4 |
                 (x >= y) << 5 | ((x == y) | nan) << 6 | ((x < y) | nan) << 7 |
                 np.isnan(x) << 8 | inf << 9 | gt2 << 11)
        lt_mask = np.where(x < y, 0xFFFF, 0) | np.where(y < z, 0xFFFF0000, 0)
    assert np.array_equal(ints[:, 0], flags.astype(np.int32))
    assert np.array_equal(ints[:, 1].view(np.uint32), lt_mask.astype(np.uint32))
    with np.errstate(invalid="ignore"):
        for col, f in zip(range(2, 6), (np.rint, np.trunc, np.floor, np.ceil)):
            v = np.clip(f(np.nan_to_num(x, nan=0.0, posinf=2**40, neginf=-2**40)), -2**31, 2**31 - 1)
            assert np.array_equal(ints[:, col], v.astype(np.int64).astype(np.int32)), col


def test_shuffles_and_atomics_on_halves(module):
    n = 256
    a = rounded(np.arange(n) * 0.25 - 7, "half")
    down, swapped = gpuarray.zeros(n, np.uint16), gpuarray.zeros((n, 2), np.uint16)
    sums = [gpuarray.zeros(k, np.uint16) for k in (1, 2, 1)]
    _launch(module, "half_warp", gpuarray.to_gpu(a), down, swapped, *sums, n=n)
    lanes = np.arange(n) % 32
    want_down = np.where(lanes < 31, np.roll(a, -1), a)
    assert np.array_equal(down.get(), want_down)
    partner = np.arange(n) ^ 16
    assert np.array_equal(swapped.get(), np.stack([want_down[partner], a[partner]], 1))
    # 256 adds of 1 reach 256 exactly in half and in bfloat16; 0.5 and -0.25 to 128 and -64
    assert [s.get().tolist() for s in sums] == [[0x5C00], [0x5800, 0xD400], [0x4380]]


def test_nvcc_compiles_the_kernels(tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found on PATH or in /usr/local/cuda/bin")
    done = subprocess.run([nvcc, f"-arch={ARCH}", "--cubin", "-o", str(tmp_path / "k.cubin"),
                           str(SOURCE)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("header", ["cuda_fp16.h", "cuda_bf16.h"])
def test_the_headers_inside_sourcemodules_extern_c_are_refused(header):
    """nvcc refuses cuda_fp16.h (C++ overloads) inside the extern "C" { } that SourceModule wraps
    around a source; the simulator refuses it too, naming the header, and says the cure: the
    same source with no_extern_c=True and extern "C" on the kernel compiles on both."""
    from helpers.backend import BACKEND, drv

    kernel = '__global__ void one(__half *x) { x[0] = __float2half(1.0f); }\n'
    with pytest.raises(drv.CompileError) as err:
        SourceModule(f"#include <{header}>\n{kernel}", cache_dir=False)
    if BACKEND == "simulator":
        assert err.value.header == header and err.value.line == 1
    SourceModule(f'#include <{header}>\nextern "C" {kernel}', no_extern_c=True).get_function("one")
