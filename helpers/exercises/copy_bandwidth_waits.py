"""The waits of notebook 05's event-timing exercise (``helpers.exercises.copy_bandwidth``), each
read when time_till or time_since failed for want of one: the end event waited for before it was
recorded, or after the time was read, or only asked about (``end.query()``), or only named
(``end.synchronize``, no parentheses), or the start event waited for in its place; the stream
waited for before end was recorded (``noting_stream``, ``waited_before_end``); and the copy
queued with no stream, which the events in stream wait for only by the default stream's rule."""

from __future__ import annotations

import ast

from helpers.exercises.learner_code import code_of, learner_line, uncalled, without_stream


def copied_without_stream(fn, copies):
    """(problem, hint) when a copy host to device was queued with no stream (``copies``:
    ``copies_noted``'s, stream None), so into the default stream while the events are recorded
    in stream; named at ``fn``'s call where its code is known; else None."""
    if not any(way == "htod" and stream is None for way, _, stream, _ in copies):
        return None
    where = without_stream(fn) or "drv.memcpy_htod_async"
    return (f"{where} queues the copy with no stream: it runs in the default stream, not in "
            "stream, where start and end are recorded: the events bracketed it only because "
            "PyCUDA's default stream waits for every other stream and makes them wait for it; "
            "an event times its own stream's work, and with a stream that does not wait so, end "
            "would be stamped before the copy ran", "queue the copy in stream, between the two "
            "events: drv.memcpy_htod_async(d, h, stream)")


def end_waited_early(pair, waited, early):
    """(problem, hint) when time_till or time_since failed after the host had waited for the end
    event only before it was recorded (``early``: events synchronized unrecorded; ``waited``:
    those synchronized once recorded), ``pair`` = [start, end]; else None."""
    if (len(pair) != 2 or not any(e is pair[1] for e in early)
            or not getattr(pair[1], "recorded", False) or any(e is pair[1] for e in waited)):
        return None
    return ("end.synchronize() came before end.record(stream): the host waited on an event not "
            "recorded yet, which returns at once, so when the time was read the copy, and end "
            "after it, were still pending", "record end after the copy, then wait for it: "
            "end.record(stream), then end.synchronize(), then read the time")


def start_waited_for(pair, waited, err, drv):
    """(problem, hint) when time_till or time_since failed (not for an unrecorded event: a
    LogicError) after the host had waited for the start event and not for the end one, ``pair``
    = [start, end], ``waited`` the events synchronized; else None."""
    if (len(pair) != 2 or isinstance(err, drv.LogicError) or pair[0] is pair[1]
            or not any(e is pair[0] for e in waited) or any(e is pair[1] for e in waited)):
        return None
    return ("the host waited for the start event (start.synchronize()), not for end: start is "
            "reached before the copy even begins, so the copy, and end after it, may still run "
            "when the time is read", "wait for the event after the copy before reading the "
            "time: end.synchronize()")


def _read(code, line):
    """(the calls of ``code`` on an attribute, the time_till or time_since call on the learner's
    ``line`` (``learner_line``'s), the name of the end event it reads), None for those unknown."""
    calls = [n for n in ast.walk(code.tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)] if code else []
    read = next((n for n in calls if n.func.attr in ("time_till", "time_since") and n.args
                 and line and code.number(n) == line[0]), None)
    end = read and ast.unparse(read.args[0] if read.func.attr == "time_till" else read.func.value)
    return calls, read, end


def waited_after_the_read(fn, pair, waited, err):
    """(problem, hint) when time_till or time_since failed (``err``) before the host waited for
    the end event (``pair`` = [start, end]; ``waited``, the events synchronized) and ``fn``'s
    code waits for that event on a later line: the wait and the read in the wrong order."""
    code, line = code_of(fn), learner_line(err)
    if len(pair) != 2 or any(e is pair[1] for e in waited) or not code or not line:
        return None
    calls, read, end = _read(code, line)
    wait = read and next((n for n in calls if n.func.attr == "synchronize" and code.number(n)
                          > line[0] and ast.unparse(n.func.value) == end), None)
    if not wait:
        return None
    return (f"{end}.synchronize() (line {code.number(wait)}) comes after {code.text(read)} (line "
            f"{line[0]}): the time was read before the host waited for {end}, while the copy was "
            f"still on its way", f"wait first, then read the time: {end}.synchronize(), then "
            f"{code.text(read)}")


def named_not_called(fn, pair, waited, err):
    """(problem, hint) when time_till or time_since failed (``err``) before the host waited for
    the end event (``pair`` = [start, end]; ``waited``, the events synchronized) and ``fn``'s
    code names that event's synchronize without calling it (``uncalled``): no wait at all."""
    code, line = code_of(fn), learner_line(err)
    if len(pair) != 2 or any(e is pair[1] for e in waited) or not code or not line:
        return None
    _, read, end = _read(code, line)
    named = next((w for w in uncalled(fn) if read and w[2] == f"{end}.synchronize"), None)
    if not named:
        return None
    return (f"{named[2]} at line {named[0]} of {named[1]} names the method without calling it (no "
            f"parentheses): Python only looks it up, so nothing waited for {end}, and when the "
            f"time was read (line {line[0]}, {code.text(read)}) the copy was still on its way",
            f"call it: {end}.synchronize(), then read the time")


def queried_not_waited(fn, pair, waited, asked, err, drv):
    """(problem, hint) when time_till or time_since failed (``err``, not for an unrecorded event:
    a LogicError) after the host had asked whether the end event was reached, had no for an
    answer (``asked``: each query()'s event and answer) and never waited for it (``waited``, the
    events synchronized), ``pair`` = [start, end]: the query taken for a wait; else None."""
    if (len(pair) != 2 or isinstance(err, drv.LogicError) or any(e is pair[1] for e in waited)
            or not any(e is pair[1] and not said for e, said in asked)):
        return None
    code, line = code_of(fn), learner_line(err)
    calls, read, end = _read(code, line)
    end = end or "end"
    query = next((n for n in calls if n.func.attr == "query" and ast.unparse(n.func.value) == end),
                 None)
    timed = ast.unparse(read) if read else f"start.time_till({end})"
    return (f"{end}.query(){f' (line {code.number(query)})' if query else ''} only asks whether "
            f"the GPU has reached {end} and returns at once (here with False): it does not wait, "
            f"so when the time was read{f' (line {line[0]}, {code.text(read)})' if read else ''} "
            f"the copy, and {end} after it, were still on their way",
            f"wait with {end}.synchronize() before {timed}: query() is for a host that does "
            f"other work meanwhile and asks again (while not {end}.query(): ...)")


def noting_stream(drv):
    """A stream of ``drv`` whose synchronize()s note, in its ``waits``, how many copies host to
    device had been queued by then (its ``queued()``, which a watcher sets; 0 until then)."""
    class Stream(drv.Stream):
        def synchronize(self):
            self.waits.append(self.queued())
            return super().synchronize()

    stream = Stream()
    stream.waits, stream.queued = [], lambda: 0
    return stream


def waited_before_end(fn, pair, waited, stream):
    """(problem, hint) when the host waited for ``stream`` (``noting_stream``'s) once the copies
    between the events ``pair`` = [start, end] were all queued, and only then recorded end (each
    event noting, at its record, the copies queued, ``queued``, and the stream's waits so far,
    ``waits``): end stamps the host's wake-up, not the copy's end; and, where nothing waited for
    end after its record (``waited``: the events synchronized), that too; else None."""
    start, end = pair if len(pair) == 2 else (None, None)
    if not (hasattr(start, "queued") and getattr(end, "queued", 0) > start.queued
            and end.queued in stream.waits[:end.waits]):
        return None
    code = code_of(fn)
    calls = [n for n in ast.walk(code.tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute)] if code else []
    read = next((n for n in calls if n.func.attr in ("time_till", "time_since") and n.args), None)
    name = ast.unparse(read.args[0] if read.func.attr == "time_till" else read.func.value) \
        if read else "end"
    record = next((n for n in calls if n.func.attr == "record"
                   and ast.unparse(n.func.value) == name), None)
    wait = record and max((n for n in calls if n.func.attr == "synchronize" and ast.unparse(
        n.func.value) != name and code.number(n) < code.number(record)), key=code.number,
        default=None)
    told = (f"{ast.unparse(wait)} (line {code.number(wait)}) comes before {ast.unparse(record)} "
            f"(line {code.number(record)})" if wait else f"the host waited for the stream before "
            f"{name}.record(stream)")
    unwaited = not any(e is end for e in waited) and len(stream.waits) == end.waits
    return (f"{told}, after the copy: {name} was stamped when the host, its wait over, recorded "
            f"it, not when the copy ended, so the time holds the host's wake-up too"
            + (f"; and nothing waited for {name} before the time was read" if unwaited else ""),
            f"record {name} right after the copy: {name}.record(stream), then "
            f"{name}.synchronize(), then ms = start.time_till({name})")
