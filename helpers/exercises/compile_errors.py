"""The verdict on a ``.cu`` file that does not compile: the mistake of the compiler's first error
in the learner's file, named from the simulator's record of it (``CompileError.diagnostics``,
helpers/sim/compile/diagnosed.py), never from the compiler's English.

On the simulator the error carries its records. On a GPU nvcc's does not: the same file is
compiled on the simulator for them (``diagnosed``). An error of a kind with no rule here, or with
no records, keeps the plain verdict: the file does not compile, read the compiler's first error.
"""

from __future__ import annotations

import re

from helpers.exercises import (device_code, extern_c, fragment_types, math_calls, unknown_bound,
                               warp_reduce)
from helpers.exercises.diagnostic_words import a as _a, where as _where
from helpers.exercises.verdict import COMPILE_HINT, Verdict, first_error, not_yet, shown

PYTHON_WORDS = {"True": "true", "False": "false", "None": "nullptr (or 0)"}
"""Python's names that C++ spells otherwise."""

HOST_CALLS = {
    "cudaDeviceSynchronize": (
        "cudaDeviceSynchronize is the host's wait for the whole device (every kernel launched "
        "so far); a kernel cannot call it", "inside a kernel the threads of a block wait for "
        "each other at __syncthreads();"),
}
"""Host calls of CUDA's runtime that a kernel may mean as its own: (why not, the device's own)."""


def diagnosed(err, path: str, no_extern_c: bool) -> tuple:
    """The simulator's records of the errors in ``path``: ``err``'s own on the simulator; on a
    GPU, those of the same file compiled on the simulator (none where it builds there, or where
    the simulator cannot build it: no C++ compiler, a feature it leaves out)."""
    from helpers.backend import BACKEND, read_cu

    if BACKEND == "simulator":
        return tuple(getattr(err, "diagnostics", ()))
    from helpers.sim import driver
    from helpers.sim.compiler import SourceModule

    try:
        SourceModule(read_cu(path), no_extern_c=no_extern_c)
    except driver.CompileError as simulated:
        return tuple(simulated.diagnostics)
    return ()  # nvcc refused what g++ takes: its error is the only word


def verdict(path: str, output: str, diagnostics, source: str = "") -> Verdict:
    """NOT YET for ``path``, which does not compile (``output``: what the compiler printed): the
    first record's mistake and its hint where a rule here names it, else the plain verdict."""
    first = diagnostics[0] if diagnostics else None
    error = first_error(shown(output))
    if first and first.kind in _ALL_RULES:
        said = _ALL_RULES[first.kind](diagnostics, path, source)
    else:
        rule = _RULES.get(first.kind) if first else None
        said = rule(first, _where(first, path), source) if rule else None
    if said is None:
        return not_yet(f"{path} does not compile", COMPILE_HINT, error)
    return not_yet(f"{path} does not compile: {said[0]}", said[1], error)


def _subscript(d, where, source):
    """m[r][col] on a flat pointer, or an index on a single value (rows[0] on an int)."""
    value = d.types[0] if d.types else "value"
    if not d.operands or d.position < 1:
        return (f"{where} indexes a {value}, a single value, which takes no index",
                "only a pointer or an array takes [ ]: a matrix stored row after row is one flat "
                "array, and element (row, col) is at row * width + col")
    root, indices = d.operands[0], d.operands[1:]
    if d.position == 1:
        return (f"{where} indexes {root}, {d.expression}, but {root} is {_a(value)}, one value, "
                "not an array", f"use {root} itself, without [{indices[0]}]: only a pointer (or "
                "an array) takes an index")
    pointer = f"{value} {'*' * (d.position - 1)}"
    times = {2: "twice", 3: "three times"}.get(len(indices), f"{len(indices)} times")
    problem = (f"{where} indexes {root} {times}, {d.expression}, but {root} is {_a(pointer)}, a "
               "flat array: one index picks one element")
    if len(indices) != 2:
        return problem, (f"a {root} stored row after row is one flat array: compute the one "
                         "index from the row and the column, row * width + column")
    row, col = indices
    width = _row_length(col, source)
    first = row if re.fullmatch(r"[\w.]+", row) else f"({row})"
    return problem, (f"a matrix stored row after row is one flat array: element ({row}, {col}) "
                     f"is {root}[{first} * {width or 'width'} + {col}]"
                     + ("" if width else ", width being the length of a row"))


def _row_length(col: str, source: str) -> str:
    """The name the kernel compares the column index ``col`` with (``cols`` in
    ``if (col >= cols) return;``): the length of a row; "" where there is none."""
    if not re.fullmatch(r"\w+", col):
        return ""
    m = (re.search(rf"\b{col}\s*(?:<|>=)\s*([A-Za-z_]\w*)\b", source)
         or re.search(rf"\b([A-Za-z_]\w*)\s*(?:>|<=)\s*{col}\b", source))
    return m.group(1) if m else ""


def _index(d, where, source):
    """A float as an index."""
    index = d.types[1] if len(d.types) > 1 else "float"
    said = f", {d.expression}" if d.expression else ""
    return (f"{where} indexes an array with {_a(index)}{said}: an index counts elements, a whole "
            "number", "compute the index with ints (a float that must become one: (int)x)")


def _outside_a_loop(word, hint):
    def rule(d, where, source):
        return (f"{where} has {word} outside any loop: the kernel's body is one thread's work, "
                "on its own element, not a loop over the elements (the grid of threads is that "
                "loop)", hint)
    return rule


def _undeclared(d, where, source):
    name = d.names[0] if d.names else "a name"
    if name in HOST_CALLS:
        return f"{where} calls {name}: {HOST_CALLS[name][0]}", HOST_CALLS[name][1]
    if name in PYTHON_WORDS:
        return (f"{where} uses {name}, Python's spelling: C++ has no {name}",
                f"write {PYTHON_WORDS[name]}")
    if said := (_emptied_loop(d, name, source) or _shared_size(d, name, source)
                 or unknown_bound.named(d, name, source)):
        return said
    guess = f" (the compiler's guess: {d.names[1]})" if len(d.names) > 1 else ""
    meant = f", or write {d.names[1]} if that is what you meant" if len(d.names) > 1 else ""
    return (f"{where} uses {name}, which nothing declared before it{guess}",
            f"declare {name} with its type before its first use, inside the braces that hold "
            f"that use (int {name} = ...;){meant}; C++ needs every name declared")


def _shared_size(d, name: str, source: str):
    """``name`` undeclared in the size of a __shared__ array declared on the record's line, and
    declared as a variable later in the kernel (``__shared__ float s[len];`` above ``int len =
    min(...);``): a value known only when the kernel runs, where the compiler needs a constant;
    the constant offered is the source's first #define. None otherwise (a misspelt constant)."""
    lines = source.splitlines()
    text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    m = re.search(r"__shared__\s+(?P<type>[\w\s]+?)\s+(?P<array>\w+)\s*\[(?P<size>[^\]]*)\]",
                  text)
    later = next((k + 1 for k in range(d.line, len(lines))
                  if re.search(rf"\b(?:int|unsigned|size_t|long)\s+{re.escape(name)}\s*=",
                               lines[k])), None)
    if not m or not later or not re.search(rf"\b{re.escape(name)}\b", m["size"]):
        return None
    constant = re.search(r"^\s*#\s*define\s+(\w+)\s+\S", source, re.M)
    size = constant[1] if constant else "256"
    guard = re.search(rf"\bif\s*\(\s*(\w+)\s*<\s*{re.escape(name)}\s*\)", source)
    users = f"the threads {guard[1]} < {name}" if guard else f"the first {name} places"
    return (f"line {d.line} sizes the __shared__ array {m['array']} with {name}, a variable "
            f"(line {later}) whose value is known only when the kernel runs: the size of a "
            "__shared__ array must be a constant the compiler knows, the same for every block",
            f"size it with the constant, __shared__ {m['type']} {m['array']}[{size}];, and let "
            f"only {users} use it")


def _emptied_loop(d, name: str, source: str):
    """``name`` undeclared on the record's line because the for just before it, which declares
    ``name`` in its header, ends with a stray ;: that ; is the loop's whole body, and the line
    after it lies outside the loop, where the header's name is not declared. None otherwise."""
    lines = source.splitlines()[:max(d.line - 1, 0)]
    before = next((k for k in range(len(lines) - 1, -1, -1)
                   if lines[k].strip() not in ("", "{")), None)
    header = re.fullmatch(r"\s*(for\s*\((?P<init>[^;]*);.*\))\s*;\s*(//.*)?",
                          lines[before]) if before is not None else None
    if not header or not re.search(rf"\w\s+\**{name}\s*(=|$)", header["init"].strip()):
        return None
    return (f"line {before + 1}'s for (...) ends with a stray ;: that ; is the loop's whole body, "
            f"an empty statement, so line {d.line} comes after the loop, outside it, where {name} "
            "(declared in the for's header) is not declared",
            f"remove the ; after the for's ): {header[1]} followed by its body, line {d.line}'s "
            "statement, repeats that statement")


def _no_member(d, where, source):
    struct = d.types[0] if d.types else "struct"
    member = d.names[0] if d.names else "?"
    if struct in ("uint3", "dim3"):
        right = member.lower() if member.lower() in ("x", "y", "z") else "x, .y or .z"
        return (f"{where} reads .{member} of threadIdx, blockIdx, blockDim or gridDim ({_a(struct)}), "
                "whose members are x, y and z", f"write .{right}, in lower case")
    return (f"{where} reads .{member}, but {_a(struct)} has no member {member}",
            "check the member's name against the struct's declaration")


def _conversion(d, where, source):
    given, wanted = (d.types + ("?", "?"))[:2]
    if _bare(given) in ("uint3", "dim3"):
        return _built_in_whole(d.expression, _bare(given), wanted, where)
    if given.replace(" ", "") == "const" + wanted.replace(" ", ""):
        return (f"{where} puts {_a(given)} where {_a(wanted)} is needed: that would drop the "
                "const, and let the kernel write where its signature promises only to read",
                f"declare it {given} too: const stays on a pointer to an input")
    return (f"{where} puts {_a(given)} where {_a(wanted)} is needed, and C++ turns neither into "
            f"the other by itself", f"give the two one type: declare it {given}, or give it "
            f"{_a(wanted)}")


BUILT_INS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


def _built_in_whole(expression, given, wanted, where):
    """threadIdx (or blockIdx, ...) used whole where one number is needed: int i = threadIdx;."""
    name = expression if expression in BUILT_INS else ""
    said = f"{name}, {_a(given)}," if name else _a(given)
    which = name or "threadIdx, blockIdx, blockDim and gridDim"
    return (f"{where} puts {said} where {_a(wanted)} is needed: {which} "
            f"{'is a' if name else 'are each a'} {given} with fields .x, .y, .z, one number for "
            "each dimension, and C++ turns it into no single number",
            f"write {name or 'threadIdx'}.x (.y and .z for a block's second and third "
            "dimensions)")


def _conditional(d, where, source):
    """``cond ? x : 0.0f`` with x a half: the side to convert, and how."""
    second, third = (d.types + ("?", "?"))[:2]
    if len(d.operands) != 3:
        return (f"{where}'s ?: gives {_a(second)} on one side and {_a(third)} on the other, and "
                "C++ will not choose between them", "convert one side to the other's type")
    condition, a, b = d.operands
    change_b = _literal(b) or not _literal(a) and "half" in _bare(second)
    target, given, value = (_bare(second), _bare(third), b) if change_b else (
        _bare(third), _bare(second), a)
    converted = _converted(value, given, target)
    fixed = f"{condition} ? {a} : {converted}" if change_b else f"{condition} ? {converted} : {b}"
    return (f"{where}'s ?: gives {_a(second)} on one side, {a}, and {_a(third)} on the other, "
            f"{b}: both sides of ?: must have one type, and C++ will not choose between "
            f"{_bare(second)} and {_bare(third)}",
            f"make both sides {target}, {converted}: {fixed}")


def _literal(text: str) -> bool:
    return bool(re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fFuUlL]*", text.strip()))


def _bare(type_: str) -> str:
    return re.sub(r"\bconst\s+|\s+const\b", "", type_).strip()


def _converted(value: str, given: str, target: str) -> str:
    halves = ("half", "__half")
    if target in halves and given in ("float", "double", "int"):
        return f"__float2half({value})"
    if given in halves and target == "float":
        return f"__half2float({value})"
    return f"({target})({value})"


def _read_only(d, where, source):
    stored = d.expression or (d.names[0] if d.names else "a const variable")
    root = d.names[0] if d.names else stored
    return (f"{where} stores into {stored}, but {root} is const: an input of the kernel, which "
            "it may only read", "store the result into the output array, the pointer "
            "parameter without const (the stub's signature says which)")


def _void_return(d, where, source):
    value, out = _returned(d, source), _output(source)
    store = f"{out or 'out'}[i] = {value or '...'};"
    into = f"{out}, the output," if out else "the output array"
    said = f" ({value})" if value else ""
    return (f"{where} returns a value{said}, but a kernel is void: it returns nothing to the "
            "host", f"store the thread's result into {into} at its own index ({store}); return; "
            "alone, with no value, ends a thread early")


def _returned(d, source: str) -> str:
    """What the return of the record's line gives back: "x[i] + c"; "" where it cannot tell."""
    lines = source.splitlines()
    text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    m = re.search(r"\breturn\s+([^;]+);", text)
    return m.group(1).strip() if m else ""


def _output(source: str) -> str:
    """The kernel's output: its one pointer parameter without const; "" unless exactly one."""
    m = re.search(r"__global__\s+void\s+\w+\s*\(([^)]*)\)", source)
    params = m.group(1).split(",") if m else []
    outs = [re.findall(r"\w+", p)[-1] for p in params if "*" in p and "const" not in p]
    return outs[0] if len(outs) == 1 else ""


def _expected(d, where, source):
    if ";" not in d.names[:-1]:
        return None
    hidden = _commented_out(d, source)
    if hidden:
        return hidden
    found = d.names[-1] if d.names else "the next statement"
    return (f"the compiler expected a ; before {found} on {where}: the statement before it has "
            "no ; at its end (the compiler notices where the next one starts)",
            "end each statement with ;: in C++ a line's end does not end a statement")


def _commented_out(d, source: str):
    """A ; expected before the record's line whose statement's ; lies after a // on the line
    before: a comment swallowed it (``t // width;``, Python's floor division)."""
    lines = source.splitlines()[:max(d.line - 1, 0)]
    before = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), None)
    m = re.match(r"(?P<code>.*?\S.*?)\s*//(?P<rest>.*)$", lines[before]) if before is not None else None
    if not m or ";" not in m["rest"] or ";" in m["code"]:
        return None
    code, rest = m["code"].strip(), m["rest"].strip()
    line = f"line {before + 1}"
    if re.search(r"\w\s*$", code) and re.match(r"\w", rest):
        return (f"{line}'s // starts a comment, not a division: everything after it, {rest}, "
                "is not code, and the statement has no ; left", "C++ has no floor division "
                "operator: / on two ints already drops the fraction, as Python's // does "
                f"({code} / {rest})")
    return (f"{line}'s // starts a comment: everything after it, {rest}, is not code, and the "
            "statement has no ; left", "// starts a comment in C++: keep the statement and its ; "
            "before it")


def _redeclared(d, where, source):
    name = d.names[0] if d.names else "a name"
    as_ = f" (as {d.types[0]} {name})" if d.types else ""
    return (f"{where} declares {name} again{as_}, in braces where it is already declared",
            f"to change its value, assign it without a type, {name} = ...; for another "
            "variable, give it another name")


def _no_match(d, where, source):
    """An atomic given the value to update where it takes its address: atomicMin(range[0], d); an
    accumulator stored without its layout (``fragment_types.stored_without_layout``)."""
    name, first = (d.names[0] if d.names else ""), (d.operands[0] if d.operands else "")
    if not name.startswith("atomic") or not d.types or "*" in d.types[0] or not first:
        return fragment_types.stored_without_layout(d, where)
    rest = "".join(f", {o}" for o in d.operands[1:])
    return (f"{where} gives {name} {first}, the value to update, where it takes that value's "
            f"address (a pointer): {d.expression}", f"pass the address: {name}(&{first}{rest})")


def _power(d, where, source):
    """Python's ** for a power: x ** 2 is x * (*2) in C, a pointer's value it cannot take. An
    element for the exponent (a[i] ** b[i]; the record's operands stop at its name, the source's
    line has its subscripts) is a product written with two *: no exercise raises to an array's
    element. Math's x ^ 2 is C's exclusive or (``_caret``)."""
    base, exponent = d.operands
    lines = source.splitlines()
    line = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    if d.names == ("^",):
        return _caret(where, d.expression, line.strip() or d.expression)
    more = re.search(re.escape(d.expression) + r"\s*((?:\[[^\]]*\])+)", line) if d.expression else None
    if more:
        exponent, whole = exponent + more[1], more[0]
        value = _a(d.types[0]) if d.types else "one value"
        return (f"{where} writes {whole}: C has no ** operator (Python's power): it reads "
                f"{base} * (*{exponent}), a product with {exponent} taken for a pointer to read "
                f"through, and {exponent} is {value}, no pointer",
                "a product takes one *: " + line.strip().replace(whole, f"{base} * {exponent}"))
    square = f"{base} * {base}" if exponent == "2" else f"powf({base}, {exponent})"
    return (f"{where} writes {d.expression}, Python's power: C has no ** operator (it reads "
            f"{base} * (*{exponent}), and {exponent} is no pointer)",
            f"multiply it out: {square}" + (f" (or powf({base}, 2.0f))" if exponent == "2"
                                            else ""))


def _caret(where, expression, line):
    """Math's x ^ 2 for a power: C's ^ is exclusive or, of integers alone, refused on a float. The
    hint gives the learner's ``line`` with each such power multiplied out."""
    return (f"{where} writes {expression} for a power: C's ^ is exclusive or, of two integers "
            "(it does not apply to a float), and C has no power operator",
            "multiply it out: " + re.sub(r"([\w.]+(?:\[[^\]]*\])?)\s*\^\s*([\w.]+)", lambda m: (
                f"{m[1]} * {m[1]}" if m[2] == "2" else f"powf({m[1]}, {m[2]})"), line))


_RULES = {
    "math argument": math_calls.refused, "host function": device_code.host_function,
    "host library": device_code.host_library, "kernel returns": device_code.kernel_returns,
    "exception": device_code.exception, "dynamic initializer": device_code.dynamic_initializer,
    "kernel called": device_code.kernel_called, "host variable": device_code.host_variable,
    "shared initializer": device_code.shared_initializer,
    "variable length array": device_code.variable_length_array,
    "subscript of a non-array": _subscript, "index not an integer": _index,
    "continue outside a loop": _outside_a_loop("continue", "to skip this thread's element, "
                                               "return: the thread ends there, as continue ends "
                                               "one trip of a Python loop"),
    "break outside a loop": _outside_a_loop("break", "to stop this thread's work there, return: "
                                            "a thread has no loop of its own to break out of"),
    "undeclared": _undeclared, "no member": _no_member, "no conversion": _conversion,
    "mismatched types in ?:": _conditional, "store into read-only": _read_only,
    "value returned from a void function": _void_return, "expected": _expected,
    "redeclared": _redeclared, "no matching function": _no_match,
    "a power in another notation": _power, **device_code.RULES}
"""The rule for each kind of ``Diagnostic``: ``(record, where, source)`` to (problem, hint), or
None for the plain verdict."""


def _refused(records, path, source):
    """A header's refusal: __reduce_add_sync given a float (warp_reduce), or mma.h's."""
    return warp_reduce.refused(records[0], path) or fragment_types.refused(records, path, source)


_ALL_RULES = {"refused by a header": _refused, "C linkage": extern_c.refused}
"""The rule for a kind whose first record is read with the others (each fragment refused):
``(records, path, source)`` to (problem, hint), or None for the plain verdict."""
