"""tools/split_fuzz.py: random kernels with barriers give the same outputs and errors run as
loops over their threads as run as fibers, and nearly all of them are rewritten (a kernel left to
the fibers compares nothing)."""

import re
import sys

import pytest

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import split_fuzz  # noqa: E402


SEEDS, KERNELS = range(6), 12


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernels_run_as_loops_as_they_run_as_fibers(seed):
    rewritten, kernels, disagreement = split_fuzz.check_seed(seed, KERNELS)
    assert disagreement is None, disagreement
    assert rewritten >= 0.9 * kernels


def test_the_kernels_hold_what_the_rewriting_must_carry_across_a_barrier():
    """Over the seeds above: barriers inside loops and branches, a name declared again in an
    inner scope, arrays, constants, pointers to variables and to a parameter, a changed
    parameter, early returns, for and while loops, break and continue, shared memory, floats, a
    __device__ function reading the indices, a write far out of bounds."""
    text = "\n".join(split_fuzz.module_source(seed, KERNELS)[1] for seed in SEEDS)
    assert re.search(r"\n {8,}__syncthreads\(\);", text)
    declared = re.findall(r"unsigned (v\d+) =", text)
    assert len(declared) > len(set(declared))
    for piece in ("unsigned a", "p +=", "return;", "break;", "continue;", "float v", "s[t] =",
                  "while (", "const unsigned", "unsigned *q", "= &p;", "mix(", "(1u << 28)"):
        assert piece in text, piece
