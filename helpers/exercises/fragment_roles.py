"""mma_sync given a fragment of the wrong kind (``matrix_a``, ``matrix_b``, ``accumulator``), as
mma.h's static_assert refuses it: read from the simulator's record of that refusal
(``Diagnostic``, kind "refused by a header", ``names`` ``("mma_sync",)``, ``types`` the four
fragments' types as g++ binds them, ``expression`` the learner's call), never from the
compiler's English. ``said(record, where, source)`` gives the verdict's (problem, hint), or None
where the four fragments' kinds are right (another of mma_sync's rules: shapes, types) or cannot
be read; ``compile_errors`` then keeps its other rules.
"""

from __future__ import annotations

import re

ROLES = ("accumulator", "matrix_a", "matrix_b", "accumulator")
"""The kind of fragment each of mma_sync(d, a, b, c)'s arguments must be."""
PARAMETERS = ("d", "a", "b", "c")
ORDINALS = ("first", "second", "third", "fourth")
MATRIX = {"matrix_a": "A", "matrix_b": "B"}


def said(d, where: str, source: str):
    """(problem, hint) for the record ``d`` of mma_sync refused because a fragment's kind does
    not fit its place; None for anything else."""
    if d.names[:1] != ("mma_sync",) or len(d.types) != 4:
        return None
    fragments = [_fragment(t) for t in d.types]
    if None in fragments:
        return None
    wrong = [k for k, (use, *_) in enumerate(fragments) if use != ROLES[k]]
    if not wrong:
        return None
    args = _arguments(d.expression)
    rule = ("mma_sync(d, a, b, c) multiplies a matrix_a fragment, a, by a matrix_b fragment, b, "
            "and adds c, an accumulator, into d, an accumulator")
    if wrong == [1, 2] and [fragments[1][0], fragments[2][0]] == ["matrix_b", "matrix_a"] and args:
        # the record cannot tell a call in the wrong order from two declarations swapped
        call = f"wmma::mma_sync({args[0]}, {args[2]}, {args[1]}, {args[3]})"
        return (f"{where} passes {args[1]}, a matrix_b fragment, as a and {args[2]}, a matrix_a "
                f"fragment, as b: {rule}",
                f"the matrix_a fragment goes second and the matrix_b one third: {call} where "
                f"{args[2]} holds A (loaded from A); where {args[1]} holds A, keep the call and "
                f"swap matrix_a and matrix_b in the two fragments' declarations")
    if not args or any(k in (0, 3) or fragments[k][0] not in MATRIX for k in wrong):
        return None   # an accumulator given or wanted: which fragment was meant is not the record's
    if (passed_twice := _passed_twice(wrong, fragments, args, where, rule, source)) is not None:
        return passed_twice
    named = [_declared(args[k], fragments[k], ROLES[k], source) for k in wrong]
    problem = "; and ".join(
        f"{where} passes {args[k]} as mma_sync's {ORDINALS[k]} argument, {PARAMETERS[k]}, but "
        f"{named[n][0]} declares {args[k]} {_a(fragments[k][0])} fragment"
        for n, k in enumerate(wrong))
    hint = " and ".join(
        f"{args[k]} as {MATRIX[ROLES[k]]}'s fragment, {_a(ROLES[k])} one: {named[n][1]}"
        for n, k in enumerate(wrong))
    return f"{problem}: {rule}", f"declare {hint}"


def _passed_twice(wrong, fragments, args, where, rule, source):
    """(problem, hint) where one wrong argument is a fragment the call also passes where its kind
    belongs (mma_sync(fc, fa, fa, fc)), and the source declares one fragment of the kind its place
    wants that the call does not pass: that one was meant; None otherwise."""
    if len(wrong) != 1:
        return None
    k = wrong[0]
    name, role = args[k], ROLES[k]
    if not any(args[j] == name and fragments[j][0] == ROLES[j] for j in range(4) if j != k):
        return None
    found = [(number, other) for number, line in enumerate(source.splitlines(), 1)
             for m in [re.search(rf"\bfragment\s*<\s*(?:\w+::)?{role}\b[^;]*>\s*(\w+(?:\s*,\s*\w+)*)\s*;",
                                 line)] if m for other in re.split(r"\s*,\s*", m[1]) if other not in args]
    if len(found) != 1:
        return None
    (number, other), j = found[0], args.index(name)
    fixed = [other if i == k else a for i, a in enumerate(args)]
    return (f"{where} passes {name} as mma_sync's {ORDINALS[k]} argument, {PARAMETERS[k]}, but "
            f"{_declared(name, fragments[k], role, source)[0]} declares {name} {_a(fragments[k][0])} "
            f"fragment: {name} is already its {ORDINALS[j]} argument, {PARAMETERS[j]}, and {other}, "
            f"the {role} fragment line {number} declares, is not passed: {rule}",
            f"pass {MATRIX[role]}'s fragment, {other}, as {PARAMETERS[k]}: "
            f"wmma::mma_sync({', '.join(fixed)})")


def _fragment(text: str):
    """(use, M, N, K, type, layout or "") of g++'s ``fragment<matrix_a, 16, 16, 16, __half,
    row_major>``; None for anything else."""
    m = re.fullmatch(r"fragment<(.*)>", text.strip())
    parts = [p.strip() for p in m[1].split(",")] if m else []
    if len(parts) not in (5, 6) or parts[0] not in ("matrix_a", "matrix_b", "accumulator"):
        return None
    return (*parts, "") if len(parts) == 5 else tuple(parts)


def _arguments(call: str) -> list:
    """The four arguments' text of the learner's ``wmma::mma_sync(fc, fa, fb, fc)``; [] where the
    record's expression is not such a call."""
    m = re.fullmatch(r"[\w:]*mma_sync\s*\((.*)\)", call.strip())
    args = [a.strip() for a in m[1].split(",")] if m else []
    return args if len(args) == 4 and all(re.fullmatch(r"\w+", a) for a in args) else []


def _declared(name: str, fragment, right: str, source: str):
    """(where ``name`` is declared, "line 12", or "its declaration"; that declaration with
    ``right``, the kind of fragment for the place it was passed in)."""
    _, m, n, k, type_, layout = fragment
    memory = {"__half": "half"}.get(type_, type_)
    tail = f", wmma::{layout}" if layout else ""
    declaration = f"wmma::fragment<wmma::{right}, {m}, {n}, {k}, {memory}{tail}> {name};"
    pattern = re.compile(rf"\bfragment\s*<[^;]*>\s*(?:\w+\s*,\s*)*{re.escape(name)}\s*[,;]")
    for number, line in enumerate(source.splitlines(), 1):
        if pattern.search(line):
            return f"line {number}", declaration
    return "its declaration", declaration


def _a(what: str) -> str:
    return f"{'an' if what[:1] in 'aeio' else 'a'} {what}"
