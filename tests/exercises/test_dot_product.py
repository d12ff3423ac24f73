"""The dot-product checker (helpers.exercises.dot_product): the solution passes, the stub fails,
and each known mistake fails with the hint written for it (the speed rule, FAST or not: in
test_dot_product_speed.py). The solution and all its wrong variants are compiled as one module
(and, on PyCUDA, once more on the simulator, whose race check and trace the checker uses); the
variants are in dot_product_variants.py."""

import re

import pytest

from dot_product_variants import KERNEL, RIGHT, WRONG
from kernel_sources import simulator_only, assert_mistake_named, compile_variant_pairs, stable_file, variant

from helpers.exercises import dot_product as checker


@pytest.fixture(scope="module")
def kernels():
    # One module for all: each variant's warp_sum gets a name of its own.
    sources = {"solution": KERNEL, **RIGHT, **{w[0]: w[1] for w in WRONG}}
    return compile_variant_pairs("dot", {name: re.sub(r"\bwarp_sum\b", f"warp_sum__{name}", text)
                                          for name, text in sources.items()})


def run_checker(pair, capsys):
    """Run the checker on a compiled kernel: (verdict, printed text)."""
    verdict = checker.check_dot_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_inline_solution_passes(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.passed is True, out
    assert out.startswith(("PASS:", "FAST:")), out


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.passed is True, out


def test_stub_fails_saying_what_it_does(capsys):
    assert not checker.check_dot()          # default path: the stub learners start from
    out = capsys.readouterr().out
    assert out.startswith("NOT YET:"), out
    assert "only thread 0 of each block counted, and only its own element" in out, out


# The simulator only: on a GPU an index past a shared array's end may be an illegal address, which
# leaves the CUDA context unusable for every test after it in the process; and a shuffle whose
# mask names lanes that have returned is undefined (it may hang). The checker's launch on the
# simulator names both on any backend.
SIMULATOR_ONLY = {**dict.fromkeys(("warp_sums_declared_too_small", "warp_sums_at_the_thread"),
                                  "an overrun of shared memory may break the GPU's context"),
                  "warp_sums_zeroed_without_a_barrier": "a race in shared memory: a GPU's sum "
                                                        "depends on which store came last",
                  "lane_by_bit_5": "a whole warp stores into one element of warp_sums: a GPU's "
                                   "sum depends on which lane's store stayed",
                  **dict.fromkeys(("block_0_zeroes_the_result", "plain_store_to_result"), "blocks racing: a GPU's sum depends on their order"),
                  **dict.fromkeys(("shuffle_inside_a_divergent_branch", "lane_and_warp_swapped",
                                   "warp_sum_inside_lane_0s_if", "barrier_inside_lane_0s_if"),
                                  "a shuffle with lanes missing is undefined on a GPU")}

# The simulator only too: the sum a GPU gives depends on what a register or local memory held
GARBAGE = dict.fromkeys(("warp_sums_not_shared", "sum_not_started_at_0",
                         "warp_sums_stored_by_thread_0", "one_warp_sum_too_many",
                         "warp_sum_added_into_an_unset_slot"),
                        "a read of a thread's memory that nothing wrote: garbage on a GPU")
# and lanes returned before a shuffle (undefined on a GPU), which the observed launches, no thread past n, never see
GARBAGE["return_past_n_before_warp_sum"] = "a shuffle with lanes returned is undefined on a GPU"


@pytest.mark.parametrize("name, source, expected",
                         simulator_only(WRONG, {**SIMULATOR_ONLY, **GARBAGE}))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    block = re.search(r"block = \((\d+), 1, 1\)", out)
    assert block or not any(map(callable, expected)), f"{name}: no block quoted in\n{out}"
    expected = [w(int(block[1])) if callable(w) else w for w in expected]
    assert_mistake_named(verdict, out, name, expected)


def test_a_changed_parameter_type_is_named(capsys):
    path = stable_file("dot_double_result.cu", variant(KERNEL, ("float *result", "double *result"),
                       ("atomicAdd(result, v)", "atomicAdd(result, (double)v)")))
    verdict = checker.check_dot(path)
    assert not verdict, capsys.readouterr().out
    assert "parameter 3 of dot, result, is declared 'double*'" in verdict.problem


def test_on_a_gpu_shared_memory_read_before_it_was_written_is_found_on_the_simulator(kernels,
                                                                                       capsys):
    """On a GPU the unwritten warp sums may hold 0 by luck (the H200 did in a test run) and the
    sum comes out right; the checker's launch on the simulator, whose shared memory starts as NaN,
    still finds it. Here the right kernel stands in for the GPU's, the wrong one is simulated."""
    solution_kernel = kernels["solution"][0]
    wrong_on_the_simulator = kernels["adds_all_32_warp_sums"][1]
    verdict = checker.check_dot_kernel(solution_kernel, wrong_on_the_simulator)
    out = capsys.readouterr().out
    assert not verdict.passed and "lanes 0 to 31 of the first warp read warp_sums[0] to [31]" in \
        out and "(NaN on the simulator)" in out and "lane < blockDim.x / 32" in out, out


@pytest.mark.parametrize("name", sorted(SIMULATOR_ONLY))
def test_what_a_gpu_cannot_tell_safely_is_named_by_the_simulator_s_launch(name, kernels, capsys):
    """The right kernel stands in for the GPU's (whose sum may come out right by luck), the wrong
    one is simulated: the checker's launch on the simulator names the mistake with its hint."""
    verdict = checker.check_dot_kernel(kernels["solution"][0], kernels[name][1])
    out = capsys.readouterr().out
    expected = dict((w[0], w[2]) for w in WRONG)[name][1:]
    assert_mistake_named(verdict, out, name, ["on the simulator", *expected])
