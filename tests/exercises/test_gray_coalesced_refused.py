"""Mistakes of notebook 04's flat-grid grey exercise (helpers.exercises.gray_coalesced) that the
compiler refuses, named from the simulator's record of g++'s first error (moved here from
test_gray_coalesced.py, which holds the mistakes that compile)."""

import pytest

from kernel_sources import assert_refused_and_named

from helpers.exercises import gray_coalesced as checker


# Mistakes the compiler refuses, named from the simulator's record of g++'s first error: blind
# audit G27, Python's floor division, whose // starts a comment (was 'does not compile. Hint: read
# the compiler's first error')
DOES_NOT_COMPILE = {
    "floor_division": ([("int y = t / width;", "int y = t // width;")],
                       {"problem": "line 21's // starts a comment, not a division: everything "
                                   "after it, width;, is not code",
                        "hint": "/ on two ints already drops the fraction, as Python's // does "
                                "(int y = t / width;)"}),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    assert_refused_and_named(checker.check_gray_coalesced, "gray_coalesced", name, *DOES_NOT_COMPILE[name])
