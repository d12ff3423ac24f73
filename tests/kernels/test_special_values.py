"""Float arithmetic on special values (bench/float_kernels.cu's special_values: every pair of
NaNs with other bits, infinities, signed zeros, a subnormal and plain numbers through + - * /,
fmaf, sqrtf, negation, fabsf, fminf and fmaxf) against an H200's stored outputs: every result
that is a number has the GPU's bits on the simulator, and every NaN is a NaN; fminf and fmaxf
give the GPU's bits, NaN included. Which NaN the arithmetic makes is the machine's (README, what
the simulator promises): the H200's gives 0x7FFFFFFF, its negation and fabsf too."""

import json

import numpy as np

from bench import float_identity
from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule

CASE = next(case for case in float_identity.cases() if case.name == "special_values")
ARITHMETIC = slice(0, 8)  # + - * / fmaf sqrtf, negation and fabsf
MIN_MAX = slice(8, 10)    # fminf and fmaxf: a GPU's min.f32 and max.f32 on the simulator, NaN too


def test_numbers_have_the_gpus_bits_and_every_nan_stays_a_nan():
    stored = np.load(float_identity.DATA)
    assert float_identity._drift(CASE, json.loads(str(stored["meta"]))) == "", "stored for other inputs"
    gpu = stored["special_values.fmad"]
    sim = float_identity.run(CASE, SourceModule, gpuarray, [])
    nan = np.isnan(gpu)
    np.testing.assert_array_equal(np.isnan(sim), nan)
    np.testing.assert_array_equal(sim.view(np.uint32)[~nan], gpu.view(np.uint32)[~nan])
    arithmetic_nans = gpu[:, ARITHMETIC][nan[:, ARITHMETIC]].view(np.uint32)
    assert arithmetic_nans.size and (arithmetic_nans == 0x7FFFFFFF).all()
    np.testing.assert_array_equal(sim[:, MIN_MAX].view(np.uint32), gpu[:, MIN_MAX].view(np.uint32))
