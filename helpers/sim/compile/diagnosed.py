"""g++'s errors about the learner's file, read once into records (``Diagnostic``) that a checker
reads instead of the compiler's English.

``diagnostics(stderr, source)`` reads each error g++ reported in the learner's own file (never
the prelude's), in g++'s order, and the learner's expression at its column from ``source`` (g++
quotes a line only when it can open the file, which a #line name seldom is). The kinds, with the
fields each fills:

- SUBSCRIPT, "subscript of a non-array": ``types`` (the subscripted value's, the index's);
  ``expression`` the whole chain of subscripts (``m[r][col]``), ``operands`` its root and each
  index (``("m", "r", "col")``), ``position`` which index g++ refused (2: the second);
- INDEX, "index not an integer": the same fields, for a pointer indexed with a float;
- CONTINUE, "continue outside a loop"; BREAK, "break outside a loop";
- UNDECLARED, "undeclared": ``names`` the name, then the one g++ suggests, if any;
- NO_MEMBER, "no member": ``types`` (the struct's), ``names`` (the member);
- CONVERSION, "no conversion": ``types`` (from, to);
- CONDITIONAL, "mismatched types in ?:": ``types`` (the second operand's, the third's);
  ``expression`` the ?: and ``operands`` (condition, second, third);
- READ_ONLY, "store into read-only": ``expression`` what was stored into, ``names`` its root;
- VOID_RETURN, "value returned from a void function";
- EXPECTED, "expected": ``names`` the tokens g++ expected, then the one it found instead;
- REDECLARED, "redeclared": ``names`` the name, ``types`` its new type where g++ says it;
- NO_MATCH, "no matching function": ``names`` the function, ``types`` the arguments' types as g++
  gives them (``unsigned int&``); ``expression`` the call, ``operands`` its arguments' text;
- POWER, "a power in another notation": Python's ``x ** 2``, which C reads as x * (*2), or math's
  ``x ^ 2`` on a float (C's ^ is exclusive or): ``names`` the operator, ``operands`` (x, 2);
- REFUSED, "refused by a header": a ``static_assert`` of a header the simulator gives (mma.h's
  shapes and types CUDA lacks), at the learner's line that instantiated it: ``names`` the template
  (``fragment``, ``load_matrix_sync``), ``types`` its arguments as g++ gives them, namespaces left
  out (a class's, ``("matrix_a", "16", "16", "16", "float", "row_major")``; a function's, those its
  ``[with ...]`` binds, in order), ``expression`` the name or call at the column (``fa``);
- MATH_ARGUMENT: a math function on types device code has no version for (sqrt of an int;
  math_arguments.MathArgumentError carries it): ``names`` the function, ``types`` the arguments';
- HOST_FUNCTION, HOST_LIBRARY, KERNEL_CALLED, HOST_VARIABLE, SHARED_INITIALIZER, EXCEPTION,
  THREAD_LOCAL (device_rules): ``names`` what was called, read, set, used or declared, then by
  whom; KERNEL_RETURNS: the kernel, its return type; DYNAMIC_INIT: the variable, the function its
  initializer calls; QUALIFIERS: the kernel, then __host__ or __device__, said with __global__;
- VLA, a local array sized at run time (``names``: the array); OTHER: any other (its place);
- C_LINKAGE, C++ in SourceModule's extern "C" (linkage.py): ``names`` its header, or what it is.
An error g++ places in a macro of the prelude's (``int i = threadIdx;``: the conversion is in
``threadIdx``'s expansion) is read at the learner's line that used the macro, with the macro's
name as its ``expression`` where its kind fills none.
"""

import contextlib
import dataclasses
import re

from .source import in_prelude, numbered_lines
from ..errors import CompileError

SUBSCRIPT, INDEX, C_LINKAGE = "subscript of a non-array", "index not an integer", "C linkage"
CONTINUE, BREAK, UNDECLARED = "continue outside a loop", "break outside a loop", "undeclared"
NO_MEMBER, CONVERSION, POWER = "no member", "no conversion", "a power in another notation"
CONDITIONAL, READ_ONLY, EXPECTED = "mismatched types in ?:", "store into read-only", "expected"
VOID_RETURN, REDECLARED, OTHER = "value returned from a void function", "redeclared", "other"
NO_MATCH, REFUSED, THREAD_LOCAL = "no matching function", "refused by a header", "thread_local"
MATH_ARGUMENT, HOST_FUNCTION, KERNEL_CALLED = "math argument", "host function", "kernel called"
SHARED_INITIALIZER, VLA, EXCEPTION = "shared initializer", "variable length array", "exception"
HOST_VARIABLE, HOST_LIBRARY, KERNEL_RETURNS = "host variable", "host library", "kernel returns"
DYNAMIC_INIT, QUALIFIERS = "dynamic initializer", "illegal combination of memory qualifiers"


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One error of g++'s in the learner's file: where, its ``kind``, and the names, types and
    learner's text it involves (the module's docstring says which kind fills which)."""

    file: str
    line: int
    column: int | None
    kind: str
    names: tuple = ()
    types: tuple = ()
    expression: str = ""
    operands: tuple = ()
    position: int = 0


ERROR_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<column>\d+):)? (?:fatal )?error: "
                        r"(?P<text>.*)$", re.M)
_Q = r"[‘'`\"](?P<{}>[^’'\"]*?)[’'\"](?: \{{aka [‘'][^’']*[’']\}})?"  # a quoted name or type


def _q(*names):
    return [_Q.format(name) for name in names]


_KINDS = [  # (kind, g++'s words, with the names and types as groups)
    (SUBSCRIPT, r"invalid types {} for array subscript".format(*_q("pair"))),
    (CONTINUE, r"continue statement not within a loop"),
    (BREAK, r"break statement not within loop or switch"),
    (UNDECLARED, r"{} was not declared in this scope(?:; did you mean {}\?)?".format(
        *_q("name", "suggestion"))),
    (NO_MEMBER, r"{} has no member named {}".format(*_q("struct", "member"))),
    (CONVERSION, r"(?:cannot convert {} to {}|invalid conversion from {} to {})".format(
        *_q("from1", "to1", "from2", "to2"))),
    (CONDITIONAL, r"operands to [‘']\?:[’'] have different types {} and {}".format(
        *_q("second", "third"))),
    (READ_ONLY, r"(?:assignment|increment|decrement) of read-only (?:location|variable|parameter"
                r"|member)"),
    (VOID_RETURN, r"return-statement with a value, in function returning [‘']void[’']"),
    (EXPECTED, r"expected (?P<expected>.*?) before (?:{}|end of input)".format(*_q("found"))),
    (REDECLARED, r"(?:conflicting declaration|redeclaration of) {}".format(*_q("declared"))),
    (NO_MATCH, r"no matching function for call to {}".format(*_q("call"))),
    (POWER, r"invalid type argument of unary [‘']\*[’'] \(have {}\)".format(*_q("type"))),
    (POWER, r"invalid operands of types {} and .* to binary [‘']operator\^".format(*_q("type"))),
    (VLA, r"variable length array {} is used".format(*_q("array"))),
]


def diagnostics(stderr, source=""):
    """The ``Diagnostic`` of each error ``stderr`` (g++'s output) reports in the learner's file,
    in order; ``source``, the text compiled (numbered as source.numbered_lines numbers it), gives
    the learner's expressions."""
    lines = {(file, number): text for file, number, text in numbered_lines(source)}
    found = []
    for error in ERROR_LINE.finditer(stderr or ""):
        file, number = error.group("file"), int(error.group("line"))
        if in_prelude(file):
            found.extend(_refused(stderr, error, lines) or _expanded(stderr, error, lines))
            continue
        column = int(error.group("column")) if error.group("column") else None
        found.append(_read(error["text"], file, number, column, lines.get((file, number), "")))
    return tuple(found)


@contextlib.contextmanager
def read_against(source):
    """A CompileError raised inside (and none of its subclasses, which carry fields of their
    own) gets the ``diagnostics`` of its ``stderr``, with ``source``'s expressions."""
    try:
        yield
    except CompileError as err:
        if type(err) is CompileError and err.stderr:
            err.diagnostics = diagnostics(err.stderr, source)
        raise


_REQUIRED_HERE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<column>\d+):)?\s+required "
                            r"from here", re.M)
_INSTANTIATION = re.compile(r"In instantiation of [‘'](?P<what>[^’']*)[’']")


def _refused(stderr, error, lines):
    """[the REFUSED record] of ``error``, an error in a header the simulator gives, where it is
    a static_assert set off by a line of the learner's; [] for any other."""
    if not error.group("text").startswith("static assertion failed"):
        return []
    before = stderr[:error.start()]
    here = [m for m in _REQUIRED_HERE.finditer(before) if not in_prelude(m.group("file"))]
    what = [m.group("what") for m in _INSTANTIATION.finditer(before)]
    if not here or not what:
        return []
    file, line = here[-1].group("file"), int(here[-1].group("line"))
    column = int(here[-1].group("column")) if here[-1].group("column") else None
    name, arguments = _instantiated(what[-1])
    return [Diagnostic(file, line, column, REFUSED, names=(name,), types=arguments,
                       expression=_named_at(lines.get((file, line), ""), (column or 0) - 1))]


_EXPANDED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<column>\d+):)? note: in "
                       r"expansion of macro [‘'](?P<macro>\w+)[’']", re.M)


def _expanded(stderr, error, lines):
    """[the record of] ``error``, an error inside a macro of the prelude's (``threadIdx``), read
    at the learner's line that used the macro, which g++ names in a note after it: ``expression``
    the macro's name where its kind fills no other; [] where no note names the learner's file."""
    after = stderr[error.end():]
    following = ERROR_LINE.search(after)
    notes = [m for m in _EXPANDED.finditer(after[:following.start() if following else None])
             if not in_prelude(m.group("file"))]
    if not notes:
        return []
    file, line = notes[0].group("file"), int(notes[0].group("line"))
    column = int(notes[0].group("column")) if notes[0].group("column") else None
    found = _read(error.group("text"), file, line, column, lines.get((file, line), ""))
    return [found if found.expression else dataclasses.replace(found, expression=notes[0]["macro"])]


def _named_at(code, at):
    """The name at column ``at`` of the learner's ``code`` (``fa``), or the call whose ``(`` or
    name is there (``wmma::load_matrix_sync(fa, A, 16)``); "" where there is neither."""
    code = code.expandtabs(8)
    if not 0 <= at < len(code):
        return ""
    start = at - len(re.search(r"[\w:]*$", code[:at])[0]) if code[at] == "(" else at
    end = start + len(re.match(r"[\w:]*", code[start:])[0])
    if code[end:end + 1] == "(" and _closing(code, end) > 0:
        return code[start:_closing(code, end) + 1]
    return code[start:end]


def _instantiated(what):
    """(the template's name, its arguments) of what g++ says it instantiated, namespaces left
    out: ``class nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, ...>`` or ``void
    nvcuda::wmma::load_matrix_sync(_F&, ...) [with _F = fragment<...>; _T = __half; ...]``."""
    bare = re.sub(r"\b(?:\w+::)+", "", what)
    bound = re.search(r"\[with (.*)\]$", bare)
    if bound:
        name = re.search(r"(\w+)\s*\(", bare[:bound.start()])
        values = (part.split(" = ", 1)[-1].strip() for part in bound[1].split("; "))
        return name[1] if name else "", tuple(v for v in values if not v.startswith("__sim"))
    m = re.match(r"(?:class |struct )?(\w+)<(.*)>$", bare.strip())
    return (m[1], tuple(_arguments(m[2]))) if m else (bare.strip(), ())


def _read(text, file, line, column, code):
    for kind, words in _KINDS:
        m = re.match(words, text)
        if m:
            break
    else:
        return Diagnostic(file, line, column, OTHER)
    here = Diagnostic(file, line, column, kind)
    at = (column - 1) if column else -1
    code = code.expandtabs(8)  # g++ counts a column as the line is shown, a tab to 8
    if kind == SUBSCRIPT:
        return _subscript(here, m, code, at)
    if kind == CONDITIONAL:
        expression, operands = _conditional(code, at)
        return dataclasses.replace(here, types=(_type(m["second"]), _type(m["third"])),
                                   expression=expression, operands=operands)
    if kind in (NO_MATCH, POWER):
        return _call(here, m, code, at) if kind == NO_MATCH else _power(here, m, code, at)
    if kind == READ_ONLY:
        stored = _assigned(code, at)
        root = re.match(r"\W*(\w+)", stored)
        return dataclasses.replace(here, expression=stored, names=(root[1],) if root else ())
    return dataclasses.replace(here, **_fields(kind, m))


def _fields(kind, m):
    if kind == UNDECLARED:
        return {"names": tuple(n for n in (m["name"], m["suggestion"]) if n)}
    if kind == VLA:
        return {"names": (m["array"],)}
    if kind == NO_MEMBER:
        return {"types": (_type(m["struct"]),), "names": (m["member"],)}
    if kind == CONVERSION:
        return {"types": (_type(m["from1"] or m["from2"]), _type(m["to1"] or m["to2"]))}
    if kind == EXPECTED:
        tokens = tuple(re.findall(r"[‘'](.+?)[’']", m["expected"])) or (m["expected"],)
        return {"names": (*tokens, m["found"] or "end of input")}
    if kind == REDECLARED:
        declared = m["declared"].split()
        return {"names": (declared[-1],), "types": (" ".join(declared[:-1]),) if declared[1:] else ()}
    return {}


def _call(here, m, code, at):
    """NO_MATCH, with the call's text from its ``(`` at ``at`` and its arguments split."""
    name, _, given = m["call"].partition("(")
    here = dataclasses.replace(here, names=(name.strip(),),
                               types=tuple(_arguments(given.rstrip(")"))))
    if not (0 <= at < len(code)) or code[at] != "(" or _closing(code, at) < 0:
        return here
    close = _closing(code, at)
    return dataclasses.replace(here, expression=f"{name.strip()}{code[at:close + 1]}",
                               operands=tuple(_arguments(code[at + 1:close])))


def _power(here, m, code, at):
    """POWER where the learner's text has ``x ** y`` or ``x ^ y`` at the column (else an OTHER: a
    unary * on a value that is no pointer, or a ^ on floats, written otherwise)."""
    for found in re.finditer(r"([\w.]+(?:\[[^\]]*\])?|\))\s*(\*\*|\^)\s*([\w.]+)", code):
        if found.start() <= at <= found.end():
            return dataclasses.replace(here, types=(_type(m["type"]),), expression=found[0],
                                       names=(found[2],), operands=(found[1], found[3]))
    return dataclasses.replace(here, kind=OTHER)


def _arguments(text):
    """``text`` split at its commas outside brackets, each part stripped."""
    parts, depth, start = [], 0, 0
    for k, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    return [*parts, text[start:].strip()] if text.strip() else parts


def _type(text):
    """A type as g++ writes it, without its ``struct``."""
    return re.sub(r"^(?:struct|class) ", "", text.strip())


def _subscript(here, m, code, at):
    """SUBSCRIPT (or INDEX, where the value is a pointer or an array) with the chain of
    subscripts the column ``at`` (its ``[``) is in."""
    value, _, index = m["pair"].rpartition("[")
    pointer = value.rstrip().endswith(("*", "]"))
    here = dataclasses.replace(here, kind=INDEX if pointer else SUBSCRIPT,
                               types=(value.strip(), index.rstrip("]").strip()))
    if not (0 <= at < len(code)) or code[at] != "[":
        return here
    start, root = _chain_back(code, at)
    indices, end, position = [], start + len(root), 0
    while end < len(code) and code[end] == "[":
        close = _closing(code, end)
        if close < 0:
            break
        indices.append(code[end + 1:close].strip())
        position = len(indices) if end == at else position
        end = close + 1
    return dataclasses.replace(here, expression=code[start:end], operands=(root, *indices),
                               position=position)


def _chain_back(code, at):
    """(where the name starts, the name) of the subscripts ending before ``at``: m in m[r][col]."""
    j = at
    while j > 0 and code[j - 1] == "]":
        depth, j = 0, j - 1
        while j >= 0:
            depth += {"]": 1, "[": -1}.get(code[j], 0)
            if depth == 0:
                break
            j -= 1
    k = j
    while k > 0 and (code[k - 1].isalnum() or code[k - 1] in "_.") or code[k - 2:k] == "->":
        k -= 2 if code[k - 2:k] == "->" else 1
    return k, code[k:j]


_PAIRS = {"(": ")", "[": "]", "{": "}"}


def _closing(code, at):
    """Where the bracket that opens at ``at`` closes, or -1."""
    depth = 0
    for j in range(at, len(code)):
        if code[j] in _PAIRS:
            depth += 1
        elif code[j] in _PAIRS.values():
            depth -= 1
            if depth == 0:
                return j
    return -1


def _conditional(code, at):
    """(the ?: expression, (condition, second, third)) around the ``?`` at column ``at``."""
    if not (0 <= at < len(code)) or code[at] != "?":
        return "", ()
    start, depth = at, 0
    while start > 0:
        c = code[start - 1]
        depth += (c in ")]") - (c in "([")
        if depth < 0 or depth == 0 and (c in ";,{}" or c == "=" and code[start - 2:start - 1]
                                        not in ("=", "!", "<", ">") and code[start] != "="):
            break
        start -= 1
    colon = _top_level(code, at + 1, ":")
    end = _top_level(code, colon + 1, ";,") if colon >= 0 else -1
    if colon < 0:
        return "", ()
    end = len(code) if end < 0 else end
    condition = re.sub(r"^\s*return\b", "", code[start:at]).strip()
    return (f"{condition} ? {code[at + 1:end].strip()}" if condition else "",
            (condition, code[at + 1:colon].strip(), code[colon + 1:end].strip()))


def _top_level(code, start, stops):
    """The first of ``stops`` at depth 0 from ``start`` (a closing bracket of an enclosing pair
    stops too; ``::`` and a nested ?:'s colon do not), or -1."""
    depth, questions, j = 0, 0, start
    while j < len(code):
        c = code[j]
        if code[j:j + 2] == "::":
            j += 2
            continue
        if c in _PAIRS:
            depth += 1
        elif c in _PAIRS.values():
            depth -= 1
            if depth < 0:
                return j
        elif depth == 0 and c == "?":
            questions += 1
        elif depth == 0 and c in stops:
            if c != ":" or questions == 0:
                return j
            questions -= 1
        j += 1
    return -1


def _assigned(code, at):
    """What the assignment whose operator is at column ``at`` stores into: ``m[col]``."""
    if not (0 <= at <= len(code)):
        return ""
    j = at
    while j > 0 and code[j - 1] in " +-*/%&|^<>":
        j -= 1
    start, root = _chain_back(code, j)
    star = re.search(r"\*\s*$", code[:start])
    return (star.group(0).strip() if star else "") + code[start:j]
