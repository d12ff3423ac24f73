"""Arithmetic on special values (bench/special_kernels.cu: every pair of NaNs with other bits,
infinities, signed zeros, a subnormal and plain numbers through + - * /, fma, sqrt, negation,
fabs, fmin and fmax), in floats and in doubles, against an H200's stored outputs: every result
that is a number has the GPU's bits on the simulator, and every NaN is a NaN; fmin and fmax give
the GPU's bits, NaN included. Which NaN float arithmetic makes is the machine's (README, what the
simulator promises): the H200's gives 0x7FFFFFFF, its negation and fabsf too. Its double
arithmetic passes a NaN on as the CPU's does (quieted), so there the simulator has every bit but
those of a NaN's negation and fabs, which PTX leaves unspecified (the H200 keeps the NaN's sign)."""

import numpy as np
import pytest

from bench import float_identity

ARITHMETIC = slice(0, 6)  # + - * / fma sqrt
MIN_MAX = slice(8, 10)    # fmin and fmax: a GPU's min and max on the simulator, NaN too


def stored_and_simulated(name):
    """(the H200's outputs, the simulator's, their bits' type) of the case name."""
    case = next(case for case in float_identity.cases() if case.name == name)
    stored, meta = float_identity.load()
    assert float_identity._drift(case, meta) == "", "stored for other inputs"
    gpu = stored[f"{name}.fmad"]
    return gpu, float_identity.simulated(case), {4: np.uint32, 8: np.uint64}[gpu.itemsize]


@pytest.mark.parametrize("name", ["special_values", "special_doubles"])
def test_numbers_and_min_max_have_the_gpus_bits_and_every_nan_stays_a_nan(name):
    gpu, sim, bits = stored_and_simulated(name)
    nan = np.isnan(gpu)
    np.testing.assert_array_equal(np.isnan(sim), nan)
    np.testing.assert_array_equal(sim.view(bits)[~nan], gpu.view(bits)[~nan])
    np.testing.assert_array_equal(sim[:, MIN_MAX].view(bits), gpu[:, MIN_MAX].view(bits))


def test_a_gpus_float_arithmetic_makes_one_nan():
    gpu, _, _ = stored_and_simulated("special_values")
    made = gpu[:, :8][np.isnan(gpu[:, :8])].view(np.uint32)
    assert made.size and (made == 0x7FFFFFFF).all()


def test_double_arithmetic_passes_a_nan_on_as_the_cpus_does():
    gpu, sim, _ = stored_and_simulated("special_doubles")
    np.testing.assert_array_equal(sim[:, ARITHMETIC].view(np.uint64), gpu[:, ARITHMETIC].view(np.uint64))
