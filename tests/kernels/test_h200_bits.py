"""The simulator gives an H200's bits on every case of bench/float_identity.py whose bits the GPU
defines: the course's float kernels (Mandelbrot, Julia, saxpy, vector_add, scale_vector,
grayscale, sepia, iterate_sin), the fused multiply-adds of bench/float_kernels.cu, sinf and the
logarithms, the casts and integer intrinsics, half precision and bfloat16. Each is compared, bit
for bit and element by element, with the H200's stored outputs, built as nvcc builds by default
(--fmad=true); the kernels that measure fused multiply-adds (bench/float_kernels.cu's) also with
--fmad=false on both. Left out: the NaNs' bits of special_values and
special_doubles (tests/kernels/test_special_values.py says what they promise), and
two_products with fused multiply-adds, where nvcc pairs a product and a sum otherwise than GCC
(tests/kernels/test_nvcc_fusion.py)."""

import numpy as np
import pytest

from bench import float_identity

CASES = {case.name: case for case in float_identity.cases()
         if not case.name.startswith("special_")}
STORED, META = float_identity.load()
RUNS = [(name, "fmad") for name in sorted(CASES) if name != "two_products"] + [
    (name, "nofmad") for name in sorted(CASES) if CASES[name].file == "float_kernels.cu"]


@pytest.mark.parametrize("name, variant", RUNS)
def test_the_simulator_gives_the_bits_the_h200_gave(name, variant):
    case = CASES[name]
    assert name in META["inputs"], (f"no H200 outputs stored for the case {name}: store them on a "
                                    f"GPU ({float_identity.STORE_COMMAND} --only {name})")
    assert META["inputs"][name] == float_identity.input_digest(case), "stored for other inputs"
    got = float_identity.simulated(case, variant)
    want = STORED[f"{name}.{variant}"]
    differ = got.view(np.uint8).reshape(got.size, -1) != want.view(np.uint8).reshape(want.size, -1)
    wrong = np.flatnonzero(differ.any(axis=1))
    # a source changed since the store (a comment, say) may keep every bit; one meant to change
    # the results needs the H200's outputs stored again
    changed = "" if META["sources"][name] == float_identity.digest(case.source()) else (
        f" {case.file} changed since the H200's outputs were stored: if its results are meant to "
        f"change, store them again on a GPU ({float_identity.STORE_COMMAND} --only {name}).")
    assert not wrong.size, (f"{wrong.size:,} of {got.size:,} elements differ from the H200's, "
                            f"the first at flat index {wrong[0]}: {got.flat[wrong[0]]!r} against "
                            f"{want.flat[wrong[0]]!r}.{changed}")
