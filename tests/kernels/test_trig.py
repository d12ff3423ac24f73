"""sinf, cosf and sincosf on the simulator are CUDA's own code (include/sim_trig.h, libdevice's
steps): the H200's bits where a stored run has them, libdevice's bits on a million floats spread
over all 2^32 patterns (its code compiled for this CPU, where LLVM's tools are), and within
CUDA's documented 2 ulp on floats of every magnitude, the long reduction (105615 and beyond)
included."""

import json
import subprocess
import sys

import numpy as np
import pytest

from bench import float_identity, trig_exhaustive
from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule

CASES = {case.name: case for case in float_identity.cases()}


def simulated(name):
    return float_identity.run(CASES[name], SourceModule, gpuarray, [])


def test_iterate_sin_gives_the_bits_an_h200_gave():
    # 16,384 elements, each through sinf 16 times in a chain (y = sinf(y) + x): one bit that
    # differs anywhere carries on to the end
    stored = np.load(float_identity.DATA)
    meta = json.loads(str(stored["meta"]))
    assert float_identity._drift(CASES["iterate_sin"], meta) == "", "stored for other inputs"
    assert float_identity.ulps(simulated("iterate_sin"), stored["iterate_sin.fmad"]).max() == 0


@pytest.mark.skipif(bool(trig_exhaustive.missing()),
                    reason=f"needs {', '.join(trig_exhaustive.missing())} to build libdevice's code")
def test_a_million_floats_give_libdevices_bits():
    run = subprocess.run([sys.executable, trig_exhaustive.__file__, "--step", "4099"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("1,047,809 of 1,047,809 with libdevice's bits") == 4, run.stdout


@pytest.fixture(scope="module")
def trig():
    """x of every magnitude (edge cases first), and sinf, cosf and sincosf's sine and cosine."""
    return CASES["trig"].inputs["x"], simulated("trig")


def ulps_from_exact(got, exact):
    """|got - exact| in units in the last place of the float32 nearest to exact."""
    return np.abs(got.astype(np.float64) - exact) / np.spacing(np.abs(exact).astype(np.float32))


def test_sinf_and_cosf_are_within_two_ulp(trig):
    x, out = trig
    finite = np.isfinite(x)
    assert (np.abs(x[finite]) >= 105615).sum() > 1000 and (np.abs(x[finite]) < 105615).sum() > 1000
    for column, exact in ((0, np.sin), (1, np.cos)):
        err = ulps_from_exact(out[finite, column], exact(x[finite].astype(np.float64)))
        assert err.max() <= 2, (exact.__name__, x[finite][err.argmax()], err.max())


def test_sincosf_gives_sinf_and_cosf(trig):
    _, out = trig
    np.testing.assert_array_equal(out[:, 2], out[:, 0])
    np.testing.assert_array_equal(out[:, 3], out[:, 1])


def test_infinities_and_nan_give_nan_and_a_zero_keeps_its_sign(trig):
    x, out = trig
    assert np.isnan(out[~np.isfinite(x), :]).all()
    zero = np.flatnonzero(x == 0)
    assert np.array_equal(np.signbit(out[zero, 0]), np.signbit(x[zero])) and (out[zero, 1] == 1).all()
