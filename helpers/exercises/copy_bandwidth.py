"""Checker for the event-timing exercise of notebook 05: the learner's ``my_copy_gbs(h, d,
stream)`` copies the page-locked array ``h`` into the device buffer ``d`` on ``stream``, times
the copy with two CUDA events recorded in that stream, and returns its bandwidth in GB/s.

``check_copy_bandwidth(my_copy_gbs)`` runs it on sizes of a few MiB (more on a GPU, so that a
copy outlasts Python's own overheads) that are not round numbers, and checks, in order: that it
waited for the copy (the stream is done when it returns), that ``d`` holds ``h``, that it returned
a positive number, and that the number is the copy's. Each of three runs must give a copy time
(the bytes over the GB/s) no longer than the host's clock saw the call take, and GB/s no more
than 30 times what the checker's own events measure for the same copy (after a warm-up):
bounds that a machine's load cannot break, which the units' usual slips do (elements for bytes,
the milliseconds read as seconds, MB/s, bytes per millisecond). The slip nearest to the ratio
of the fastest of the three to the fastest of the checker's three (a machine's load only slows a
copy down) is named, when the ratio is nearer to it than halfway (in decades)
to any other factor a number may be off by, the right one among them. It times on both backends:
on the simulator the events measure how long the CPU took to make the copy.

Slips by a small factor (gigabits, 8 bytes an element, the bytes times 4 again, GiB) hide
inside those bounds, so the first call is also watched: the checker notes the ms that
``time_till`` (or ``time_since``) handed the learner and the bytes given to
``memcpy_htod_async``, and the GB/s returned must be those bytes over that time. That compares the learner's arithmetic with the learner's own
events, with no second measurement whose load could differ: every slip is then named exactly.
The ms handed over notes what was done to it (``copy_bandwidth_models.Ms``), so that a GB/s a million times too
small is told apart: the ms multiplied by 1e3, or the bytes divided by the ms before the 1e-3;
and the ms returned as they are, unconverted, are named as such.
"""

from __future__ import annotations

import contextlib
import numbers
import sys
import time

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.copy_bandwidth_models import (
    Ms, as_microseconds, bytes_times_itemsize, converted_twice, counted_once, counted_twice,
    divided_by_1e10, floored, host_clock, is_floored, made_larger, made_whole, object_size,
    one_element, one_event, returned_ms, tenfold_seconds, upside_down)
from helpers.exercises.copy_bandwidth_waits import (
    copied_without_stream, end_waited_early, named_not_called, noting_stream, queried_not_waited,
    start_waited_for, waited_after_the_read, waited_before_end)
from helpers.exercises.function import check_function, copies_noted, run_catching, source_first
from helpers.exercises.verdict import Verdict, check_cases

MiB = 1 << 20
CASES = [32 * MiB // 4 - 3, 12 * MiB // 4 + 5]  # float32 elements: MiBs, not round
# How near (a factor) a ratio to the checker's measurement is to a slip's, at least, for the slip
# to be named: a shared machine's load moves the learner's copies and the checker's apart.
BAND = 2.5
SLIPS = [  # (factor of the right GB/s, problem, hint)
    (1 / 4, "4 times too small: h.size counts elements, and a float32 is 4 bytes",
     "the bytes copied are h.nbytes"),
    (1e-6, "a million times too small: the bytes were divided by the ms and by 1e3 more, where "
     "the seconds, ms * 1e-3, divide them (h.nbytes / ms * 1e-3 multiplies by 1e-3 after "
     "dividing by ms)", "put the seconds, ms * 1e-3, in parentheses: GB/s = h.nbytes / "
     "(ms * 1e-3) / 1e9"),
    (1e-3, "1000 times too small: the milliseconds were taken for seconds",
     "GB/s = h.nbytes / (ms * 1e-3) / 1e9: a millisecond is 1e-3 s"),
    (1e3, "1000 times too large: that is MB/s (1e6 bytes a second), not GB/s",
     "1 GB is 1e9 bytes: h.nbytes / (ms * 1e-3) / 1e9"),
    (1e6, "a million times too large: bytes per millisecond, not GB/s",
     "h.nbytes / (ms * 1e-3) / 1e9: seconds from ms, then GB from bytes"),
    (1e9, "1e9 times too large: that is bytes a second (h.nbytes / (ms * 1e-3)), not GB/s: the "
     "/ 1e9 is missing (1 GB is 1e9 bytes)", "divide the bytes a second by 1e9: h.nbytes / "
     "(ms * 1e-3) / 1e9"),
    (1e18, "1e18 times too large: the bytes a second were multiplied by 1e9 (h.nbytes / "
     "(ms * 1e-3) * 1e9), not divided: 1 GB is 1e9 bytes", "divide the bytes a second by 1e9: "
     "h.nbytes / (ms * 1e-3) / 1e9")]
# Found only against the learner's own events (_watched): inside the bounds above.
SMALL_SLIPS = [
    (8, "8 times too large: that is gigabits a second, and GB/s counts bytes",
     "leave out the * 8: h.nbytes is already in bytes"),
    (2, "twice too large: a float32 is 4 bytes, not 8", "the bytes copied are h.nbytes"),
    (4, "4 times too large: the bytes were counted 4 times over, where h.nbytes already counts "
     "bytes", "the bytes copied are h.nbytes: GB/s = h.nbytes / (ms * 1e-3) / 1e9"),
    (1e9 / 2**30, "GiB/s (2**30 bytes a second), not GB/s", "1 GB is 1e9 bytes: divide by 1e9"),
    (0.1, "10 times too small", "1 GB is 1e9 bytes: divide by 1e9: h.nbytes / (ms * 1e-3) / 1e9")]


def _band(factor):
    """How far (in decades) a ratio may lie from a slip's factor for the slip to be named: half
    the way to the nearest other factor (1, the right GB/s, among them), and at least BAND."""
    others = [f for f, _, _ in SLIPS if f != factor] + [1]
    return max(np.log10(BAND), min(abs(np.log10(factor / f)) for f in others) / 2)


def draw(rng):  # the grader's cases: a size of 8 to 32 MiB, not round
    return [int(rng.integers(8 * MiB // 4, 32 * MiB // 4)) | 1]


def check_copy_bandwidth(fn, hidden: int | None = None) -> Verdict:
    """Run ``fn(h, d, stream)`` on a few sizes (and those drawn from the seed ``hidden``); print
    and return the Verdict."""
    cases = hidden_cases.cases(CASES, draw, hidden)
    return check_function(fn, "my_copy_gbs", lambda fn: check_cases(
        cases, lambda n: _mistakes(fn, _scaled(n)), lambda n: f"{4 * _scaled(n):,} bytes",
        hidden_cases.success(f"every copy tried ({len(CASES)} sizes) arrived whole, and its GB/s "
                             "agrees with the host's clock and the checker's events", CASES,
                             cases)))


def _scaled(n):
    """On a GPU, 16 times more: a copy of a few MiB takes tens of microseconds there."""
    from helpers.backend import BACKEND

    return n if BACKEND == "simulator" else 16 * n


def _timed(fn, h, d, stream):  # (what fn returned, the ms the call took on the host's clock)
    t0 = time.perf_counter()
    gbs = fn(h, d, stream)
    return gbs, (time.perf_counter() - t0) * 1e3


def _measure(h, d, stream):
    from helpers.backend import drv

    start, end = drv.Event(), drv.Event()
    start.record(stream)
    drv.memcpy_htod_async(d, h, stream)
    end.record(stream)
    end.synchronize()
    return h.nbytes / (start.time_till(end) * 1e-3) / 1e9


NEVER_RECORDED = {  # (the role of an event time_till or time_since read unrecorded): hint
    "start": "record start in stream before the copy: start.record(stream), the copy, then "
             "end.record(stream)",
    "end": "record end in stream after the copy: end.record(stream), then end.synchronize() "
           "before the time is read"}


def _unrecorded(*events):
    """(role, which) of each ``(role, which, event)`` whose event was never recorded (one not
    made while watched, say something else passed as an event, is not told)."""
    return [(role, which) for role, which, e in events if not getattr(e, "recorded", True)]


def _million(notes):
    """(problem, hint) of a GB/s a million times too small, from what was done to the ms."""
    if ("*", 1e3) in notes or ("/", 1e-3) in notes:
        how = "multiplied by 1e3 (ms * 1e3)" if ("*", 1e3) in notes else "divided by 1e-3 (ms / 1e-3)"
        return (f"a million times too small: the ms were {how}, which makes them a thousand times "
                "larger, where a millisecond is 1e-3 s", "multiply the ms by 1e-3, not 1e3, to "
                "get the seconds: GB/s = h.nbytes / (ms * 1e-3) / 1e9")
    if any(op == "by" for op, _ in notes):
        return next((p, h) for f, p, h in SLIPS if f == 1e-6)
    return ("a million times too small", "the seconds are ms * 1e-3, and they divide the bytes: "
            "GB/s = h.nbytes / (ms * 1e-3) / 1e9")


def _slip(fn, gbs, factor, problem, hint):
    """A slip of ``factor`` that ``slip(gbs)`` named, first looked for in the code (1000 times too
    large: converted_twice; twice: counted_twice; 4 times: bytes_times_itemsize); "itemsize"
    (problem, hint the bytes of one element and the array's), "floor", "inverted", "centi" (the
    ms times 1e-2), "ms" (the ms returned as they are) named by a model."""
    if factor in ("getsizeof", "whole"):  # whole: problem the bytes, hint the ms's notes
        yield object_size(fn, gbs, problem, hint) if factor == "getsizeof" else made_whole(
            fn, hint, gbs, problem)
        return
    if factor in ("itemsize", "floor", "inverted", "centi", "copies", "ms"):  # copies: problem k
        yield one_element(fn, gbs, problem, hint) if factor == "itemsize" else {"floor": floored,
            "inverted": upside_down, "centi": tenfold_seconds, "copies": counted_once,
            "ms": returned_ms}[factor](fn, gbs, problem)
        return
    if factor == 1e-3:
        yield from made_larger(fn, gbs)
    if factor == 1e3:
        yield from converted_twice(fn, gbs)
    if factor == 2:
        yield from counted_twice(fn, gbs)
    if factor == 4:
        yield from bytes_times_itemsize(fn, gbs)
    if factor == 0.1:
        yield from divided_by_1e10(fn, gbs)
    yield problem, hint


def _queued(copies):  # how many copies host to device were queued so far
    return sum(way == "htod" for way, *_ in copies)


def _misplaced(pair, copies):
    """(problem, hint) when the events the learner's time was read from, ``pair`` = [start, end]
    (each noting how many copies were queued before its record), have no copy between them: end
    recorded before the copy, or start after it; None otherwise or when unseen."""
    marks = [getattr(e, "queued", None) for e in pair]
    if len(marks) != 2 or None in marks or marks[0] != marks[1] or not _queued(copies):
        return None
    order = "start, then the copy, then end, all in stream: start.record(stream), " \
            "drv.memcpy_htod_async(d, h, stream), end.record(stream), then end.synchronize()"
    if marks[1] < _queued(copies):
        return ("the end event was recorded before the copy was queued (end.record(stream), "
                "then drv.memcpy_htod_async): no copy lies between the two events, so they timed "
                "nothing, and the copy ran after end", "queue the copy between the two events: "
                "record " + order)
    return ("the start event was recorded after the copy was queued: no copy lies between the "
            "two events, so they timed nothing", "record " + order)


@contextlib.contextmanager
def _watched(drv, fn, stream):
    """While in use, the driver's Event and copies as ``fn`` finds them (source first refused),
    noting each event's record, waits, query()s and ms, each copy's arrays and stream, ``stream``'s
    waits. Gives ``(slip, unrecorded, misplaced, ...)``: ``_slip_of``'s, a failed time_till's cause
    (``_never_recorded``, copy_bandwidth_waits'), a copy or wait out of place (``misplaced()``)."""
    ms, missing, notes, pair, made, waited, early, asked = ([] for _ in range(8))
    event = drv.Event

    class Event(event):
        recorded = False

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(1)

        def record(self, *args, **kwargs):
            self.recorded, self.queued, self.waits = True, _queued(copies), len(stream.waits)
            return super().record(*args, **kwargs)

        def synchronize(self):
            (waited if self.recorded else early).append(self)
            return super().synchronize()

        def query(self):
            asked.append((self, super().query()))
            return asked[-1][1]

        def time_till(self, other):
            pair[:] = [self, other]
            missing[:] = _unrecorded(("start", "the one time_till was called on", self),
                                     ("end", "the one passed to time_till", other))
            ms.append(Ms(super().time_till(other), notes))
            return ms[-1]

        def time_since(self, other):
            pair[:] = [other, self]
            missing[:] = _unrecorded(("start", "the one passed to time_since", other),
                                     ("end", "the one time_since was called on", self))
            ms.append(Ms(super().time_since(other), notes))
            return ms[-1]

    def unrecorded(err):
        return (_never_recorded(missing) or end_waited_early(pair, waited, early) or
                waited_after_the_read(fn, pair, waited, err) or
                named_not_called(fn, pair, waited, err) or queried_not_waited(
                    fn, pair, waited, asked, err, drv) or start_waited_for(pair, waited, err, drv))

    drv.Event = Event
    try:
        with copies_noted(drv, source_first(fn, drv)) as copies:
            stream.queued = lambda: _queued(copies)
            yield (lambda gbs: _slip_of(gbs, copies, ms, notes, pair), unrecorded,
                   lambda: one_event(pair, made) or _misplaced(pair, copies)
                   or copied_without_stream(fn, copies) or waited_before_end(
                       fn, pair, waited, stream),
                   lambda fn: lambda err: made_whole(fn, notes),
                   lambda fn, gbs: [] if ms else host_clock(fn, gbs, made))
    finally:
        drv.Event = event


def _slip_of(gbs, copies, ms, notes, pair):
    """``slip(gbs)`` of ``_watched``: the slip that gbs is to the bytes ``copies`` copied over
    the last of ``ms`` (read from ``pair``'s events), (factor, problem, hint), else None."""
    nbytes = sum(getattr(host, "nbytes", 0) for way, host, *_ in copies if way == "htod")
    if not nbytes or not ms or not ms[-1] > 0:
        return None
    if gbs == float(ms[-1]):
        return "ms", None, None  # the ms themselves, unconverted: _slip names it with the line
    timed = getattr(pair[-1], "queued", 0) - getattr(pair[0], "queued", 0)
    if timed > 1 and abs(gbs * float(ms[-1]) * 1e6 * _queued(copies) / nbytes - 1) < 1e-3:
        return "copies", timed, None  # the bytes of one of the copies timed: _slip names it
    if made_whole(None, notes, gbs, nbytes):
        return "whole", nbytes, notes  # the ms made a whole number: _slip names it
    ratio = gbs / (right := nbytes / (float(ms[-1]) * 1e-3) / 1e9)
    if is_floored(gbs, right):
        return "floor", right, None  # whole GB/s where the bytes over the ms are not: _slip
    itemsize = next(getattr(host, "itemsize", 0) for way, host, *_ in copies if way == "htod")
    if 0 < itemsize < nbytes and abs(ratio * nbytes / itemsize - 1) < 1e-3:
        return "itemsize", itemsize, nbytes  # one element's bytes: _slip names it
    host = next(host for way, host, *_ in copies if way == "htod")
    if 0 < (size := sys.getsizeof(host)) != nbytes and abs(ratio * nbytes / size - 1) < 1e-3:
        return "getsizeof", size, nbytes  # the Python object's size: _slip names it
    if abs(gbs * right - 1) < 1e-3 and abs(ratio - 1) > 1e-2:  # 1 over it: not 1 GB/s itself
        return "inverted", right, None  # seconds per GB: _slip names it with the line
    if abs(ratio / 0.1 - 1) < 1e-3 and ("*", 1e-2) in notes:
        return "centi", right, None  # the ms times 10e-3 (1e-2): _slip names it with the line
    for factor, problem, hint in SLIPS + SMALL_SLIPS:
        if abs(ratio / factor - 1) < 1e-3:
            problem, hint = (_million(notes) if factor == 1e-6 else factor == 1e3
                             and as_microseconds(notes) or (problem, hint))
            return factor, f"{gbs:.4g} GB/s is {problem}", hint
    return None


def _never_recorded(missing):
    """(problem, hint) of the events time_till or time_since read unrecorded, ``missing``
    (``_unrecorded``'s), or None where there are none."""
    if not missing:
        return None
    told = " and ".join(f"the {role} event, {which}," for role, which in missing)
    return (f"{told} {'was' if len(missing) == 1 else 'were'} never recorded",
            "; and ".join(NEVER_RECORDED[role] for role, _ in missing))


def _none(_err):  # run_catching's hint that tells nothing more
    return None


def _mistakes(fn, n):  # fn on a fresh buffer of n elements: each mistake seen, in order
    from helpers.backend import drv

    h = drv.pagelocked_empty(n, np.float32)
    h[:] = np.random.default_rng(n).random(n, dtype=np.float32)
    d, stream = drv.mem_alloc(h.nbytes), noting_stream(drv)
    _measure(h, d, stream)  # a first copy pays for touching the memory: not the learner's
    drv.memset_d32(d, 0, n)
    before = h.copy()

    def call(unrecorded=None, whole=_none):  # (a mistake, or None; (GB/s, wall ms))
        return run_catching(lambda: _timed(fn, h, d, stream), "follow the TODOs: two events, "
                            "the copy between them on stream, wait, time_till",
                            [(ZeroDivisionError, whole), (ZeroDivisionError, "the time between "
                              "the events was 0 ms: "
                              "nothing was queued between them; record start, then the copy, "
                              "then end, all in stream"), (drv.Error, unrecorded or _none)])

    with _watched(drv, fn, stream) as (slip, unrecorded, misplaced, whole, clock):
        mistake, run = call(unrecorded, whole(fn))
    yield from filter(None, [misplaced()])  # no copy between the events: before any error
    if mistake:
        yield mistake
    gbs, wall = run
    waited = stream.is_done()
    drv.Context.synchronize()
    drv.memcpy_dtoh(arrived := np.empty_like(h), d)
    if not np.array_equal(h, before):
        yield ("h changed: the copy ran from d into h, device to host",
               "copy host to device: drv.memcpy_htod_async(d, h, stream)")
    if not waited:
        yield from clock(fn, gbs)  # no time read from events: the host's clock, named
        yield ("your function returned while its copy was still on its way: the time it "
               "measured ended before the copy did", "record start and end in stream, around "
               "the copy, and end.synchronize() before the time is read: the copy runs on after "
               "memcpy_htod_async returns, and an event waits only for its own stream's work")
    if not np.array_equal(arrived, h):
        yield ("d does not hold h after your function: the copy was not made",
               "queue it between the two events: drv.memcpy_htod_async(d, h, stream)")
    if not isinstance(gbs, numbers.Real) or not np.isfinite(gbs):
        yield f"your function returned {gbs!r}, not a number of GB/s", "return the GB/s"
    if named := slip(gbs):  # before a 0 GB/s is blamed on the time: a floored one may be 0
        yield from _slip(fn, gbs, *named)
    if gbs <= 0:
        yield (f"your function returned {gbs!r} GB/s: a time that is not positive", "start."
               "time_till(end) is the ms from start to end (end.time_till(start) is negative)")
    runs, refs = [(gbs, wall)], [_measure(h, d, stream)]
    for _ in range(2):  # taking turns, so that a burst of load slows both, not the checker's alone
        mistake, run = call()
        if mistake:
            yield mistake
        runs.append(run)
        refs.append(_measure(h, d, stream))
    if all(h.nbytes / (g * 1e6) <= 1.05 * w + 0.01 and g <= 30 * max(refs) for g, w in runs):
        return  # each copy no longer than the call that waited for it, and none wildly fast
    yield from clock(fn, gbs)  # a GPU may finish a copy the host's clock did not wait for
    yield from _far_off(fn, max(g for g, _ in runs), max(refs), h)  # the least slowed down


def _far_off(fn, gbs, ref, h):
    """(problem, hint) of the fastest GB/s ``gbs`` out of bounds, to the checker's fastest
    ``ref`` for the copy of ``h``: one element's bytes, else the slip it is near, else neither."""
    if abs(np.log10(gbs / ref * h.size)) < np.log10(BAND):  # one element's bytes, not a slip's
        yield one_element(fn, gbs, h.itemsize, h.nbytes)
    factor, problem, hint = min(SLIPS, key=lambda s: abs(np.log10(gbs / ref / s[0])))
    if abs(np.log10(gbs / ref / factor)) < _band(factor):
        yield f"{gbs:.4g} GB/s is {problem}", hint
    yield (f"{gbs:.4g} GB/s, where the checker's events measured {ref:.4g} GB/s for the same "
           "copy", "record start and end in stream, around the copy alone; return h.nbytes / "
           "(ms * 1e-3) / 1e9")
