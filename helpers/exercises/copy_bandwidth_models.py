"""The models of notebook 05's event-timing exercise that ``helpers.exercises.copy_bandwidth``
reads the learner's ms and code with: the ms that time_till hands over, noting what was done to
it; a time converted to seconds twice; one element's bytes where the array's belong; the time
read from one event to itself (the waits: ``copy_bandwidth_waits``)."""

from __future__ import annotations

import ast
import math
import numbers

from helpers.exercises.learner_code import code_of


WHOLE = {"__int__": "int()", "__trunc__": "math.trunc()", "__floor__": "math.floor()",
         "__round__": "round()"}


def _made_whole(name):
    """Ms's ``name`` (int(), round(), ...): notes ("whole", (how, the ms, the whole number))."""
    def whole(self, *args):
        value = getattr(float(self), name)(*args)
        if not args:  # round(ms, 2) keeps a fraction
            self.notes.append(("whole", (WHOLE[name], float(self), value)))
        return value
    return whole


class Ms(float):
    """The ms that time_till hands the learner: a float that notes, in ``notes``, what was done
    to it first (``("*", 1e3)``: multiplied by 1e3; ``("/", x)``: divided by x; ``("by", x)``: x
    divided by it); what it gives is a plain float."""

    def __new__(cls, value, notes):
        ms = super().__new__(cls, value)
        ms.notes = notes
        return ms

    def __mul__(self, other):
        self.notes.append(("*", other))
        return float(self) * other

    __rmul__ = __mul__

    def __truediv__(self, other):
        self.notes.append(("/", other))
        return float(self) / other

    def __rtruediv__(self, other):
        self.notes.append(("by", other))
        return other / float(self)

    __int__, __trunc__, __floor__, __round__ = (_made_whole(name) for name in WHOLE)


def seconds(node, name=None):
    """Whether ``node`` turns a time in ms into seconds (x / 1000, x / 1e3, x * 1e-3, x * 0.001):
    of the variable ``name``, or of a call of time_till or time_since where no name is given."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant) and (
            isinstance(node.op, ast.Div) and node.right.value == 1000
            or isinstance(node.op, ast.Mult) and node.right.value == 1e-3)):
        return False
    if name:
        return isinstance(node.left, ast.Name) and node.left.id == name
    return (isinstance(node.left, ast.Call) and isinstance(node.left.func, ast.Attribute)
            and node.left.func.attr in ("time_till", "time_since"))


def converted_twice(fn, gbs):
    """A GB/s 1000 times too large (to the learner's own events) where the code made the ms
    seconds where it read them (ms = start.time_till(end) / 1000) and converts that variable to
    seconds again in a later statement (h.nbytes / (ms * 1e-3) / 1e9)."""
    if (code := code_of(fn)) is None:
        return
    simple = [n for n in ast.walk(code.tree)
              if isinstance(n, (ast.Assign, ast.Return, ast.AugAssign))]
    for read in [n for n in simple if isinstance(n, ast.Assign) and seconds(n.value)
                 and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)]:
        name, call = read.targets[0].id, read.value.left
        again = [(n, b) for n in simple if n.lineno > read.lineno for b in ast.walk(n)
                 if seconds(b, name)]
        for statement, op in again[:1]:
            factor = code.lines[op.lineno - 1][op.right.col_offset:op.right.end_col_offset]
            how = f"{'multiplies' if isinstance(op.op, ast.Mult) else 'divides'} {name} by {factor}"
            yield (f"{gbs:.4g} GB/s is 1000 times too large: the time was converted to seconds "
                   f"twice: {code.quoted(read)} already made the ms seconds, and line "
                   f"{code.number(statement)} ({code.text(statement)}) {how} again",
                   f"keep the ms as they come: {name} = {ast.unparse(call)} "
                   f"({call.func.attr} gives milliseconds), and make them seconds once, in the "
                   f"GB/s: h.nbytes / ({name} * 1e-3) / 1e9")


def made_larger(fn, gbs):
    """A GB/s 1000 times too small (to the learner's own events) where the code multiplied the
    ms by 1000 (or divided them by 1e-3) where it read them (ms = start.time_till(end) * 1000),
    as if time_till gave seconds: named with that line."""
    if (code := code_of(fn)) is None:
        return
    for read in ast.walk(code.tree):
        value = getattr(read, "value", None)
        if not (isinstance(read, ast.Assign) and len(read.targets) == 1 and isinstance(
                read.targets[0], ast.Name) and isinstance(value, ast.BinOp)
                and isinstance(value.right, ast.Constant) and isinstance(value.left, ast.Call)
                and isinstance(value.left.func, ast.Attribute)
                and value.left.func.attr in ("time_till", "time_since")
                and (isinstance(value.op, ast.Mult) and value.right.value == 1000
                     or isinstance(value.op, ast.Div) and value.right.value == 1e-3)):
            continue
        name, factor = read.targets[0].id, code.lines[read.lineno - 1][
            value.right.col_offset:value.right.end_col_offset]
        how = f"{'multiplies' if isinstance(value.op, ast.Mult) else 'divides'} the ms by {factor}"
        yield (f"{gbs:.4g} GB/s is 1000 times too small: {code.quoted(read)} {how}, as if "
               f"{value.left.func.attr} gave "
               f"seconds: it gives milliseconds already, so {name} holds microseconds, and the "
               f"GB/s's * 1e-3 makes them ms, not seconds", f"keep the ms as they come: {name} = "
               f"{ast.unparse(value.left)} ({value.left.func.attr} gives milliseconds), and make "
               f"them seconds once, in the GB/s: h.nbytes / ({name} * 1e-3) / 1e9")
        return


def one_element(fn, gbs, itemsize, nbytes):
    """(problem, hint) of a GB/s ``nbytes / itemsize`` times too small to the learner's own events:
    the bytes of one element (h.itemsize) divided by the seconds where the array's (h.nbytes)
    belong, with the line of the learner's code that reads ``.itemsize`` where it is known."""
    where, what = "", "h.itemsize"
    if (code := code_of(fn)) is not None:
        for node in ast.walk(code.tree):
            if isinstance(node, (ast.Return, ast.Assign)) and any(
                    isinstance(a, ast.Attribute) and a.attr == "itemsize" for a in ast.walk(node)):
                what = next(ast.unparse(a) for a in ast.walk(node)
                            if isinstance(a, ast.Attribute) and a.attr == "itemsize")
                where = f" ({code.at(node)}: {code.text(node)})"
                break
    array = what.rsplit(".", 1)[0]
    return (f"{gbs:.4g} GB/s is {nbytes // itemsize:,} times too small: the bytes of one "
            f"element, {what} ({itemsize}), were divided by the seconds where the array's, "
            f"{array}.nbytes ({nbytes:,}), belong{where}", f"the bytes copied are "
            f"{array}.nbytes: GB/s = {array}.nbytes / (ms * 1e-3) / 1e9")


def object_size(fn, gbs, size, nbytes):
    """(problem, hint) of a GB/s ``nbytes / size`` times too small to the learner's own events,
    ``size`` = sys.getsizeof of the array copied: the Python object's size divided by the seconds
    where the array's bytes belong, with the line of the learner's code that calls getsizeof."""
    where = ""
    if (code := code_of(fn)) is not None:
        node = next((n for n in ast.walk(code.tree) if isinstance(n, (ast.Return, ast.Assign))
                     and any(isinstance(c, ast.Call) and "getsizeof" in ast.unparse(c.func)
                             for c in ast.walk(n))), None)
        if node is not None:
            where = f" ({code.at(node)}: {code.text(node)})"
    return (f"{gbs:.4g} GB/s is {nbytes / size:,.0f} times too small: the bytes counted were "
            f"sys.getsizeof(h) ({size}), the Python object's size (for a page-locked array, "
            f"whose memory the object does not own, only its header), where the array's, "
            f"h.nbytes ({nbytes:,}), belong{where}", "the bytes copied are h.nbytes: GB/s = "
            "h.nbytes / (ms * 1e-3) / 1e9")


def _bytes_multiplied(code, by):
    """(statement, the multiplication, the array) of the first statement of ``code`` that
    multiplies an expression reading ``.nbytes`` by an operand for which ``by(operand)`` holds;
    None where none does."""
    for node in ast.walk(code.tree):
        if not isinstance(node, (ast.Return, ast.Assign, ast.AugAssign)):
            continue
        for op in ast.walk(node):
            if isinstance(op, ast.BinOp) and isinstance(op.op, ast.Mult) and any(
                    by(c) and any(isinstance(a, ast.Attribute) and a.attr == "nbytes"
                                  for a in ast.walk(o))
                    for c, o in ((op.left, op.right), (op.right, op.left))):
                return node, op, next(ast.unparse(a.value) for a in ast.walk(op)
                                      if isinstance(a, ast.Attribute) and a.attr == "nbytes")
    return None


def counted_twice(fn, gbs):
    """A GB/s twice too large (to the learner's own events) where a statement of the code
    multiplies the bytes (an expression that reads ``.nbytes``) by 2: a read and a write counted,
    where a copy moves each byte once."""
    if (code := code_of(fn)) is None or (found := _bytes_multiplied(
            code, lambda c: isinstance(c, ast.Constant) and c.value == 2)) is None:
        return
    node, op, array = found
    yield (f"{gbs:.4g} GB/s is twice too large: {code.quoted(node)} counts the bytes twice "
           f"({ast.unparse(op)}), as if the copy's read and its write each moved them",
           f"a copy moves {array}.nbytes bytes once: GB/s = {array}.nbytes / (ms * 1e-3) / 1e9")


def bytes_times_itemsize(fn, gbs):
    """A GB/s 4 times too large (to the learner's own events) where a statement of the code
    multiplies the bytes (an expression that reads ``.nbytes``) by 4 or by an ``.itemsize``: the
    4 bytes of a float32 counted again, where nbytes counts bytes already."""
    if (code := code_of(fn)) is None or (found := _bytes_multiplied(code, lambda c: isinstance(
            c, ast.Constant) and c.value == 4 or isinstance(c, ast.Attribute)
            and c.attr == "itemsize")) is None:
        return
    node, op, array = found
    yield (f"{gbs:.4g} GB/s is 4 times too large: {code.quoted(node)} multiplies the bytes by 4 "
           f"({ast.unparse(op)}), the bytes of a float32, but {array}.nbytes already counts bytes "
           f"({array}.size * 4)", f"the bytes copied are {array}.nbytes: GB/s = {array}.nbytes / "
           "(ms * 1e-3) / 1e9")


def is_floored(gbs, right):
    """Whether ``gbs`` is ``right`` (the bytes over the learner's own ms) rounded down to a whole
    number of GB/s where ``right`` is not one: floor division (//) or int() in the GB/s."""
    return (float(gbs).is_integer() and 0 <= right - gbs < 1
            and right - gbs > 1e-6 * max(right, 1))


def floored(fn, gbs, right):
    """(problem, hint) of a GB/s ``gbs`` that is ``right`` rounded down to whole GB/s, with the
    line of the learner's code that divides with // where it is known."""
    where, how = "", "rounded down (// or int())"
    if (code := code_of(fn)) is not None:
        node = next((n for n in ast.walk(code.tree) if isinstance(n, (ast.Return, ast.Assign))
                     and any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.FloorDiv)
                             for b in ast.walk(n))), None)
        if node is not None:
            where = f": {code.quoted(node)} divides with //"
            how = "// is floor division, which drops the fraction"
    return (f"your function returned {gbs:.4g} GB/s, the bytes over your own events' ms "
            f"({right:.4g} GB/s) rounded down to a whole number of GB/s{where}: {how} (a copy "
            "slower than 1 GB/s would give 0)", "divide with /, not //: h.nbytes / (ms * 1e-3) / 1e9")


def as_microseconds(notes):
    """(problem, hint) of a GB/s 1000 times too large where the ms time_till handed over were
    first multiplied by 1e-6 (or divided by 1e6), as if they were microseconds; else None."""
    how = ("multiplied by 1e-6 (ms * 1e-6)" if ("*", 1e-6) in notes
           else "divided by 1e6 (ms / 1e6)" if ("/", 1e6) in notes else None)
    if how is None:
        return None
    return (f"1000 times too large: the ms were {how}, as if the time were in microseconds: "
            "time_till gives milliseconds, and a millisecond is 1e-3 s, so the seconds came out "
            "1000 times too short", "multiply the ms by 1e-3, not 1e-6, to get the seconds: "
            "GB/s = h.nbytes / (ms * 1e-3) / 1e9")


def divided_by_1e10(fn, gbs):
    """A GB/s 10 times too small (to the learner's own events) where the code divides by a
    literal worth 1e10 (10e9, a slip of scientific notation for 1e9): named with that line."""
    if (code := code_of(fn)) is None:
        return
    for node in ast.walk(code.tree):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
                and isinstance(node.right, ast.Constant) and node.right.value == 1e10):
            continue
        right = node.right
        text = code.lines[node.lineno - 1][right.col_offset:right.end_col_offset] if (
            node.lineno == right.end_lineno) else ast.unparse(right)
        why = f" ({text} is 1e10: 10 times 1e9)" if text != "1e10" else ""
        yield (f"{gbs:.4g} GB/s is 10 times too small: {code.quoted(node)} divides by "
               f"{text}{why}, where 1 GB is 1e9 bytes", "divide by "
               "1e9: GB/s = h.nbytes / (ms * 1e-3) / 1e9 (1e9 is 1 followed by nine zeros)")
        return


def made_whole(fn, notes, gbs=None, nbytes=None):
    """(problem, hint) where the ms that time_till handed over were made a whole number (int(),
    round(), ..., noted in ``notes``): to 0, whose division raised (``gbs`` None), or to fewer
    ms, the bytes ``nbytes`` over which are ``gbs``; else None."""
    how, ms, whole = next((v for op, v in reversed(notes) if op == "whole"), (None, 0, 0))
    if how is None or whole == ms or (gbs is None) != (whole == 0) or gbs is not None and abs(
            gbs / (nbytes / (whole * 1e-3) / 1e9) - 1) > 1e-9:
        return None
    where, keep = "", "the ms as time_till gives them, a float"
    if (code := code_of(fn)) is not None:
        node = next((n for n in ast.walk(code.tree) if isinstance(n, (ast.Assign, ast.Return))
                     and any(isinstance(c, ast.Call) and ast.unparse(c.func).split(".")[-1]
                             == how[:-2].split(".")[-1] for c in ast.walk(n))), None)
        if node is not None:
            where = f"{code.quoted(node)}: "
            call = next(c for c in ast.walk(node) if isinstance(c, ast.Call)
                        and ast.unparse(c.func).split(".")[-1] == how[:-2].split(".")[-1])
            keep = (f"{ast.unparse(node.targets[0])} = {ast.unparse(call.args[0])}"
                    if isinstance(node, ast.Assign) and len(node.targets) == 1 else
                    f"use {ast.unparse(call.args[0])}, not {ast.unparse(call)}") if call.args else keep
    told = (f"{where}{how} dropped the fraction of the ms: the events gave {ms:.4g} ms, and "
            f"{whole} ms were used")
    told = (f"{told}, so the bytes were divided by 0 s" if gbs is None else
            f"{gbs:.4g} GB/s, where the bytes over the events' ms give "
            f"{nbytes / (ms * 1e-3) / 1e9:.4g} GB/s: {told}")
    return told, f"keep the fraction: {keep} (a copy may take under 1 ms)"


def upside_down(fn, gbs, right):
    """(problem, hint) of a GB/s ``gbs`` that is 1 over ``right``, the bytes over the learner's
    own events' ms: the seconds divided by the GB, with the line that returns it where known."""
    where = "the seconds (ms * 1e-3) were divided by the GB (h.nbytes / 1e9)"
    if (code := code_of(fn)) is not None:
        node = next((n for n in ast.walk(code.tree) if isinstance(n, ast.Return)
                     and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Div)), None)
        where = f"{code.quoted(node)} divides the seconds by the GB" if node else where
    return (f"your function returned {gbs:.4g}, which is 1 over the copy's {right:.4g} GB/s: "
            f"that is seconds per GB, the fraction upside down: {where}, where the GB are "
            "divided by the seconds", "turn the fraction over: GB/s = (h.nbytes / 1e9) / "
            "(ms * 1e-3), the same as h.nbytes / (ms * 1e-3) / 1e9")


def tenfold_seconds(fn, gbs, _right=None):
    """(problem, hint) of a GB/s 10 times too small (to the learner's own events) where the ms
    were multiplied by 1e-2 (``copy_bandwidth._slip_of`` saw it in the ms's notes): ms * 10e-3,
    a slip of scientific notation for 1e-3, named with the line of ``fn``'s code that multiplies
    by that literal where it is known."""
    where, text = "the code", "0.01"
    if (code := code_of(fn)) is not None:
        node = next((n for n in ast.walk(code.tree) if isinstance(n, ast.BinOp)
                     and isinstance(n.op, ast.Mult) and any(isinstance(s, ast.Constant)
                                                            and s.value == 1e-2
                                                            for s in (n.left, n.right))), None)
        if node is not None:
            lit = node.right if isinstance(node.right, ast.Constant) else node.left
            text = code.lines[lit.lineno - 1][lit.col_offset:lit.end_col_offset] if (
                lit.lineno == lit.end_lineno) else ast.unparse(lit)
            where = code.quoted(node)
    why = f" ({text} is 1e-2: 10 times 1e-3)" if text not in ("1e-2", "0.01") else ""
    return (f"{gbs:.4g} GB/s is 10 times too small: {where} multiplies the ms by {text}{why}, so "
            "the time came out 10 times the seconds the copy took, where a millisecond is "
            "1e-3 s", "multiply the ms by 1e-3 to get the seconds: GB/s = h.nbytes / (ms * "
            "1e-3) / 1e9 (1e-3 is one thousandth; 10e-3 is ten of them)")


def returned_ms(fn, gbs, _problem=None):
    """(problem, hint) where ``fn`` returned ``gbs``, the ms that time_till or time_since handed
    it, as they are: the line that returns them, where known."""
    code = code_of(fn)
    node = code and next((n for n in ast.walk(code.tree) if isinstance(n, ast.Return)), None)
    where = f" at {code.quoted(node)}" if node else ""
    return (f"your function returned {gbs:.4g}{where}, the ms the events gave: that is the "
            "copy's time in milliseconds, not a bandwidth in GB/s", "convert the time to GB/s "
            "before returning it: return h.nbytes / (ms * 1e-3) / 1e9 (the bytes over the "
            "seconds, in GB)")


def counted_once(fn, gbs, copies):
    """(problem, hint) of a GB/s ``copies`` times too small to the learner's own events, which
    timed that many copies where one's bytes were counted; the loop queuing them, where known."""
    code = code_of(fn)
    loop = code and next((n for n in ast.walk(code.tree) if isinstance(n, (ast.For, ast.While))
                          and "memcpy_htod" in ast.unparse(n)), None)
    where = f" (the loop at {code.quoted(loop)})" if loop else ""
    return (f"{gbs:.4g} GB/s is {copies} times too small: the events timed {copies} copies of "
            f"h{where}, but the GB/s counts h.nbytes once, the bytes of one copy", "count the "
            f"bytes of every copy timed, {copies} * h.nbytes / (ms * 1e-3) / 1e9, or queue one "
            "copy alone between the events")


def one_event(pair, made):
    """(problem, hint) when the time was read from one event to itself, ``pair`` = [start, end]
    the same object: one Event made under two names (start = end = drv.Event()), or, where
    others were made (``made``: one item an event), the one event passed twice; None otherwise."""
    if len(pair) != 2 or pair[0] is not pair[1]:
        return None
    if len(made) == 1:
        return ("start and end are the same Event object (start = end = drv.Event() makes one "
                "event with two names): end.record(stream) recorded it again after the copy, so "
                "the time was read from one event to itself", "make two events: start, end = "
                "drv.Event(), drv.Event()")
    return ("the time was read from one event to itself (the same Event object on both sides "
            "of time_till or time_since)", "read it from start to end: start.time_till(end)")


CLOCKS = ("perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns",
          "default_timer", "process_time")


def host_clock(fn, gbs, made):
    """(problem, hint) when no time was read from events (no time_till or time_since) and the
    code reads the host's clock (time.perf_counter(), time.time(), ...): the first statement that
    does, named; ``made``, the events the function made (one item each). Nothing where the code
    is not known or reads no clock."""
    if (code := code_of(fn)) is None:
        return
    node = next((n for n in ast.walk(code.tree) if isinstance(n, (ast.Assign, ast.Return))
                 and any(isinstance(c, ast.Call) and isinstance(c.func, (ast.Attribute, ast.Name))
                         and getattr(c.func, "attr", getattr(c.func, "id", "")) in CLOCKS
                         for c in ast.walk(n))), None)
    if node is None:
        return
    unused = ("; the events start and end were made but never recorded" if len(made) >= 2 else
              "; the event made was never recorded" if made else "")
    yield (f"the time came from the host's clock ({code.at(node)}: {code.text(node)}), not from "
           f"events: no time_till or time_since was called{unused}. memcpy_htod_async returns as "
           "soon as the copy is queued, so the host's clock timed the queuing, not the copy"
           + (f", and {gbs:.4g} GB/s is too large" if isinstance(gbs, numbers.Real)
              and math.isfinite(gbs) else ""), "time the copy on the GPU's clock, with two "
           "events in stream: start.record(stream), the copy, end.record(stream), then "
           "end.synchronize() and ms = start.time_till(end)")
