"""What g++ warned about the learner's code, as facts: read from its output, kept in the library
the compile made (so that a module found in the cache has them too), read back when it loads.

Seven kinds: "uninitialised", a local variable read before anything was stored in it, where g++
can tell (-Wuninitialized: on every path; -Wmaybe-uninitialized: on some); "empty body", an
``if``, ``else`` or loop whose body is a lone semicolon (-Wempty-body: ``if (i < n);``); and
"not called", a function named as a statement without its parentheses (-Waddress:
``__syncthreads;``, which calls nothing); "chained comparison", two comparisons written as one
(-Wparentheses: ``if (0 <= i < n)``, which C reads as ``(0 <= i) < n``); and "logical not", a ``!``
that applies to the left side of a comparison only (-Wlogical-not-parentheses: ``!x < width``,
which C reads as ``(!x) < width``); "assignment as condition", an ``=`` where ``==`` belongs
(-Wparentheses: ``if (lane = 0)``, which stores 0 in lane and is false); and "operator
precedence", an operator that binds tighter than the learner read it (-Wparentheses: ``a << 8 +
b``, which C reads as ``a << (8 + b)``); and "unsigned comparison", an unsigned value compared
with 0 where the outcome is always the same (-Wtype-limits: ``b >= 0`` is always true, ``i < 0``
always false, for an unsigned ``b`` or ``i``). Such a read inside
one of the prelude's macros (``__ballot_sync(0xffffffff, above)``) is placed by g++ in the
prelude's header, with only its note ("'above' was declared here") in the learner's file: the
record names the learner's line of that note, and the macro that read it.

A checker reads the records of the kernel it holds (``Function.compiler_warnings`` on the
simulator; ``SourceModule.compiler_warnings`` for the whole module), never the words.
"""

from __future__ import annotations

import ctypes
import json
import re
from pathlib import Path
from typing import NamedTuple

from .source import INCLUDE_DIR, in_prelude

VERSION = "8"
"""How the records are read from g++'s output: a part of a cached library's name (builder.py), so
that a library whose records were read otherwise is built again."""
SYMBOL = "sim_compiler_warnings"
"""The library's C string that holds the records, as JSON (absent where g++ said nothing)."""


class CompilerWarning(NamedTuple):
    """One warning about the learner's code. ``kind``: "uninitialised" (the fields below are
    its; "empty body" and "not called" give the statement or function as ``name``, its ``file``
    and ``line``, and ``functions``; "chained comparison", "logical not" and "assignment as
    condition" the operator, "<", "!" or "=", as ``name``; "operator precedence" the operator
    read last, "<<" in ``a << 8 + b``, as ``name`` and the one C binds tighter, "+", or
    "comparison" or "arithmetic", as ``inside``; "unsigned comparison" the test as g++ gives it,
    ">= 0" or "< 0" (``0 <= b`` is ">= 0" too), as ``name``, whether it is always true as
    ``always``, and the column of its operator as ``column``); ``name``: the variable as g++
    names it; ``file`` and ``line``: the learner's line the warning is about (the read's where
    g++ places it in the file that declares the variable, else the declaration's); ``declared``:
    the line of the variable's declaration (None where g++ gave none); ``reader``: what read it
    in another file, the prelude's macro there (``__ballot_sync``), None for a read in the file
    that declares it or where g++ placed it in a function the macro calls; ``certain``: read
    unset on every path g++ followed (-Wuninitialized), not only on some; ``functions``: the
    functions g++ named it in, the innermost first (those it was inlined into after)."""

    kind: str
    name: str
    file: str
    line: int
    declared: int | None
    reader: str | None
    certain: bool
    functions: tuple
    inside: str | None = None
    always: bool | None = None
    column: int | None = None


_QUOTED = r"[‘'](?P<{}>[^’']*)[’']"
_CONTEXT = re.compile(r"^(?:[^:\n]+: )?In (?:static |member |static member )*function "
                      + _QUOTED.format("sig") + r"[:,]$")
_INLINED = re.compile(r"^\s+inlined from " + _QUOTED.format("sig") + " at ")
_WARNING = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: " + _QUOTED.format("name")
                      + r" .*\[-W(?P<maybe>maybe-)?uninitialized\]$")
_DECLARED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? note: " + _QUOTED.format("name")
                       + r" (?:was )?declared here$")
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)")
_NOT_CALLED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: statement is a "
                         r"reference, not call, to function " + _QUOTED.format("name")
                         + r" \[-Waddress\]$")
_EMPTY_BODY = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: suggest braces around "
                         r"empty body in (?:an? )?[‘']?(?P<name>\w+)[’']? statement \[-Wempty-body\]$")

_CHAINED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: comparisons like [‘']X<=Y<=Z"
                      r"[’'] (?:do not|don't) have their mathematical meaning \[-Wparentheses\]$")
_NOT_ON_THE_LEFT = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: logical not is only "
                              r"applied to the left hand side of (?:this )?comparison "
                              r"\[-Wlogical-not-parentheses\]$")
_ASSIGNED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: (?:suggest parentheses around "
                       r"assignment used as truth value|using the result of an assignment as a "
                       r"condition without parentheses) \[-Wparentheses\]$")
_PRECEDENCE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: suggest parentheses around "
                         r"[‘']?(?P<inside>[^’' ]+)[’']? (?:inside|in operand of) [‘'](?P<name>[^’']+)[’'] "
                         r"\[-Wparentheses\]$")

_UNSIGNED_ZERO = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<column>\d+): warning: comparison of "
                            r"unsigned expression in [‘'](?P<name>[<>=]+ ?0)[’'] is always "
                            r"(?P<always>true|false) \[-Wtype-limits\]$")


def _function(signature):
    """The function's name in g++'s signature: 'void warp_vote(const float*, int)' ->
    'warp_vote', 'constexpr decltype (auto) std::__invoke(_Fn&&) [with _Fn = ...]' -> '__invoke'."""
    text = re.sub(r"\s*\[with .*\]$", "", signature)
    text = re.sub(r"(\s*\b(?:const|volatile|noexcept)\b|\s*&+)*$", "", text)
    depth, start = 0, text.rfind(")")
    for start in range(start, -1, -1):  # the parameters' (
        depth += {")": 1, "(": -1}.get(text[start], 0)
        if depth == 0:
            break
    head = text[:start].rstrip()
    while head.endswith(">"):  # template arguments
        depth, cut = 0, len(head) - 1
        for cut in range(cut, -1, -1):
            depth += {">": 1, "<": -1}.get(head[cut], 0)
            if depth == 0:
                break
        head = head[:cut].rstrip()
    name = re.search(r"(~?\w+|operator\W+)$", head)
    return name.group(1) if name else head


def _reader(path, line):
    """The macro a prelude header defines at ``line`` (the header read from this copy's prelude:
    the path g++ gives may be the copy that made the precompiled prelude), else None (another
    g++ places the read in the function the macro calls: g++ 13 in sim_runtime.h's)."""
    header = INCLUDE_DIR / Path(path).name
    try:
        text = header.read_text().splitlines() if in_prelude(path) else []
    except OSError:
        text = []
    match = _DEFINE.match(text[line - 1]) if 0 < line <= len(text) else None
    return match.group(1) if match else None


def uninitialised(stderr):
    """The records (CompilerWarning) of g++'s output ``stderr``: its uninitialised reads that
    are the learner's (placed in the learner's file, or in the prelude with the declaration in
    the learner's file), once each (a function inlined into a kernel is warned about twice: the
    record names both), in g++'s order."""
    found, context, pending = {}, [], None
    for text in stderr.splitlines():
        if m := _CONTEXT.match(text):
            context = [_function(m.group("sig"))]
        elif m := _INLINED.match(text):
            context.append(_function(m.group("sig")))
        elif m := _WARNING.match(text):
            _add(found, pending)
            pending = [m, tuple(context), None]
        elif (m := _DECLARED.match(text)) and pending and pending[2] is None and \
                m.group("name") == pending[0].group("name") and not in_prelude(m.group("file")):
            pending[2] = m
    _add(found, pending)
    return tuple(found.values())


def empty_bodies(stderr):
    """The records (CompilerWarning, kind "empty body", ``name`` the statement: "if", "else",
    "for", ...) of g++'s -Wempty-body warnings about the learner's file, in g++'s order."""
    return _about_a_line(stderr, _EMPTY_BODY, "empty body")


def not_called(stderr):
    """The records (CompilerWarning, kind "not called", ``name`` the function) of g++'s -Waddress
    warnings about a statement that names a function without calling it (``__syncthreads;``) in
    the learner's file, in g++'s order."""
    return _about_a_line(stderr, _NOT_CALLED, "not called")


def chained_comparisons(stderr):
    """The records (CompilerWarning, kind "chained comparison", ``name`` "<") of g++'s
    -Wparentheses warnings about two comparisons written as one (``0 <= i < n``) in the
    learner's file, in g++'s order."""
    return _about_a_line(stderr, _CHAINED, "chained comparison", "<")


def nots_on_the_left(stderr):
    """The records (CompilerWarning, kind "logical not", ``name`` "!") of g++'s
    -Wlogical-not-parentheses warnings about a ``!`` applied to a comparison's left side only
    (``!x < width``) in the learner's file, in g++'s order."""
    return _about_a_line(stderr, _NOT_ON_THE_LEFT, "logical not", "!")


def assignments_as_conditions(stderr):
    """The records (CompilerWarning, kind "assignment as condition", ``name`` "=") of g++'s
    -Wparentheses warnings about an assignment tested as a condition (``if (lane = 0)``) in the
    learner's file, in g++'s order."""
    return _about_a_line(stderr, _ASSIGNED, "assignment as condition", "=")


def precedences(stderr):
    """The records (CompilerWarning, kind "operator precedence", ``name`` the operator C applies
    last, ``inside`` the one it binds tighter) of g++'s -Wparentheses warnings about an
    expression such as ``a << 8 + b`` (``a << (8 + b)``) or ``x & m == 0`` (``x & (m == 0)``) in
    the learner's file, in g++'s order."""
    return _about_a_line(stderr, _PRECEDENCE, "operator precedence")


def unsigned_comparisons(stderr):
    """The records (CompilerWarning, kind "unsigned comparison", ``name`` the test, ">= 0" or
    "< 0", ``always`` its outcome, ``column`` its operator's) of g++'s -Wtype-limits warnings
    about an unsigned value compared with 0 (``for (unsigned b = 767; b >= 0; b--)``, always
    true) in the learner's file, in g++'s order."""
    return _about_a_line(stderr, _UNSIGNED_ZERO, "unsigned comparison")


def of_output(stderr):
    """Every record of g++'s output ``stderr``, of each kind in turn."""
    return (uninitialised(stderr) + empty_bodies(stderr) + not_called(stderr)
            + chained_comparisons(stderr) + nots_on_the_left(stderr)
            + assignments_as_conditions(stderr) + precedences(stderr)
            + unsigned_comparisons(stderr))


def _about_a_line(stderr, warning, kind, name=None):
    """The records of ``kind`` of each of g++'s lines that match ``warning`` (its groups: file,
    line, and name unless ``name`` is given; inside, always and column where it has them) in the
    learner's file, with the function g++ named before it."""
    context, found = [], []
    for text in stderr.splitlines():
        if m := _CONTEXT.match(text):
            context = [_function(m.group("sig"))]
        elif (m := warning.match(text)) and not in_prelude(m.group("file")):
            fields = m.groupdict()
            found.append(CompilerWarning(
                kind, name or m.group("name"), m.group("file"), int(m.group("line")), None, None,
                True, tuple(context), fields.get("inside"),
                fields["always"] == "true" if "always" in fields else None,
                int(fields["column"]) if fields.get("column") else None))
    return tuple(found)


def _add(found, pending):
    """Put the record of ``pending`` (a warning, its functions and its declaration's note) into
    ``found``, its functions merged into those of the same warning met before; nothing for a
    warning in the prelude whose variable is not declared in the learner's file. A read in
    another file than the declaration's (the prelude's macro) is placed at the declaration."""
    if pending is None:
        return
    warning, functions, note = pending
    if note is None and in_prelude(warning.group("file")):
        return
    header = note is not None and note.group("file") != warning.group("file")
    file, line = (note.group("file"), int(note.group("line"))) if header else \
        (warning.group("file"), int(warning.group("line")))
    record = CompilerWarning(
        "uninitialised", warning.group("name"), file, line,
        int(note.group("line")) if note else None,
        _reader(warning.group("file"), int(warning.group("line"))) if header else None,
        not warning.group("maybe"), functions)
    key = record[:7]
    before = found.get(key, record)
    found[key] = before._replace(functions=tuple(dict.fromkeys(
        f for f in before.functions + functions if not f.startswith("__sim"))))


def source(records):
    """The C++ unit that defines SYMBOL as the records' JSON, to link into the library."""
    text = json.dumps([r._asdict() for r in records])
    literal = json.dumps(text).replace("?", "\\?")  # no trigraphs
    return f'extern "C" const char {SYMBOL}[] = {literal};\n'


def read(lib):
    """The records a loaded library holds: () where it holds none."""
    try:
        start = ctypes.addressof(ctypes.c_char.in_dll(lib, SYMBOL))
    except ValueError:
        return ()
    return tuple(CompilerWarning(**{**r, "functions": tuple(r["functions"])})
                 for r in json.loads(ctypes.string_at(start).decode()))


def of_kernel(module, kernel):
    """The records of a loaded ``module`` (compile/module.py) about its ``kernel``: those g++
    named it in, and those of a function that is no kernel (a __device__ function: which kernels
    call it, g++ does not say)."""
    names = {k.index: module.lib.sim_kernel_name(k.index).decode() for k in module.kernels.values()}
    return tuple(r for r in module.compiler_warnings if names[kernel.index] in r.functions
                 or not set(r.functions) & set(names.values()))


def object_file(records, folder, compile_unit):
    """[the object file that holds ``records``], made in ``folder`` with ``compile_unit(source
    path, object path)``, to link into the library; [] for none."""
    if not records:
        return []
    unit, obj = Path(folder) / "warnings.cpp", Path(folder) / "warnings.o"
    unit.write_text(source(records))
    compile_unit(str(unit), str(obj))
    return [str(obj)]
