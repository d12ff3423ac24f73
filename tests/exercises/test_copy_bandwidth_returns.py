"""The event-timing exercise (notebook 05), what the function returns: the time the events gave
returned as it is, where the bandwidth belongs, is named from the ms time_till handed over."""

import pytest

from test_copy_bandwidth import RIGHT_GBS, define, right_but
from verdict_words import assert_says

from helpers.exercises.copy_bandwidth import check_copy_bandwidth

pytestmark = pytest.mark.gpu_timing  # as test_copy_bandwidth.py: the checker times copies

# name: (source, {field: words that the verdict's field must contain})
WRONG = {
    # blind audit AI (was "8.186 GB/s, where the checker's events measured 7.713 GB/s for the same
    # copy ... Hint: record start and end in stream, around the copy alone; ..."): TODO 3's
    # conversion left out, the ms returned where the GB/s belong
    "ms_returned": (right_but(RIGHT_GBS, "ms"),
                    {"problem": ("line 9 of your cell (return ms)", "the copy's time in "
                                 "milliseconds, not a bandwidth in GB/s"),
                     "hint": "return h.nbytes / (ms * 1e-3) / 1e9"}),
    # blind audit AO (was "your function raised TypeError at line ... (return h.nbytes / (ms *
    # 1e-3) / 10^9): unsupported operand type(s) for ^: 'float' and 'int' ... Hint: the message
    # says what went wrong on that line"): a billion written 10^9, ^ taken for a power
    "billion_written_with_a_caret": (right_but("1e9", "10^9"),
                                     {"problem": ("your function raised TypeError", "10^9 is not "
                                                  "a power in Python: ^ is bitwise XOR, and it "
                                                  "binds looser than * and /, so the line "
                                                  "computed (h.nbytes / (ms * 1e-3) / 10) ^ 9"),
                                      "hint": ("write the power with **: h.nbytes / (ms * 1e-3) "
                                               "/ 10 ** 9", "or 1e9")}),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_what_is_returned_in_place_of_the_bandwidth_is_named(name):
    source, expected = WRONG[name]
    verdict = check_copy_bandwidth(define(source))
    assert verdict.passed is False
    assert_says(verdict, expected)
