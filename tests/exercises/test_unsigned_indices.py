"""An unsigned value tested against 0, in five exercises (blind audit AW): a loop counted down
with an unsigned counter, for (unsigned b = 767; b >= 0; b--), whose test is always true, so the
counter wraps past 0 and the loop never ends on its own; a clamp i < 0 ? 0 : ... of an unsigned
i, which never clamps. The verdicts named the crash at the wrapped index, or the endless loop,
with a hint away from the counter ("check that each loop's variable moves towards its end",
"declare local[768]", already so); each now names the test, from the simulator's compiler's record
(helpers.exercises.unsigned_tests), and an int as the fix. In the shape of the exercises' tables
of wrong variants, each variant compiled alone (a __device__ function's record reaches every
kernel of its module); on the simulator only: on a GPU the wrapped index is an illegal address,
which breaks the context."""

import importlib

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.backend import BACKEND
from helpers.exercises import common

pytestmark = pytest.mark.skipif(BACKEND != "simulator", reason="an illegal address on a GPU, "
                                "which breaks the context")

# name: (exercise, replacements in its solution, words that the NOT YET line must contain)
WRONG = {
    # AWB-histogram_rgb (was 'indexed an array at 4294967295 ... Hint: ... declare __shared__
    # unsigned int local[768], then clear and add all 768', which the kernel does)
    "histogram_rgb_bins_cleared_counting_down": (
        "histogram_rgb", [("for (int b = threadIdx.x; b < CHANNELS * LEVELS; b += blockDim.x)\n"
                           "        local[b] = 0;",
                           "for (unsigned int b = 767 - threadIdx.x; b >= 0; b -= blockDim.x)\n"
                           "        local[b] = 0;")],
        ["b >= 0 is always true for the unsigned b, so the loop does not stop at 0: b wraps "
         "around past 0", "Hint: count down with an int: for (int b = 767 - threadIdx.x; b >= 0; "
         "b -= blockDim.x)"]),
    # AWB-column_means (was 'ran longer than the time limit ... (an endless loop?). Hint: ...
    # check that each loop's variable moves towards its end', which r does)
    "column_means_rows_counted_down": (
        "column_means", [("for (int r = 0; r < rows; r++)",
                          "for (unsigned int r = rows - 1; r >= 0; r--)")],
        ["r >= 0 is always true for the unsigned r, so the loop does not stop at 0",
         "Hint: count down with an int: for (int r = rows - 1; r >= 0; r--)"]),
    # AWC-wmma_gemm (was 'A[4294967280] ... Hint: threadIdx.x (and blockIdx.x, blockDim.x) are
    # unsigned ...', about another subtraction)
    "wmma_gemm_k_counted_down": (
        "wmma_gemm", [("for (int k = 0; k < K; k += 16)", "for (unsigned k = K - 16; k >= 0; k -= 16)")],
        ["k >= 0 is always true for the unsigned k, so the loop does not stop at 0",
         "Hint: count down with an int: for (int k = K - 16; k >= 0; k -= 16)"]),
    # AWC-attention_tiles (was 'indexed an array at 4294967295 ... Hint: ... keys = min(TILE, n
    # - tile * TILE) ...', the keys right)
    "attention_tiles_keys_counted_down": (
        "attention_tiles", [("for (int jj = 0; jj < keys; ++jj)",
                             "for (unsigned jj = keys - 1; jj >= 0; --jj)")],
        ["jj >= 0 is always true for the unsigned jj, so the loop does not stop at 0",
         "Hint: count down with an int: for (int jj = keys - 1; jj >= 0; --jj)"]),
    # the clamp of AWB-gradient written i < 0 ? 0 : ... on an unsigned i (was '... the index -1
    # wrapped around to n - 1, as Python's in[-1] ... Hint: ... a negative index goes to 0 (i < 0
    # ? 0 : ...)', as written)
    "gradient_clamp_tests_an_unsigned_index": (
        "gradient", [("__device__ int clamp_index(int i, int n)",
                      "__device__ unsigned clamp_index(unsigned i, unsigned n)")],
        ["line 10: i < 0 is never true for the unsigned i, so the clamp does nothing",
         "Hint: compute the index in an int before clamping"]),
    # AWB-gradient, the clamp min(max(i, 0u), n - 1u) of an unsigned i, which g++ does not warn
    # of (was the same words): clamp_index's parameter read from the source
    "gradient_clamp_takes_an_unsigned_index": (
        "gradient", [("__device__ int clamp_index(int i, int n)\n{\n    return i < 0 ? 0 : (i >= n ? "
                      "n - 1 : i);", "__device__ unsigned int clamp_index(unsigned int i, unsigned "
                      "int n)\n{\n    return min(max(i, 0u), n - 1u);")],
        ["out[0] read in[999], the array's last element, as its left neighbour, not in[0]: "
         "clamp_index takes its index as an unsigned int, so i - 1 at i = 0 reaches it as "
         "4294967295, not -1", "Hint: make clamp_index take an int: __device__ int "
         "clamp_index(int i, int n)"]),
}
HEADERS = ("wmma_gemm", "attention_tiles")
"""The exercises whose sources include a C++ header (mma.h, cuda_fp16.h): extern "C" their own."""


@pytest.mark.filterwarnings("ignore:The simulator's C\\+\\+ compiler succeeded")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_an_unsigned_value_tested_against_0_is_named(name, capsys, monkeypatch):
    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)  # column_means' loop never ends
    exercise, replacements, expected = WRONG[name]
    source = variant(solution(f"{exercise}.cu"), *replacements)
    kernels = compile_variant_pairs(exercise, {name: source}, no_extern_c=exercise in HEADERS)
    checker = importlib.import_module(f"helpers.exercises.{exercise}")
    verdict = getattr(checker, f"check_{exercise}_kernel")(*kernels[name])
    assert_mistake_named(verdict, capsys.readouterr().out, name, expected)
