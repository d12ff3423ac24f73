"""tools/fuzz_loops.py: random kernels give the same outputs and errors run as loops over their
threads as run as fibers, those with barriers (rewritten by split.py; nearly all of them are, and
a kernel left to the fibers compares nothing) and those without (the plain loop)."""

import re
import sys

import pytest

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import fuzz_loops  # noqa: E402
import random_kernels  # noqa: E402


SEEDS, KERNELS = range(6), 12


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernels_with_barriers_run_as_loops_as_they_run_as_fibers(seed):
    as_loops, kernels, disagreement, _ = fuzz_loops.check_seed(seed, KERNELS)
    assert disagreement is None, disagreement
    assert as_loops >= 0.9 * kernels


@pytest.mark.parametrize("seed", range(4))   # with mix() and without: both plain kinds
def test_random_kernels_without_barriers_run_as_plain_loops_as_they_run_as_fibers(seed):
    as_loops, kernels, disagreement, _ = fuzz_loops.check_seed(seed, KERNELS, plain=True)
    assert disagreement is None, disagreement
    assert as_loops == kernels


def test_the_kernels_hold_what_the_rewriting_must_carry_across_a_barrier():
    """Over the seeds above: barriers inside loops and branches, a name declared again in an
    inner scope, arrays, constants, pointers to variables and to a parameter, a changed
    parameter, early returns, for and while loops, break and continue, shared memory, floats, a
    __device__ function reading the indices, a write to an address nothing maps."""
    text = "\n".join(random_kernels.module_source(seed, KERNELS)[1] for seed in SEEDS)
    assert re.search(r"\n {8,}__syncthreads\(\);", text)
    declared = re.findall(r"unsigned (v\d+) =", text)
    assert len(declared) > len(set(declared))
    for piece in ("unsigned a", "p +=", "return;", "break;", "continue;", "float v", "s[t] =",
                  "while (", "const unsigned", "unsigned *q", "= &p;", "mix(", "(n * 16u))[t] = p"):
        assert piece in text, piece
