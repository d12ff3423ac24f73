"""A learner's own Python, read: where in it an exception was raised (``learner_line``,
``raised``, ``raising_frame``), the call it is making now (``call_running``) and its code parsed, numbered as the learner sees it
(``code_of``, ``LearnerCode``), with what the code alone shows (``uncalled``: a method named
without its call's parentheses; ``without_stream``: a copy queued with no stream;
``caret_as_power``: a power written with ^). The exercises whose work is a Python function
(``helpers.exercises.function``) and their models read it."""

from __future__ import annotations

import ast
import sys
import sysconfig
import traceback
from pathlib import Path
from typing import NamedTuple

# Where code that is not the learner's lives: the course's helpers, Python and its packages.
NOT_THE_LEARNER_S = tuple(str(Path(p).resolve()) for p in {
    Path(__file__).resolve().parents[1], sys.prefix, sys.base_prefix,
    *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))})


def raised(err: BaseException) -> str:
    """``your function raised ValueError at line 6 of your cell (buf[:] = h[lo:hi]): could not
    broadcast ...``: the exception, and the line of the learner's code where it was raised."""
    line = learner_line(err)
    at = "" if line is None else " at line {} of {} ({})".format(*line)
    message = str(err)
    return f"your function raised {type(err).__name__}{at}" + (f": {message}" if message else "")


def raising_frame(err: BaseException | None):
    """The innermost frame of ``err``'s traceback, where it was raised (its locals are the values
    there), or None (no error, or no traceback)."""
    tb, frame = getattr(err, "__traceback__", None), None
    while tb is not None:
        frame, tb = tb.tb_frame, tb.tb_next
    return frame


def frame_of(err: BaseException, fn):
    """The frame of ``fn``'s call that ``err`` went through (its innermost, where the learner's
    function was when it raised: its locals are the values there), or None."""
    tb, found = err.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code is getattr(fn, "__code__", None):
            found = tb.tb_frame
        tb = tb.tb_next
    return found


def call_running(fn, method, args=0):
    """``(code, call)``: ``fn``'s code parsed (``code_of``; None where it has none) and the call
    of a method named ``method``, with at least ``args`` arguments, on the line where the running
    call of ``fn`` (the caller's stack, innermost first) stands now; call is None where not
    found. For a check that runs inside a call the learner's function made (a copy, a free)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not getattr(fn, "__code__", None):
        frame = frame.f_back
    code = code_of(fn) if frame is not None else None
    call = code and next((n for n in ast.walk(code.tree) if isinstance(n, ast.Call)
                          and getattr(n.func, "attr", "") == method and len(n.args) >= args
                          and code.number(n) == frame.f_lineno), None)
    return code, call


def learner_line(err: BaseException) -> tuple | None:
    """``(number, place, text)`` of the innermost line of the learner's code that the exception
    went through (the traceback's last frame that is not the course's helpers, Python or a
    package: a notebook's cell, whose code IPython or ``catalog.define_function`` named and put
    in linecache, or the file of notebook 11's small exercises); for a cell that did not
    compile, the SyntaxError's own line. ``place`` is "your cell" or the file's name; None where
    no such line is known."""
    import linecache

    def learner_s(name):  # a cell's code is named <...>, and its lines are in linecache
        if name.startswith("<"):
            return name in linecache.cache
        return not str(Path(name).resolve()).startswith(NOT_THE_LEARNER_S)

    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(err.__traceback__)]
    if isinstance(err, SyntaxError) and err.filename and err.lineno:
        frames.append((err.filename, err.lineno))
    mine = [(name, number) for name, number in frames if number and learner_s(name)]
    if not mine:
        return None
    name, number = mine[-1]
    cell = name.startswith("<") or "ipykernel_" in name   # IPython's name for a cell's code
    text = linecache.getline(name, number).strip()
    return number, "your cell" if cell else Path(name).name, text or "its text unknown"


def caret_as_power(err: BaseException):
    """``run_catching``'s hint of a TypeError raised on a line that writes a power of two number
    literals with ^ (10^9): ``(what was seen, hint)``, or None where the line has no such ^. In
    Python ^ is bitwise XOR, which binds looser than * and /, so it took all that came before."""
    import ast

    line = learner_line(err)
    text = line[2].strip() if line else ""
    try:
        tree = ast.parse(text) if line else None
    except SyntaxError:
        return None
    xor = next((n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(
        n.op, ast.BitXor) and _int_literal(n.right)), None) if tree else None
    base = xor and xor.left
    while isinstance(base, ast.BinOp):
        base = base.right
    if not _int_literal(base):
        return None
    exponent, code = xor.right.value, text.encode()  # the offsets count UTF-8 bytes

    def between(start, end):
        return code[start:end].decode()

    meant = (between(xor.col_offset, base.col_offset) + f"{base.value} ** {exponent}"
             + between(xor.right.end_col_offset, xor.end_col_offset))
    return (f"{base.value}^{exponent} is not a power in Python: ^ is bitwise XOR, and it binds "
            f"looser than * and /, so the line computed "
            f"({between(xor.left.col_offset, xor.left.end_col_offset)}) ^ {exponent}, an XOR of "
            "a float, which Python does not do", f"write the power with **: {meant}"
            + (f" (or 1e{exponent})" if base.value == 10 else ""))


def _int_literal(node) -> bool:
    import ast

    return isinstance(node, ast.Constant) and type(node.value) is int


def uncalled(fn, names=("synchronize",)) -> list:
    """``(number, place, text)`` of each statement of ``fn``'s code that names a method of
    ``names`` without calling it (``s.synchronize``, no parentheses: Python only looks the method
    up), numbered as ``learner_line`` numbers a line; empty where the code is not known."""
    import ast

    if (code := code_of(fn)) is None:
        return []
    return sorted((code.number(node), code.place, ast.unparse(node.value))
                  for node in ast.walk(code.tree) if isinstance(node, ast.Expr)
                  and isinstance(node.value, ast.Attribute) and node.value.attr in names)


def without_stream(fn, name="memcpy_htod_async") -> str | None:
    """Where ``fn``'s code first calls ``name`` (a copy of the driver's) with no stream, fewer
    than three arguments and no stream=: "line 5 of your cell (drv.memcpy_htod_async(d, h))";
    None where it does not or the code is not known."""
    import ast

    code = code_of(fn)
    call = code and next((n for n in ast.walk(code.tree) if isinstance(n, ast.Call)
                          and isinstance(n.func, ast.Attribute) and n.func.attr == name
                          and len(n.args) < 3 and not any(k.arg == "stream" for k in n.keywords)),
                         None)
    return code.quoted(call) if call else None


def told_uncalled(fn, found, alone=False):
    """``found``'s (problem, hint)s, the first told as a wait that never happened where ``fn``'s
    code names a method without calling it (``uncalled``); ``alone``: told by itself too where
    ``found`` is empty (a run whose timing hid the missing wait: on a GPU, say, freeing the
    buffers at the return waits for the copies)."""
    waits = uncalled(fn)
    told = waits and ("{} at line {} of {} names the method without calling it (no parentheses), "
                      "so the host never waited there".format(waits[0][2], *waits[0][:2]),
                      f"call it: {waits[0][2]}(); without the parentheses Python only looks the "
                      "method up")
    for problem, hint in found:
        if told:
            yield f"{told[0]}: {problem}", told[1]
        yield problem, hint
    if told and alone:
        yield told


class LearnerCode(NamedTuple):
    """A function of the learner's as ``code_of`` reads it: ``tree``, its code parsed (``ast``);
    ``first``, the number of its first line and ``place``, where it is ("your cell" or a file's
    name), as ``learner_line`` numbers and names a line; ``lines``, its lines (dedented, line k
    of the tree being ``lines[k - 1]``)."""

    tree: object
    first: int
    place: str
    lines: list

    def number(self, node) -> int:
        """The number of ``node``'s first line, as the learner sees it."""
        return self.first + node.lineno - 1

    def text(self, node) -> str:
        """The text of ``node``'s first line."""
        return self.lines[node.lineno - 1].strip()

    def at(self, node) -> str:
        """Where ``node`` is: "line 17 of your cell"."""
        return f"line {self.number(node)} of {self.place}"

    def quoted(self, node) -> str:
        """Where ``node`` is, and its line: "line 17 of your cell (ms = ...)"."""
        return f"{self.at(node)} ({self.text(node)})"


def code_of(fn) -> LearnerCode | None:
    """``fn``'s code (a ``LearnerCode``); None where the code is not known."""
    import ast
    import inspect
    import textwrap

    try:
        lines, first = inspect.getsourcelines(fn)
        source = textwrap.dedent("".join(lines))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    return LearnerCode(tree, first, _place(fn.__code__.co_filename), source.splitlines())


def code_in(source: str, filename: str) -> LearnerCode | None:
    """A whole cell's or file's ``source``, named ``filename`` (as ``catalog.define_function``
    names it), as a ``LearnerCode``; None where it does not parse."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return LearnerCode(tree, 1, _place(filename), source.splitlines())


def cell_of(fn) -> LearnerCode | None:
    """The whole notebook cell that defined ``fn`` (as IPython, or ``catalog.define_function``,
    named it and put it in linecache), as the grader reads the cell from the notebook; for a
    function of a file, ``code_of(fn)``, the function alone."""
    import linecache

    filename = getattr(getattr(fn, "__code__", None), "co_filename", "")
    lines = linecache.getlines(filename) if _place(filename) == "your cell" else []
    return (code_in("".join(lines), filename) if lines else None) or code_of(fn)


def _place(filename: str) -> str:
    """Where code named ``filename`` is, as the learner knows it: "your cell" or a file's name."""
    return "your cell" if filename.startswith("<") or "ipykernel_" in filename else \
        Path(filename).name
