"""A kernel whose cases all passed, but which reads a local variable before anything is stored in
it, where the simulator's compiler can tell (g++'s -Wuninitialized and -Wmaybe-uninitialized):
the runner (``helpers.exercises.kernel``) turns its PASS into this NOT YET. And any verdict of a
kernel with an ``if`` whose body is a lone semicolon (g++'s -Wempty-body), or with a function
named without its parentheses (``__syncthreads;``, g++'s -Waddress), with two comparisons written
as one (``0 <= i < n``, g++'s -Wparentheses), or with a ``!`` that applies to a comparison's left
side only (``!x < width``, g++'s -Wlogical-not-parentheses), with an ``=`` tested where ``==``
belongs (``if (lane = 0)``), or with an operator C binds tighter than the learner read it (``a <<
8 + b``; both g++'s -Wparentheses): that mistake first.

On a GPU such a variable holds whatever its register held last, with no error; on the simulator
it holds a pattern (0xFE bytes), which for a ``bool`` is false: a vote that a lane past n casts
from ``bool above;`` set only under ``if (i < n)`` comes out right there by luck. The facts come
from the kernel compiled by the simulator (``Function.compiler_warnings``, records of
``helpers/sim/compile/warned.py``: the variable's ``name``, its ``declared`` line, the warp
function that read it, ``reader``), never from the warning's words. A kernel compiled by PyCUDA
alone has none; an exercise that looks at the simulator's twin (``Kernels``) has them on a GPU too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from helpers.exercises.verdict import Verdict, not_yet

ASSIGNMENT = re.compile(r"(?:\(|&&|\|\||;)\s*(?P<name>[A-Za-z_]\w*(?:\[[^\]]*\])?)\s*=(?!=)"
                        r"(?P<value>[^;()&|=]+)(?P<then>\)|&&|\|\||;)")
"""An assignment where a condition stands: ``(d = 0)``, ``&& k = n)``, ``; j = 0;``."""
COMPARED = ("chained comparison", "logical not")
"""The kinds an exercise's ``compared`` may have words of its own for."""

Words = Callable[[object], "tuple[str, str] | None"]
"""An exercise's ``(problem, hint)`` for a record (a ``CompilerWarning``), or None for the
general words."""


def reads(kernel, kind: str = "uninitialised") -> tuple:
    """The records of ``kind`` the simulator's compiler made of ``kernel`` (a ``Kernels``: its
    simulated twin's; a simulator ``Function``: its own; () for any other)."""
    simulated = getattr(kernel, "simulated", kernel)
    return tuple(r for r in getattr(simulated, "compiler_warnings", ()) if r.kind == kind)


def checked(kernel, verdict: Verdict, words: Words | None = None, compared=None) -> Verdict:
    """``verdict`` (a PASS), or the NOT YET for the first local that ``kernel`` reads before
    anything is stored in it: in the exercise's ``words`` where it has some, else general ones.
    Before either, whatever the verdict: an ``if`` (or ``else``) whose body is a lone semicolon
    (``if (i < n);``), a function named without its parentheses (``__syncthreads;``), two
    comparisons written as one (``0 <= i < n``) or a ``!`` on a comparison's left side only
    (``!x < width``), which the cases' mistake, if any, comes from. ``compared(kernel, record)``:
    the exercise's own words for two comparisons written as one or a ! on a comparison's left
    side (``record.kind`` tells which), where it confirmed on the kernel which comparison that
    is, or None for the general words."""
    empty = reads(kernel, "empty body")
    if empty:
        return not_yet(*empty_body(empty[0]))
    def assignment(record):
        return assigned(record, line_text(kernel, record.line, record.file))

    for kind, words_of in (("not called", not_called), ("chained comparison", chained),
                           ("logical not", not_on_the_left), ("assignment as condition", assignment),
                           ("operator precedence", precedence)):
        found = reads(kernel, kind)
        own = compared(kernel, found[0]) if found and compared and kind in COMPARED else None
        if found:
            return not_yet(*(own or words_of(found[0])))
    found = reads(kernel)
    if not verdict or not found:
        return verdict
    own = next(filter(None, map(words, found)), None) if words else None
    return not_yet(*(own or general(found[0])))


def line_text(kernel, line, file=None) -> str | None:
    """The text of the learner's line ``line`` (of ``file``: any where None), from the source the
    simulator compiled ``kernel`` from (its twin's, or its own); None where there is none."""
    from helpers.sim.compile.source import line_text as text_of

    return text_of(getattr(getattr(kernel, "simulated", kernel), "source", None), line, file)


def general(record) -> tuple[str, str]:
    """``(problem, hint)`` for a local ``record.name`` read before anything is stored in it."""
    name = record.name
    where = f" (declared at line {record.declared})" if record.declared else ""
    by = f" by {record.reader}" if record.reader and record.reader.startswith("__") else ""
    some = "" if record.certain else " on some paths through the kernel"
    return (f"{name}{where} is read{by} before anything is stored in it{some}: on a GPU it "
            "holds whatever its register held last, so the results there may be wrong (here "
            "they came out right by luck)",
            f"give {name} a value where it is declared, or store one in it on every path before "
            "it is read")


def empty_body(record) -> tuple[str, str]:
    """``(problem, hint)`` for an ``if`` or ``else`` at ``record.line`` whose body is a lone
    semicolon: the statement after it runs whatever the condition."""
    return (f"the {record.name} at line {record.line} does nothing: its body is a lone semicolon, "
            "so the statement it should guard is not inside it (after if (i < n); the next line "
            "runs for every thread, whatever the condition says)",
            f"put the statement the {record.name} guards right after its condition, with no "
            "semicolon between: if (i < n) y[i] = ...; or if (i < n) { ... }")


def not_called(record) -> tuple[str, str]:
    """``(problem, hint)`` for a function ``record.name`` named at ``record.line`` without its
    parentheses: the statement calls nothing (for ``__syncthreads``: no barrier)."""
    name = record.name
    does = (": no thread waits there for the others, so what one thread stores may not be there "
            "yet when another reads it" if name.startswith("__sync") else "")
    return (f"the {name} at line {record.line} is never called: without its parentheses, "
            f"{name}; only names the function, and the statement does nothing{does}",
            f"call it, with its parentheses: {name}();")


def chained(record) -> tuple[str, str]:
    """``(problem, hint)`` for two comparisons written as one at ``record.line`` (``0 <= i <
    n``): C compares the first comparison's result, 0 or 1, with the last operand."""
    return (f"the condition at line {record.line} chains two comparisons, which C does not read "
            "as mathematics does: 0 <= i < n is (0 <= i) < n, and 0 <= i is 0 or 1, less than "
            "n, so the condition is true for every thread, the spare ones past the end too",
            "compare i with n alone: if (i < n) (an index made of blockIdx, blockDim and "
            "threadIdx is never negative; to test two bounds, join two comparisons with &&: "
            "0 <= i && i < n)")


def not_on_the_left(record) -> tuple[str, str]:
    """``(problem, hint)`` for a ``!`` at ``record.line`` that applies to a comparison's left
    side only (``!x < width``): C compares !x, 0 or 1, with the right side."""
    return (f"the ! at line {record.line} applies to the left side of the comparison only: C "
            "reads !x < width as (!x) < width, and !x is 0 or 1, less than width, so the "
            "comparison is true whatever x is (a bounds guard if (!x < width || ...) return; "
            "sends every thread back)",
            "write the opposite comparison instead of the !: not x < width is x >= width, so "
            "the spare threads outside the image return with if (x >= width || y >= height) "
            "return;")


def assigned(record, text=None) -> tuple[str, str]:
    """``(problem, hint)`` for an ``=`` tested as a condition at ``record.line`` (``if (lane =
    0)``): it stores the value, and tests what it stored, the same for every thread. ``text``:
    the learner's line, whose assignment the words quote where they find it."""
    found = ASSIGNMENT.search(text or "")
    if found is None:
        return (f"the condition at line {record.line} assigns with = where it should compare with "
                "==: if (lane = 0) stores 0 in lane and then tests that 0, so it is false for "
                "every thread (and if (j = 1) is true for every one), and the variable has lost "
                "its value",
                "compare with ==, which leaves the variable as it is: if (lane == 0) (= stores a "
                "value, == compares two)")
    name, value = found.group("name"), found.group("value").strip()
    outcome = {"0": "false for every thread"}.get(value, "true for every thread" if
                                                  value.isdigit() else f"true wherever {value} is not 0")
    compare = (f"compare with ==, which leaves {name} as it is: {name} == {value} (= stores a "
               "value, == compares two)") if value.isdigit() else (
        f"compare, do not assign, which leaves {name} as it is: {name} < {value} for a bound, "
        f"{name} == {value} for equal (= stores a value; < and == compare)")
    if (joined := found.group("then")) in ("&&", "||"):   # = binds looser: name = (value && ...)
        return (f"the condition at line {record.line}, {name} = {value} {joined} ..., assigns where "
                f"it should compare: = binds looser than {joined}, so it stores the whole "
                f"{joined}, 0 or 1, in {name} and then tests that, and {name} has lost its own "
                "value", compare)
    return (f"the condition at line {record.line}, {name} = {value}, assigns where it should "
            f"compare: it stores {value} in {name} and then tests that value, {outcome}, and "
            f"{name} has lost its own value", compare)


def precedence(record) -> tuple[str, str]:
    """``(problem, hint)`` for an operator ``record.name`` at ``record.line`` whose operand C
    reads as the whole ``record.inside`` (``a << 8 + b`` is ``a << (8 + b)``)."""
    op, inside = record.name, record.inside
    if inside in ("comparison", "arithmetic"):
        tighter, example = ("==", f"x {op} mask == 0") if inside == "comparison" else \
            ("+", f"x {op} y + 1")
        right = f"x {op} (mask == 0)" if inside == "comparison" else f"x {op} (y + 1)"
        fixed = f"(x {op} mask) == 0" if inside == "comparison" else f"(x {op} y) + 1"
    else:
        tighter, example = inside, f"x {op} 8 {inside} y"
        right, fixed = f"x {op} (8 {inside} y)", f"(x {op} 8) {inside} y"
    return (f"C reads the {op} at line {record.line} after the {tighter}: {tighter} binds tighter "
            f"than {op}, so {example} is {right}",
            f"put parentheses around what comes first: {fixed}")
