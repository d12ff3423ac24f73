"""A kernel whose cases pass but which reads a local before anything is stored in it, as the
simulator's compiler found (helpers.exercises.unset): the runner turns the PASS into a NOT YET,
in the exercise's words where it has some (warp_vote's: tests/exercises/test_warp_vote.py), else
general ones, read from the records' fields. scale_vector (notebook 01) has no words of its own.
And an if whose body is a lone semicolon, whatever the cases said."""

import pytest

from kernel_sources import compile_variant_pairs, simulator_only, solution, variant

from helpers.exercises import histogram_rgb, scale_vector, unset
from helpers.exercises.verdict import not_yet, passed
from helpers.sim.compile.warned import CompilerWarning

READ = CompilerWarning("uninitialised", "inside", "kernel.cu", 13, 10, None, False, ("k",))


class Twin:
    """A kernel as the simulator compiled it: only its records."""

    def __init__(self, *records):
        self.compiler_warnings = records


def test_a_pass_with_a_local_read_unset_is_not_yet_in_general_words():
    verdict = unset.checked(Twin(READ), passed("all right"))
    assert verdict.passed is False
    assert verdict.problem.startswith("inside (declared at line 10) is read before anything is "
                                      "stored in it on some paths through the kernel: on a GPU")
    assert verdict.hint.startswith("give inside a value where it is declared")


def test_the_exercises_own_words_come_first():
    own = unset.checked(Twin(READ), passed("all right"), lambda r: (f"{r.name}: mine", "fix"))
    assert (own.problem, own.hint) == ("inside: mine", "fix")
    none = unset.checked(Twin(READ), passed("all right"), lambda r: None)
    assert none.problem.startswith("inside (declared at line 10)")


def test_without_records_or_after_a_mistake_the_verdict_stays():
    right, wrong = passed("all right"), not_yet("wrong", "fix it")
    assert unset.checked(Twin(), right) is right
    assert unset.checked(Twin(READ), wrong) is wrong
    assert unset.checked(object(), right) is right  # PyCUDA's Function: no records


KERNEL = solution("scale_vector.cu")
GUARDED = "    if (i < n) {\n        y[i] = alpha * x[i];\n    }"
SOURCES = {
    # right on the simulator, whose bool starts false; on a GPU the threads past n may store
    "flag_set_under_the_guard": variant(KERNEL, (GUARDED, "    bool inside;\n    if (i < n)\n"
                                                          "        inside = true;\n    if (inside)\n"
                                                          "        y[i] = alpha * x[i];")),
    # right: g++ follows the two guards, and says nothing
    "value_under_two_guards": variant(KERNEL, (GUARDED, "    float v;\n    if (i < n)\n"
                                                        "        v = alpha * x[i];\n    if (i < n)\n"
                                                        "        y[i] = v;")),
    # the if's body is its semicolon: every thread stores, those past n too
    "empty_if": variant(KERNEL, ("    if (i < n) {", "    if (i < n); {")),
    "solution": KERNEL,
}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("scale_vector", SOURCES)


@pytest.mark.parametrize("name", simulator_only(["flag_set_under_the_guard"], {
    "flag_set_under_the_guard": "on a GPU the threads past n store where their register says"}))
def test_a_flag_set_under_the_guard_is_named_by_the_runner(kernels, name):
    verdict = scale_vector.check_scale_vector_kernel(*kernels[name])
    assert verdict.passed is False
    assert verdict.problem.startswith("inside (declared at line "), verdict
    assert "is read before anything is stored in it" in verdict.problem, verdict


@pytest.mark.parametrize("name", ["value_under_two_guards", "solution"])
def test_a_right_kernel_without_the_warning_passes(kernels, name):
    assert scale_vector.check_scale_vector_kernel(*kernels[name]).passed is True


def test_an_if_whose_body_is_a_semicolon_is_named_whatever_the_cases_said(kernels):
    verdict = scale_vector.check_scale_vector_kernel(*kernels["empty_if"])
    assert verdict.passed is False
    assert verdict.problem.startswith("the if at line "), verdict
    assert "does nothing: its body is a lone semicolon" in verdict.problem, verdict
    assert verdict.hint.startswith("put the statement the if guards right after its condition"), \
        verdict
    empty = CompilerWarning("empty body", "if", "kernel.cu", 9, None, None, True, ("k",))
    assert unset.checked(Twin(empty), not_yet("wrong", "fix it")).problem.startswith(
        "the if at line 9 does nothing")


def test_python_comparisons_are_named_first_whatever_the_cases_said():
    """Two comparisons written as one (0 <= i < n) and a ! on a comparison's left side
    (!x < width): what C makes of each, then the guard the chapter teaches."""
    chained = CompilerWarning("chained comparison", "<", "kernel.cu", 10, None, None, True, ("k",))
    verdict = unset.checked(Twin(chained), not_yet("wrong", "fix it"))
    assert verdict.problem.startswith("the condition at line 10 chains two comparisons"), verdict
    assert "0 <= i < n is (0 <= i) < n" in verdict.problem, verdict
    assert verdict.hint.startswith("compare i with n alone: if (i < n)"), verdict
    # an exercise that confirmed on the kernel which comparison is chained names it itself
    own = unset.checked(Twin(chained), not_yet("wrong", "fix it"),
                        compared=lambda kernel, r: (f"line {r.line}: the range test", "z < z_min"))
    assert (own.problem, own.hint) == ("line 10: the range test", "z < z_min"), own
    assert unset.checked(Twin(chained), not_yet("wrong", "fix it"),
                         compared=lambda kernel, r: None).problem == verdict.problem
    negated = CompilerWarning("logical not", "!", "kernel.cu", 12, None, None, True, ("k",))
    verdict = unset.checked(Twin(negated), passed("all right"))
    assert verdict.problem.startswith("the ! at line 12 applies to the left side of the "
                                      "comparison only: C reads !x < width as (!x) < width"), verdict
    assert verdict.hint.endswith("if (x >= width || y >= height) return;"), verdict


def test_an_assignment_and_an_operator_read_in_another_order_are_named_first():
    """``if (lane = 0)`` and ``a << 8 + b``: what C makes of each, from the records' fields."""
    assigned = CompilerWarning("assignment as condition", "=", "kernel.cu", 7, None, None, True,
                               ("k",))
    verdict = unset.checked(Twin(assigned), passed("all right"))
    assert verdict.problem.startswith("the condition at line 7 assigns with = where it should "
                                      "compare with ==: if (lane = 0) stores 0 in lane"), verdict
    assert verdict.hint.startswith("compare with ==, which leaves the variable as it is"), verdict
    shift = CompilerWarning("operator precedence", "<<", "kernel.cu", 9, None, None, True, ("k",),
                            "+")
    verdict = unset.checked(Twin(shift), not_yet("wrong", "fix it"))
    assert verdict.problem == ("C reads the << at line 9 after the +: + binds tighter than <<, so "
                               "x << 8 + y is x << (8 + y)"), verdict
    assert verdict.hint == "put parentheses around what comes first: (x << 8) + y", verdict
    masked = shift._replace(name="&", inside="comparison")
    verdict = unset.checked(Twin(masked), not_yet("wrong", "fix it"))
    assert verdict.problem.endswith("== binds tighter than &, so x & mask == 0 is x & (mask == "
                                    "0)"), verdict
    assert verdict.hint.endswith("(x & mask) == 0"), verdict
    # the learner's assignment quoted from the line the record names
    twin = Twin(assigned)
    twin.source = "#line 1 \"kernel.cu\"\n" + "\n" * 6 + "    if (k = max_iter) break;\n"
    verdict = unset.checked(twin, passed("all right"))
    assert verdict.problem == ("the condition at line 7, k = max_iter, assigns where it should "
                               "compare: it stores max_iter in k and then tests that value, true "
                               "wherever max_iter is not 0, and k has lost its own value"), verdict
    assert verdict.hint.startswith("compare, do not assign, which leaves k as it is: k < max_iter "
                                   "for a bound, k == max_iter for equal"), verdict
    # joined to a test with &&, the = takes the whole &&: C stores 0 or 1
    twin.source = twin.source.replace("if (k = max_iter) break;", "while (k = max_iter && z) {")
    verdict = unset.checked(twin, passed("all right"))
    assert verdict.problem.startswith("the condition at line 7, k = max_iter && ..., assigns where "
                                      "it should compare: = binds looser than &&, so it stores the "
                                      "whole &&, 0 or 1, in k"), verdict
    # an exercise's own words for comparisons are not asked for these
    own = unset.checked(Twin(assigned), not_yet("wrong", "fix it"),
                        compared=lambda kernel, r: ("mine", "fix"))
    assert own.problem.startswith("the condition at line 7 assigns"), own


def test_an_offset_shifted_without_parentheses_is_named_in_an_exercise_s_words_for_none():
    """Blind audit AR (was a shift by 241, with a hint on the bin loops): histogram_rgb's channel
    offset written as a shift, (j % CHANNELS) << 8 + rgb[j], whose count C reads as 8 + rgb[j]."""
    kernel = solution("histogram_rgb.cu")
    shifted = variant(kernel, ("(j % CHANNELS) * LEVELS + rgb[j]", "(j % CHANNELS) << 8 + rgb[j]"))
    pair = compile_variant_pairs("histogram_rgb", {"shifted": shifted})["shifted"]
    verdict = histogram_rgb.check_histogram_rgb_kernel(*pair)
    assert verdict.problem.endswith("after the +: + binds tighter than <<, so x << 8 + y is x << "
                                    "(8 + y)"), verdict
    assert verdict.hint == "put parentheses around what comes first: (x << 8) + y", verdict
