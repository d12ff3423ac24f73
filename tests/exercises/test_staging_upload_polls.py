"""The double-buffering exercise (notebook 05), a stream asked where the host should wait for it:
is_done() asks and returns at once, so a buffer refilled after it may still be read by its copy
(a race on a GPU, named from the run on the simulator too), and query() is an Event's question,
which a Stream does not have."""

import pytest

from staging_upload_cases import WAIT, assert_named, assert_named_on_the_simulator, right_but

# name: (source, {field: words that the verdict's field must contain})
WRONG = {
    # blind audit AI (was 'PASS: d holds h after every upload tried ...', the simulator's is_done()
    # ran the copy it was asked about): s.is_done() in place of s.synchronize(), its answer
    # ignored: the refill never waits
    "stream_asked_not_waited_for": (right_but((WAIT, "        s.is_done()\n        buf")),
                                    {"problem": ("s.is_done() at line 8 of your cell (s.is_done()) "
                                                 "only asks", "it does not wait"),
                                     "hint": "s.synchronize()"}),
    # blind audit AI (was "your function raised AttributeError ...: 'Stream' object has no
    # attribute 'query' ... Hint: the message says what went wrong on that line"): s.query(), an
    # Event's question, asked of the stream in place of s.synchronize()
    "stream_queried": (right_but((WAIT, "        s.query()\n        buf")),
                       {"problem": ("a Stream has no query() (an Event has one",
                                    "asking does not wait"),
                        "hint": "wait for the stream before refilling its buffer: "
                                "s.synchronize()"}),
}
RACES = {"stream_asked_not_waited_for"}  # as test_staging_upload.py's: a GPU may not show it


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.gpu_timing) if name in RACES
                                  else name for name in sorted(WRONG)])
def test_a_stream_asked_where_the_host_should_wait_is_named(name):
    assert_named(*WRONG[name])


@pytest.mark.parametrize("name", sorted(RACES))
def test_the_simulator_s_run_names_the_race_on_any_backend(name):
    assert_named_on_the_simulator(*WRONG[name])
