"""The event-timing exercise (notebook 05), the stream the copy goes to: a copy queued with no
stream runs in the default stream, not in the stream its events are recorded in, and is named
from the copies the function queued, though PyCUDA's default stream let the events time it."""

import pytest

from test_copy_bandwidth import define, right_but
from verdict_words import assert_says

from helpers.exercises.copy_bandwidth import check_copy_bandwidth

pytestmark = pytest.mark.gpu_timing  # as test_copy_bandwidth.py: the checker times copies

# name: (source, {field: words that the verdict's field must contain})
WRONG = {
    # blind audit AK (was 'PASS: every copy tried (2 sizes) arrived whole, and its GB/s agrees
    # with the host's clock and the checker's events'): the copy queued with no stream, in the
    # default stream, where the events are in stream
    "copy_without_its_stream": (right_but("drv.memcpy_htod_async(d, h, stream)",
                                          "drv.memcpy_htod_async(d, h)"),
                                {"problem": ("line 5 of your cell (drv.memcpy_htod_async(d, h)) "
                                             "queues the copy with no stream", "default stream, "
                                             "not in stream, where start and end are recorded"),
                                 "hint": "drv.memcpy_htod_async(d, h, stream)"}),
}
RIGHT = {  # the stream given by name: still the stream the events are in
    "stream_by_keyword": right_but("drv.memcpy_htod_async(d, h, stream)",
                                   "drv.memcpy_htod_async(d, h, stream=stream)"),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_copy_outside_the_events_stream_is_named(name):
    source, expected = WRONG[name]
    verdict = check_copy_bandwidth(define(source))
    assert verdict.passed is False
    assert_says(verdict, expected)


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_the_copy_in_the_events_stream_passes(name):
    assert check_copy_bandwidth(define(RIGHT[name])).passed is True
