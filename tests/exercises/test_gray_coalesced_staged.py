"""gray_coalesced (helpers.exercises.gray_coalesced) with the block's bytes of rgb staged in
shared memory, each pixel's three read back from there (blind audit AO): without a
__syncthreads() between the stores and the reads the race is named, with one the kernel is right
(its loads, each under its own guard above the pixel's return, read nothing past rgb)."""

import re

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.exercises import gray_coalesced as checker

pytestmark = pytest.mark.gpu_timing  # on a GPU a right kernel is timed (tests/conftest.py)

KERNEL = solution("gray_coalesced.cu")
GUARD = "    if (t >= width * height)\n        return;\n"
STAGED = ("    __shared__ unsigned char s[3 * 256];\n"
          "    int base = 3 * blockIdx.x * blockDim.x;\n"
          "    int total = 3 * width * height;\n"
          "    for (int k = threadIdx.x; k < 3 * blockDim.x; k += blockDim.x)\n"
          "        if (base + k < total)\n"
          "            s[k] = rgb[base + k];\n")
READ_STAGED = ("bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])",
               "bt601_gray(s[3 * threadIdx.x], s[3 * threadIdx.x + 1], s[3 * threadIdx.x + 2])")
HELPER = re.compile(r"\bbt601_gray\b")


@pytest.fixture(scope="module")
def kernels():
    sources = {"without_a_barrier": variant(KERNEL, (GUARD, STAGED + GUARD), READ_STAGED),
               "with_a_barrier": variant(KERNEL, (GUARD, STAGED + "    __syncthreads();\n" + GUARD),
                                         READ_STAGED)}
    return compile_variant_pairs("gray_coalesced", {
        name: HELPER.sub(f"bt601_gray__{name}", text) for name, text in sources.items()})


def test_staged_bytes_read_with_no_barrier_are_named_a_race(kernels, capsys):
    """Was '187 of 315 grey values are wrong ... which loaded rgb[0], rgb[256] and rgb[512] and
    s[2], s[1] and s[0] ... Hint: keep the stub's last two lines ...', the race not named."""
    verdict = checker.check_gray_coalesced_kernel(*kernels["without_a_barrier"])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, "without_a_barrier", [
        "thread (", ") read s[", "no __syncthreads() between the stores into it and the reads",
        "Hint: put a __syncthreads() between filling s"])
    # the race check's order of the two accesses decides which: the read first, or the store
    assert "before thread (" in out or "with nothing making it wait for thread (" in out, out


def test_staged_bytes_read_after_a_barrier_are_right(kernels, capsys):
    """Was named a read of rgb above the bounds guard, though each load has its own guard."""
    verdict = checker.check_gray_coalesced_kernel(*kernels["with_a_barrier"])
    out = capsys.readouterr().out
    assert verdict.passed is True, out
