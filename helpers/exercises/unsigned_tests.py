"""A kernel that is NOT YET and tests an unsigned value against 0 where the outcome never
changes (g++'s -Wtype-limits, the record "unsigned comparison" of
``helpers/sim/compile/warned.py``): ``for (unsigned b = 767; b >= 0; b--)`` never ends, since
``b >= 0`` is always true and b wraps past 0 to 4294967295; ``i < 0 ? 0 : i`` never clamps. Where
the test is a loop's condition, or the test of a clamp (``?:``), that is the mistake to name
first: the crash at the wrapped index, or the endless loop, comes from it. A test elsewhere (``if
(i < 0 || i >= n) return;``, where i >= n already sends the spare threads back) may be harmless,
and is not named.

The facts are the record's fields (its line, the test, ``always``, the operator's column); the
variable is read from the learner's line at that column, its declaration from the same line.
"""

from __future__ import annotations

import re

from helpers.exercises.unset import line_text, reads
from helpers.exercises.verdict import Verdict, not_yet

_TESTED = re.compile(r"(?P<name>[A-Za-z_]\w*)\s*(?P<op>>=|<)\s*0[uU]?\b"
                     r"|\b0[uU]?\s*(?P<flipped><=|>)\s*(?P<other>[A-Za-z_]\w*)")
"""A comparison with 0, the variable on either side: ``b >= 0``, ``0 <= b``, ``i < 0u``."""
_LOOP = re.compile(r"\b(?:for|while)\s*\(")
_CLAMP = re.compile(r"^\s*\)?\s*\?")
"""What follows the test of a clamp: ``i < 0 ? 0 : i``, ``(i < 0) ? ...``."""
UNSIGNED_TYPE = r"\b(?:unsigned(?:\s+(?:int|long(?:\s+long)?|short|char))?|size_t|uint\d+_t)\b"
"""An unsigned integer type as C spells it."""
_UNSIGNED = UNSIGNED_TYPE + r"\s+(?={}\b)"
"""The unsigned type in a declaration of the variable (formatted with its name)."""


def checked(kernel, verdict: Verdict) -> Verdict:
    """``verdict``, or, when it is a NOT YET, the NOT YET for the first unsigned comparison
    with 0 of ``kernel`` that is a loop's condition or a clamp's test."""
    if verdict:
        return verdict
    for record in reads(kernel, "unsigned comparison"):
        words = mistake(record, line_text(kernel, record.line, record.file) or "")
        if words:
            return not_yet(*words)
    return verdict


def mistake(record, text: str) -> tuple[str, str] | None:
    """``(problem, hint)`` for ``record`` at the learner's line ``text``: a loop's condition
    that is always true, or a clamp whose test never changes; None for a test elsewhere."""
    found = _tested(text, record.column)
    if found is None:
        return None
    name = found.group("name") or found.group("other")
    test = f"{name} {record.name}"
    if _LOOP.search(text[:found.start()]) and record.always:
        return (f"line {record.line}: {test} is always true for the unsigned {name}, so the loop "
                f"does not stop at 0: {name} wraps around past 0 to about 4294967295 (an unsigned "
                "0 - 1 is 4294967295), so the loop never ends on its own and indexes far outside "
                "the array",
                f"count down with an int: {_as_int(text, name)}" if _declares(text, name) else
                f"declare {name} an int, which can go below 0 and end the loop")
    if _CLAMP.match(text[found.end():]):
        outcome = "always true" if record.always else "never true"
        return (f"line {record.line}: {test} is {outcome} for the unsigned {name}, so the clamp "
                f"does nothing: an unsigned {name} is never below 0 (0 - 1 wraps to 4294967295)",
                f"compute the index in an int before clamping (int {name}), so that {name} - 1 "
                "at 0 is -1 and the clamp sends it to 0")
    return None


def _tested(text: str, column: int | None):
    """The comparison with 0 in ``text`` whose operator is nearest ``column`` (1-based)."""
    found = list(_TESTED.finditer(text))
    return min(found, key=lambda m: abs(m.start("op" if m.group("op") else "flipped") + 1
                                        - (column or 0)), default=None)


def _declares(text: str, name: str) -> bool:
    return re.search(_UNSIGNED.format(re.escape(name)), text) is not None


def _as_int(text: str, name: str) -> str:
    """The learner's loop header with ``name`` declared an int: ``for (int b = 767; b >= 0;
    b--)``."""
    loop = text[_LOOP.search(text).start():]
    depth = 0
    for end, char in enumerate(loop):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == ")" and depth == 0:
            loop = loop[:end + 1]
            break
    return re.sub(_UNSIGNED.format(re.escape(name)), "int ", loop, count=1)
