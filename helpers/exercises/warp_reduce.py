"""sim_warp.h's refusal of __reduce_add_sync given a float (kind "refused by a header", template
``__sim_reduce``, its value's type first): the one instruction adds 32-bit integers only, as
notebook 07's count does, so a float sum takes the shuffles. ``refused(record, path)`` gives the
verdict's (problem, hint), or None for any other refusal; ``compile_errors`` reads it."""

from __future__ import annotations

import re

from helpers.exercises.diagnostic_words import a as _a, where as _where

FLOATS = ("float", "double", "__half", "half")


def refused(d, path):
    """__reduce_add_sync(mask, value) given a floating-point value; None for anything else."""
    call = d.expression
    if (d.names[:1] != ("__sim_reduce",) or not d.types or d.types[0] not in FLOATS
            or not call.startswith("__reduce_add_sync(") or "," not in call):
        return None
    value = call[call.find(",") + 1:call.rfind(")")].strip()
    name = value if re.fullmatch(r"\w+", value) else "v"
    return (f"{_where(d, path)} gives __reduce_add_sync {_a(d.types[0])}, {value}: it adds "
            "32-bit integers only (an int or an unsigned: notebook 07's count), and a cast to "
            "int would cut each lane's sum to a whole number",
            f"add {d.types[0]}s with shuffles: for (int offset = 16; offset > 0; offset /= 2) "
            f"{name} += __shfl_down_sync(0xffffffff, {name}, offset); lane 0 ends with the "
            "warp's sum")
