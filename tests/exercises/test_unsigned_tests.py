"""An unsigned value tested against 0 where the outcome never changes (g++'s -Wtype-limits, the
record "unsigned comparison"), named by helpers.exercises.unsigned_tests when the verdict is a NOT
YET: a loop's condition that is always true, a clamp's test that never changes; a test elsewhere,
and any PASS, left as they are."""

import re
import types

import pytest

from helpers.exercises import unsigned_tests
from helpers.exercises.verdict import not_yet, passed
from helpers.sim.compile.warned import CompilerWarning

CRASHED = not_yet("the kernel crashed: a read of y[4294967295]", "a hint about something else")


def kernel(*lines):
    """A kernel as the checker holds it: its source, and a record for each line (text, test,
    always), its operator the first < or > of the text."""
    source = "\n".join(text for text, _, _ in lines)
    records = tuple(CompilerWarning("unsigned comparison", test, "kernel.cu", k, None, None, True,
                                    ("k",), None, always, re.search("[<>]", text).start() + 1)
                    for k, (text, test, always) in enumerate(lines, 1) if test)
    return types.SimpleNamespace(source=source, compiler_warnings=records)


def test_a_count_down_with_an_unsigned_counter_is_named_with_the_loop_as_an_int():
    k = kernel(("    for (unsigned int b = 767 - threadIdx.x; b >= 0; b -= blockDim.x)", ">= 0", True))
    verdict = unsigned_tests.checked(k, CRASHED)
    assert str(verdict) == (
        "NOT YET: line 1: b >= 0 is always true for the unsigned b, so the loop does not stop at "
        "0: b wraps around past 0 to about 4294967295 (an unsigned 0 - 1 is 4294967295), so the "
        "loop never ends on its own and indexes far outside the array. Hint: count down with an "
        "int: for (int b = 767 - threadIdx.x; b >= 0; b -= blockDim.x)")


@pytest.mark.parametrize("loop", ["    while (0 <= r) {", "    for (; r >= 0u; r--)"])
def test_a_counter_declared_before_its_loop_is_to_be_declared_an_int(loop):
    k = kernel(("    unsigned r = rows - 1;", None, None), (loop, ">= 0", True))
    verdict = unsigned_tests.checked(k, CRASHED)
    assert "line 2: r >= 0 is always true for the unsigned r" in verdict.problem, verdict
    assert verdict.hint == "declare r an int, which can go below 0 and end the loop"


def test_a_clamp_that_never_clamps_is_named():
    k = kernel(("    return i < 0 ? 0 : (i >= n ? n - 1 : i);", "< 0", False))
    verdict = unsigned_tests.checked(k, CRASHED)
    assert verdict.problem.startswith("line 1: i < 0 is never true for the unsigned i, so the "
                                      "clamp does nothing"), verdict
    assert verdict.hint.startswith("compute the index in an int before clamping")


def test_a_test_elsewhere_and_a_pass_are_left_as_they_are():
    """if (i < 0 || i >= n) return; is harmless (i >= n sends the spare threads back): another
    mistake's verdict stands; and a kernel that passed passes."""
    guard = kernel(("    if (i < 0 || i >= n) return;", "< 0", False))
    assert unsigned_tests.checked(guard, CRASHED) is CRASHED
    loop = kernel(("    for (unsigned b = 767; b >= 0; b--) { if (b == 0) break; }", ">= 0", True))
    right = passed("every bin is right")
    assert unsigned_tests.checked(loop, right) is right
