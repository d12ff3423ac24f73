"""An undeclared name that a bounds guard compares with (``if (i < n)``) where the kernel has no
such parameter: a guard copied from another kernel (vector_add's ``n``), which tests that
kernel's own size. ``compile_errors`` reads it for the compiler's "not declared" record (one
with no guess of the compiler's: a misspelt name keeps its guess). A kernel given no length and
no #define'd constant is launched with exactly one thread per element: its guard goes."""

from __future__ import annotations

import re

_KERNEL = re.compile(r"__global__\s+void\s+(\w+)\s*\(([^)]*)\)")
_WHOLE = re.compile(r"\b(?:int|unsigned|long|short|size_t)\b")


def _kernel_at(source: str, line: int):
    """(name, [(type, parameter)]) of the last kernel defined above ``line``; None if none."""
    found = None
    for m in _KERNEL.finditer(source):
        if source.count("\n", 0, m.start()) + 1 > line:
            break
        found = m[1], [(p.rsplit(None, 1)[0], re.findall(r"\w+", p)[-1])
                       for p in m[2].split(",") if re.search(r"\w\W+\w", p.strip())]
    return found


def _body(source: str, start: int) -> str:
    """The if's statement from offset ``start`` (just after its test): the one statement, or
    the one statement in its braces, its spaces made single; "" where it holds more."""
    m = re.match(r"\s*(?:\{\s*([^{};]*;)\s*\}|([^{};]*;))", source[start:])
    return " ".join((m[1] or m[2]).split()) if m else ""


def named(d, name: str, source: str):
    """(problem, hint) where ``name``, undeclared on the record's line, is what that line's if
    compares with, and the kernel it lies in has no parameter ``name``; None otherwise."""
    lines = source.splitlines()
    if len(d.names) > 1 or not 0 < d.line <= len(lines) or not (kernel := _kernel_at(source,
                                                                                     d.line)):
        return None
    offset = sum(len(text) + 1 for text in lines[:d.line - 1])
    test = re.compile(rf"\bif\s*\(([^;{{]*[<>=]\s*{re.escape(name)}\b[^;{{]*)\)").search(
        source, offset, offset + len(lines[d.line - 1]))
    kernel, parameters = kernel
    whole = [p for t, p in parameters if _WHOLE.search(t) and "*" not in t]
    if not test or name in (p for _, p in parameters) or not whole and re.search(
            r"^\s*#\s*define\s+\w+\s+\S", source, re.M):   # no length, but a constant's
        return None
    names = [p for _, p in parameters]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    guard = f"if ({' '.join(test[1].split())})"
    problem = (f"line {d.line} uses {name} in the bounds guard {guard}, but {name} is not a "
               f"parameter of {kernel} (its parameters are {listed}"
               f"{'' if whole else ', no length'}) and nothing declared it: a guard copied from "
               f"another kernel compares with that kernel's own {name}")
    if whole:
        return problem, (f"compare with the size {kernel} is given, its parameter "
                         f"{' or '.join(whole)}: a kernel knows only its parameters")
    body = _body(source, test.end())
    return problem, (f"{kernel} is given no length: it is launched with exactly one thread per "
                     "element, in whole blocks, so every thread has an element and needs no "
                     f"guard: drop the {guard} and keep its body"
                     + (f": {body}" if body else ""))
