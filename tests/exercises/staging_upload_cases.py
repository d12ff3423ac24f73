"""The double-buffering exercise's test material (notebook 05), shared by its test files: a right
function's body, variants of it, and the two ways a variant is checked (its verdict, and the
checker's run of it on the simulator, which names a race a GPU whose copies are quick may not
show)."""

import textwrap
import types

from verdict_words import assert_says

from helpers.exercises.catalog import define_function
from helpers.exercises.staging_upload import check_staging_upload

RIGHT_BODY = """
def my_upload(h, d, staging, streams):
    n, chunk = h.size, staging[0].size
    for c, lo in enumerate(range(0, n, chunk)):
        hi = min(n, lo + chunk)
        buf = staging[c % 2]
        s = streams[c % 2]
        s.synchronize()
        buf[:hi - lo] = h[lo:hi]
        drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s)
    for s in streams:
        s.synchronize()
"""
WAIT = "        s.synchronize()\n        buf"


def right_but(*replacements):
    source = RIGHT_BODY
    for old, new in replacements:
        assert old in source, old
        source = source.replace(old, new)
    return source


def define(source):
    return define_function(textwrap.dedent(source), "my_upload")


def assert_named(source, expected):
    """The checker's verdict on ``source`` is NOT YET, each field holding its expected words."""
    verdict = check_staging_upload(define(source))
    assert verdict.passed is False
    assert_says(verdict, expected)


def assert_named_on_the_simulator(source, expected):
    """The checker's run of ``source`` on the simulator names it with the expected words."""
    from helpers.exercises import staging_upload
    from helpers.sim import driver

    defined = define(source)   # its drv a stand-in that cannot copy: the rebinding is tested
    cut_off = types.FunctionType(defined.__code__, {**defined.__globals__, "drv": None})
    fn = staging_upload._on_the_simulator(cut_off, driver)
    said = dict(zip(("problem", "hint"), next(staging_upload._mistakes(
        fn, *staging_upload.CASES[0], driver))))
    assert_says(said, expected)
