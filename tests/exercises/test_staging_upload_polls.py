"""The double-buffering exercise (notebook 05), a stream asked where the host should wait for it:
is_done() asks and returns at once, so a buffer refilled after it may still be read by its copy
(a race on a GPU, named from the run on the simulator too), and query() is an Event's question,
which a Stream does not have."""

import types

import pytest

from test_staging_upload import WAIT, define, right_but

from helpers.exercises.staging_upload import check_staging_upload

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
    source, expected = WRONG[name]
    verdict = check_staging_upload(define(source))
    assert verdict.passed is False
    for field, words in expected.items():
        for part in (words,) if isinstance(words, str) else words:
            assert part in getattr(verdict, field), verdict


@pytest.mark.parametrize("name", sorted(RACES))
def test_the_simulator_s_run_names_the_race_on_any_backend(name):
    from helpers.exercises import staging_upload
    from helpers.sim import driver

    defined = define(WRONG[name][0])
    fn = staging_upload._on_the_simulator(
        types.FunctionType(defined.__code__, {**defined.__globals__, "drv": None}), driver)
    problem, hint = next(staging_upload._mistakes(fn, *staging_upload.CASES[0], driver))
    assert all(p in problem for p in WRONG[name][1]["problem"]), problem
    assert WRONG[name][1]["hint"] in hint, hint
