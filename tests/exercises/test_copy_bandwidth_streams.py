"""The event-timing exercise (notebook 05), the stream the copy goes to: a copy queued with no
stream runs in the default stream, not in the stream its events are recorded in, and is named
from the copies the function queued, though PyCUDA's default stream let the events time it; and
the stream waited for between the copy and end's record, which then stamps the host's wake-up."""

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
    # blind audit AL (was 'PASS: every copy tried (2 sizes) arrived whole, and its GB/s agrees
    # with the host's clock and the checker's events'): the stream waited for between the copy
    # and end.record(stream), so end stamps the host's wake-up, and nothing waits for end
    "stream_waited_for_before_end_recorded": (
        right_but("    end.record(stream)\n    end.synchronize()\n",
                  "    stream.synchronize()\n    end.record(stream)\n"),
        {"problem": ("stream.synchronize() (line 6) comes before end.record(stream) (line 7)",
                     "not when the copy ended", "nothing waited for end"),
         "hint": "record end right after the copy: end.record(stream), then end.synchronize(), "
                 "then ms = start.time_till(end)"}),
    # the same, end waited for: end still stamps the host's wake-up, not the copy's end
    "stream_waited_for_before_end_recorded_and_end_waited": (
        right_but("    end.record(stream)\n", "    stream.synchronize()\n    end.record(stream)\n"),
        {"problem": ("stream.synchronize() (line 6) comes before end.record(stream) (line 7)",
                     "not when the copy ended")}),
}
RIGHT = {  # the stream given by name: still the stream the events are in; waits before the copy
    "stream_by_keyword": right_but("drv.memcpy_htod_async(d, h, stream)",
                                   "drv.memcpy_htod_async(d, h, stream=stream)"),
    "stream_waited_for_before_the_copy": right_but("    drv.memcpy_htod_async(d, h, stream)\n",
                                                   "    stream.synchronize()\n"
                                                   "    drv.memcpy_htod_async(d, h, stream)\n"),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_copy_or_wait_out_of_its_place_is_named(name):
    source, expected = WRONG[name]
    verdict = check_copy_bandwidth(define(source))
    assert verdict.passed is False
    assert_says(verdict, expected)


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_the_copy_in_the_events_stream_passes(name):
    assert check_copy_bandwidth(define(RIGHT[name])).passed is True
