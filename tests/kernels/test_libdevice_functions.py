"""sinf, cosf, sincosf, logf, log2f and log10f on the simulator are CUDA's own code
(include/sim_trig.h and sim_log.h, libdevice's steps): the H200's bits where a stored run has
them (tests/kernels/test_h200_bits.py), libdevice's bits on a million floats spread over all
2^32 patterns (its code compiled for this CPU, where LLVM's tools are), and within CUDA's
documented bounds on floats of every magnitude, sinf's long reduction (105615 and beyond) and
subnormal logarithms included."""

import subprocess
import sys

import numpy as np
import pytest

from bench import float_identity, libdevice_bits
from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule

CASES = {case.name: case for case in float_identity.cases()}
GPU_NAN = 0x7FFFFFFF  # the NaN an H200's float arithmetic gives, whichever NaN went in


@pytest.mark.skipif(bool(libdevice_bits.missing()),
                    reason=f"needs {', '.join(libdevice_bits.missing())} to build libdevice's code")
def test_a_million_floats_give_libdevices_bits():
    run = subprocess.run([sys.executable, libdevice_bits.__file__, "--step", "4099"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("1,047,809 of 1,047,809 with libdevice's bits") == 7, run.stdout


@pytest.fixture(scope="module")
def functions():
    """x: floats of every magnitude, either sign (edge cases first), then positive ones of every
    exponent, subnormals included; and the simulator's sinf, cosf, sincosf's sine and cosine,
    logf, log2f and log10f of each (bench/libdevice_kernels.cu)."""
    case = CASES["libdevice"]
    bits = float_identity.hashed(1 << 16, 41, 0, 1).view(np.uint32) * np.uint32(2654435761)
    x = np.concatenate([case.inputs["x"], (bits % np.uint32(0x7f800000)).view(np.float32),
                        np.array([1.0, 2.0**-149, 3.4028235e38], np.float32)])
    out = gpuarray.zeros((x.size, 7), np.float32)
    SourceModule(case.source()).get_function("libdevice_functions")(
        gpuarray.to_gpu(x), out, np.int32(x.size), block=(256, 1, 1), grid=(-(-x.size // 256), 1))
    return x, out.get()


def ulps_from_exact(got, exact):
    """|got - exact| in units in the last place of the float32 nearest to exact."""
    return np.abs(got.astype(np.float64) - exact) / np.spacing(np.abs(exact).astype(np.float32))


@pytest.mark.parametrize("column, exact, bound", [(0, np.sin, 2), (1, np.cos, 2), (4, np.log, 1),
                                                  (5, np.log2, 1), (6, np.log10, 2)])
def test_within_cudas_documented_bound(functions, column, exact, bound):
    x, out = functions
    valid = np.isfinite(x) & ((x > 0) if column >= 4 else True)
    if column < 4:
        assert (np.abs(x[valid]) >= 105615).sum() > 1000 and (np.abs(x[valid]) < 105615).sum() > 1000
    else:
        assert (x[valid] < 2.0**-126).sum() > 100  # subnormals, scaled by 2^23 first
    err = ulps_from_exact(out[valid, column], exact(x[valid].astype(np.float64)))
    assert err.max() <= bound, (exact.__name__, x[valid][err.argmax()], err.max())


def test_sincosf_gives_sinf_and_cosf(functions):
    _, out = functions
    np.testing.assert_array_equal(out[:, 2], out[:, 0])
    np.testing.assert_array_equal(out[:, 3], out[:, 1])


def test_infinities_and_nan_give_nan_and_a_zero_keeps_its_sign(functions):
    x, out = functions
    assert (out[~np.isfinite(x), :4].view(np.uint32) == GPU_NAN).all()
    zero = np.flatnonzero(x == 0)
    assert np.array_equal(np.signbit(out[zero, 0]), np.signbit(x[zero])) and (out[zero, 1] == 1).all()


def test_logarithms_of_zero_negative_numbers_infinity_and_nan(functions):
    x, out = functions
    logs = out[:, 4:]
    assert (logs[x == 0] == -np.inf).all()
    assert (logs[(x < 0) | np.isnan(x)].view(np.uint32) == GPU_NAN).all()
    assert (logs[x == np.inf] == np.inf).all() and (logs[x == 1] == 0).all() and (x == 1).any()


def test_every_spelling_of_the_functions_is_libdevices():
    src = """
    #include <cmath>
    extern "C" __global__ void spellings(const float *x, float *out) {
        float s, c;
        sincosf(x[0], &s, &c);
        out[0] = sinf(x[0]), out[1] = ::sinf(x[0]), out[2] = std::sin(x[0]), out[3] = s;
        out[4] = logf(x[0]), out[5] = ::logf(x[0]), out[6] = std::log(x[0]);
        out[7] = log2f(x[0]) - std::log2f(x[0]) + std::log10(x[0]) - log10f(x[0]);
    }"""
    # 2.1633081: where libdevice's sinf and logf are each one ulp from glibc's (0.82954061,
    # 0.77163857 there), so a spelling that reached the C library would show
    x, out = gpuarray.to_gpu(np.array([2.1633081], np.float32)), gpuarray.zeros(8, np.float32)
    SourceModule(src, no_extern_c=True).get_function("spellings")(x, out, block=(1, 1, 1))
    got = out.get()
    assert got[:4].tolist() == [np.float32(0.82954055)] * 4, got
    assert got[4:7].tolist() == [np.float32(0.77163863)] * 3 and got[7] == 0, got
