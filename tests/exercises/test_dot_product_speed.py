"""The dot-product checker's speed (helpers.exercises.dot_product): the solution is FAST, a right
sum with more than one atomic a block passes but is not FAST (the simulator's trace; on a GPU,
events against the copy, ``gpu_timing``). The solution and the slow sums are compiled as one
module (and, on PyCUDA, once more on the simulator, whose trace the checker uses)."""

import re

import pytest

from kernel_sources import compile_variant_pairs, solution, variant

from helpers.backend import BACKEND
from helpers.exercises import dot_product as checker

KERNEL = solution("dot_product.cu")
TAIL = KERNEL[KERNEL.index("    if (lane == 0)\n        warp_sums[warp] = v;"):]

# Right but slow: PASS, not FAST (name: (source, words of what keeps it from FAST and its hint))
SLOW = {
    "one_atomic_a_warp": (variant(KERNEL, (TAIL, "    if (lane == 0)\n        atomicAdd(result, v);\n}\n")),
                          ["atomic additions to *result for 3 blocks", "one atomic a block"]),
    "one_atomic_a_thread": (variant(KERNEL, (KERNEL[KERNEL.index("    v = warp_sum(v);\n"):],
                                             "    atomicAdd(result, v);\n}\n")),
                            ["atomic additions to *result", "one thread a block"]),
}


@pytest.fixture(scope="module")
def kernels():
    # One module for all: each variant's warp_sum gets a name of its own.
    sources = {"solution": KERNEL, **{name: source for name, (source, _) in SLOW.items()}}
    return compile_variant_pairs("dot", {name: re.sub(r"\bwarp_sum\b", f"warp_sum__{name}", text)
                                          for name, text in sources.items()})


def run_checker(pair, capsys):
    """Run the checker on a compiled kernel: (verdict, printed text)."""
    verdict = checker.check_dot_kernel(*pair)
    return verdict, capsys.readouterr().out


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed: gpu_timing")
def test_on_the_simulator_the_solution_is_fast_by_its_trace(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.level == "FAST" and "3 atomic additions for 3 blocks" in out, out


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the speed is timed: gpu_timing")
@pytest.mark.parametrize("name", sorted(SLOW))
def test_on_the_simulator_a_slow_sum_passes_but_is_not_fast(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.level == "PASS" and "not yet FAST" in out, out
    assert all(words in verdict.slow + verdict.hint for words in SLOW[name][1]), out


@pytest.mark.parametrize("name", sorted(SLOW))
def test_the_trace_rule_finds_a_slow_sum_on_any_backend(name, kernels):
    from helpers.exercises.kernel import Kernels

    assert next(checker._traced(Kernels(None, kernels[name][1])), None) is not None
    assert next(checker._traced(Kernels(None, kernels["solution"][1])), None) is None


@pytest.mark.gpu_timing
@pytest.mark.skipif(BACKEND != "pycuda", reason="the event-timed rule needs a GPU")
def test_on_a_gpu_the_solution_is_fast_and_an_atomic_a_thread_is_not(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.level == "FAST" and "of a device-to-device copy" in out, out
    verdict, out = run_checker(kernels["one_atomic_a_thread"], capsys)
    assert verdict.level == "PASS" and "where FAST takes 50%" in verdict.slow, out
