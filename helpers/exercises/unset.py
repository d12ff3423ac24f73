"""A kernel whose cases all passed, but which reads a local variable before anything is stored in
it, where the simulator's compiler can tell (g++'s -Wuninitialized and -Wmaybe-uninitialized):
the runner (``helpers.exercises.kernel``) turns its PASS into this NOT YET. And any verdict of a
kernel with an ``if`` whose body is a lone semicolon (g++'s -Wempty-body), or with a function
named without its parentheses (``__syncthreads;``, g++'s -Waddress), with two comparisons written
as one (``0 <= i < n``, g++'s -Wparentheses), or with a ``!`` that applies to a comparison's left
side only (``!x < width``, g++'s -Wlogical-not-parentheses): that mistake first.

On a GPU such a variable holds whatever its register held last, with no error; on the simulator
it holds a pattern (0xFE bytes), which for a ``bool`` is false: a vote that a lane past n casts
from ``bool above;`` set only under ``if (i < n)`` comes out right there by luck. The facts come
from the kernel compiled by the simulator (``Function.compiler_warnings``, records of
``helpers/sim/compile/warned.py``: the variable's ``name``, its ``declared`` line, the warp
function that read it, ``reader``), never from the warning's words. A kernel compiled by PyCUDA
alone has none; an exercise that looks at the simulator's twin (``Kernels``) has them on a GPU too.
"""

from __future__ import annotations

from collections.abc import Callable

from helpers.exercises.verdict import Verdict, not_yet

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
    for kind, words_of in (("not called", not_called), ("chained comparison", chained),
                           ("logical not", not_on_the_left)):
        found = reads(kernel, kind)
        own = compared(kernel, found[0]) if found and compared and kind != "not called" \
            else None
        if found:
            return not_yet(*(own or words_of(found[0])))
    found = reads(kernel)
    if not verdict or not found:
        return verdict
    own = next(filter(None, map(words, found)), None) if words else None
    return not_yet(*(own or general(found[0])))


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
