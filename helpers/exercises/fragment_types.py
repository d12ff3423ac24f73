"""mma.h's refusal of a fragment, named from the simulator's records of it (kind "refused by a
header", read with the others: each fragment refused is a record): mma_sync given a fragment of
the wrong kind (``fragment_roles``), a matrix_a or matrix_b fragment of float or double in a
16-bit shape, one of half in another shape (16, 16, 8: TF32's), an accumulator of double, or one
declared with a layout.
``refused(records, path, source)`` gives the verdict's (problem, hint), or None for anything else
mma.h refuses; ``compile_errors`` reads it, and ``stored_without_layout`` for a "no matching
function" record (an accumulator's store given no layout)."""

from __future__ import annotations

import re

from helpers.exercises import fragment_roles
from helpers.exercises.diagnostic_words import a as _a, where as _where
from helpers.exercises.fragment_roles import MATRIX

SHAPES_16 = {("16", "16", "16"), ("32", "8", "16"), ("8", "32", "16")}
"""The shapes (M, N, K) of fragments with 16-bit inputs."""


def refused(records, path, source):
    """mma.h refused the first: mma_sync given a fragment of the wrong kind (fragment_roles), a
    matrix_a or matrix_b fragment of float (or double), the accumulator's type, in a 16-bit
    shape, or one of half in another shape; None for anything else it refuses."""
    roles = fragment_roles.said(records[0], _where(records[0], path), source)
    if roles:
        return roles
    if _layout_given(records[0]):
        return _load_layout(records[0], path)
    if _wide_accumulator(records[0]):
        return _accumulator(records, path)
    if _accumulator_with_layout(records[0]):
        return _accumulator_layout(records[0], path)
    if _stored_to_another_type(records[0]):
        return _half_accumulator(records[0], path)
    if _stored_to_another_type(records[0], "__half", ("float",)):
        return _half_memory(records[0], path)
    if _loaded_from_wide(records[0]):
        return _wide_memory([d for d in records if _loaded_from_wide(d)], path, source)
    shaped = [d for d in records if _input16_shape(d)]
    if shaped and shaped[0] is records[0]:
        return _shape(shaped, path)
    wrong = [d for d in records if _wide_input(d)]
    if not wrong or wrong[0] is not records[0]:
        return None
    given = sorted({d.types[4] for d in wrong})
    memory = _loaded_from(records, wrong[0].types[0])
    uses = " and ".join(sorted({d.types[0] for d in wrong}))
    letters = " and ".join(MATRIX[use] for use in sorted({d.types[0] for d in wrong}))
    declared = ", and ".join(f"{_where(d, path)} {'declares ' if k == 0 else ''}"
                             f"{d.expression or 'a fragment'}, {_a(d.types[0])} fragment"
                             for k, d in enumerate(wrong))
    one = len({d.types[0] for d in wrong}) == 1
    declarations = " and ".join(_declaration(d, memory) for d in wrong)
    return (f"{declared}, of {' and '.join(given)}: {'a ' if one else ''}{uses} "
            f"fragment{'' if one else 's'} hold{'s' if one else ''} the tensor cores' 16-bit "
            f"inputs, {memory}, as {letters} {'is' if one else 'are'}; only the "
            "accumulator holds float",
            f"declare {'it' if len(wrong) == 1 else 'them'} {memory}: {declarations} (the "
            "tensor cores take 16-bit inputs and add their products in float, in the "
            "accumulator: mixed precision)")


def _wide_input(d) -> bool:
    """A REFUSED record of a matrix_a or matrix_b fragment of float or double, in a 16-bit shape."""
    return (d.kind == "refused by a header" and d.names[:1] == ("fragment",) and len(d.types) >= 5
            and d.types[0] in MATRIX and tuple(d.types[1:4]) in SHAPES_16
            and d.types[4] in ("float", "double"))


def _input16_shape(d) -> bool:
    """A REFUSED record of a matrix_a or matrix_b fragment of __half (or __nv_bfloat16) in a shape
    other than a 16-bit one (16, 16, 8 is precision::tf32's)."""
    return (d.kind == "refused by a header" and d.names[:1] == ("fragment",) and len(d.types) >= 5
            and d.types[0] in MATRIX and tuple(d.types[1:4]) not in SHAPES_16
            and d.types[4] in ("__half", "half", "__nv_bfloat16"))


def _shape(wrong, path):
    """matrix_a and matrix_b fragments of 16-bit inputs declared in another shape: 16, 16, 8,
    section 3's TF32 fragments' (float inputs), where half takes 16, 16, 16."""
    given = " and ".join(sorted({{"__half": "half"}.get(d.types[4], d.types[4]) for d in wrong}))
    shapes = sorted({", ".join(d.types[1:4]) for d in wrong})
    declared = ", and ".join(f"{_where(d, path)} {'declares ' if k == 0 else ''}"
                             f"{d.expression or 'a fragment'}, {_a(d.types[0])} fragment"
                             for k, d in enumerate(wrong))
    whose = ("the shape of precision::tf32 fragments (float inputs rounded to TF32)"
             if shapes == ["16, 16, 8"] else "a shape the tensor cores lack for 16-bit inputs")
    declarations = " and ".join(_declaration(d, {"__half": "half"}.get(d.types[4], d.types[4]),
                                             "16, 16, 16") for d in wrong)
    return (f"{declared}, of {given} in the shape {' and '.join(shapes)}: that is {whose}; "
            f"{given} inputs take 16, 16, 16 (or 32, 8, 16 and 8, 32, 16)",
            f"declare {'it' if len(wrong) == 1 else 'them'} 16, 16, 16: {declarations} and the "
            "accumulator in the same shape, wmma::fragment<wmma::accumulator, 16, 16, 16, "
            "float> (mma_sync takes fragments of one shape)")


def _loaded_from_wide(d) -> bool:
    """A REFUSED record of load_matrix_sync loading a matrix_a or matrix_b fragment of half
    from float (or double) memory."""
    return (d.kind == "refused by a header" and d.names[:1] == ("load_matrix_sync",)
            and len(d.types) == 2 and d.types[1] in ("float", "double")
            and any(d.types[0].startswith(f"fragment<{use},") for use in MATRIX)
            and d.types[0].split(",")[4].strip() in ("__half", "half"))


def _load_arguments(d) -> list:
    """The arguments' text of the record's load_matrix_sync call, split at its top-level commas."""
    call, args, depth = d.expression, [""], 0
    for ch in call[call.find("(") + 1:call.rfind(")")] if "(" in call else "":
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            args.append("")
        else:
            args[-1] += ch
    return [a.strip() for a in args if a.strip()]


def _layout_given(d) -> bool:
    """A REFUSED record of load_matrix_sync given four arguments, the fourth a layout, for a
    matrix_a or matrix_b fragment declared with its layout: mma.h's load with a layout_t
    argument takes only an accumulator."""
    return (d.kind == "refused by a header" and d.names[:1] == ("load_matrix_sync",)
            and len(d.types) == 2 and d.types[0].count(",") == 5
            and any(d.types[0].startswith(f"fragment<{use},") for use in MATRIX)
            and len(_load_arguments(d)) == 4)


def _load_layout(d, path):
    """load_matrix_sync(fb, B, 16, wmma::mem_col_major): a layout given for an input fragment,
    as store_matrix_sync takes one; its layout is its type's."""
    name, pointer, ld, layout = _load_arguments(d)
    use, declared = d.types[0][len("fragment<"):].split(",")[0], d.types[0].rstrip(">").split(",")[5].strip()
    return (f"{_where(d, path)} gives load_matrix_sync a layout, {layout}, for {name}, {_a(use)} "
            f"fragment: an input fragment's layout is part of its type (declared {declared}), and "
            "only an accumulator's load and store take one",
            f"load it without the layout: wmma::load_matrix_sync({name}, {pointer}, {ld});")


def _wide_memory(loads, path, source):
    """load_matrix_sync(fa, A, ...) of half fragments from float memory: the inputs A and B
    declared float (NumPy's default), or the arrays a pointer is taken into (&As[w][0][0]: shared
    tiles staged for the fragments, declared on a line of ``source``), where half belongs."""
    said, roots = [], []
    for d in loads:
        call = d.expression or "load_matrix_sync"
        args = [a.strip() for a in call[call.find("(") + 1:call.rfind(")")].split(",")]
        name, pointer = (args[0], args[1]) if len(args) > 1 else ("a fragment", "its memory")
        use = d.types[0][len("fragment<"):].split(",")[0]
        said.append(f"{_where(d, path)}'s {call} loads {name}, {_a(use)} fragment of half, from "
                    f"{pointer}, a {d.types[1]} pointer")
        root = re.match(r"[&(\s]*([A-Za-z_]\w*)", pointer) if len(args) > 1 else None
        roots += [r for r in [root[1] if root else pointer] if r not in roots]
    arrays = {r: _array_declared(r, loads[0].types[1], source or "") for r in roots}
    lines = sorted({found[0] for found in arrays.values() if found})
    where = (f" (line{'s' if len(lines) > 1 else ''} {' and '.join(map(str, lines))})"
             if lines else "")
    pieces = [arrays[r][1] if arrays[r] else f"const half *{r}" for r in roots]
    declared = "; ".join(p.rstrip(";") for p in pieces) + ";" if lines else ", ".join(pieces)
    names = " and ".join(roots)
    return (", and ".join(said) + ": load_matrix_sync loads a fragment from memory of its own "
            f"element type, and {names} {'was' if len(roots) == 1 else 'were'} declared "
            f"{loads[0].types[1]}{where} where the fragments' half belongs",
            f"declare {names} half, as their fragments are: {declared} (the tensor cores take "
            "16-bit inputs and add their products in float, in the accumulator and C: mixed "
            "precision)")


def _array_declared(name: str, type_: str, source: str):
    """(its line, its declaration with half for ``type_``) where ``source`` declares ``name`` an
    array of ``type_``, else None."""
    pattern = re.compile(rf"\b{re.escape(type_)}\b[^;()=]*?\b{re.escape(name)}\s*\[")
    for number, line in enumerate(source.splitlines(), 1):
        code = line.split("//")[0]
        if pattern.search(code):
            return number, re.sub(rf"\b{re.escape(type_)}\b", "half", code.strip(), count=1)
    return None


def _wide_accumulator(d) -> bool:
    """A REFUSED record of an accumulator fragment of double (or another type it cannot hold)
    in a 16-bit shape."""
    return (d.kind == "refused by a header" and d.names[:1] == ("fragment",) and len(d.types) >= 5
            and d.types[0] == "accumulator" and tuple(d.types[1:4]) in SHAPES_16
            and d.types[4] not in ("float", "half", "__half", "int"))


def _accumulator(records, path):
    """The accumulator declared double (Python's float): a 16-bit shape's accumulator holds
    float, and store_matrix_sync writes it to C's memory of that type."""
    d = records[0]
    stores = [s.types[0] for s in records if s.names[:1] == ("store_matrix_sync",) and s.types]
    memory = {"__half": "half"}.get(stores[0], stores[0]) if stores else "float"
    shape = " x ".join(d.types[1:4])
    name = d.expression or "the accumulator"
    return (f"{_where(d, path)} declares {name}, the accumulator fragment, of {d.types[4]}: a "
            f"{shape} multiply of 16-bit inputs has no {d.types[4]} accumulator; it adds its "
            f"products in float, and store_matrix_sync writes that float to C's {memory} elements",
            f"declare it float: wmma::fragment<wmma::accumulator, {', '.join(d.types[1:4])}, "
            f"float> {d.expression or 'c'}; (the tensor cores take 16-bit inputs and add their "
            "products in float, in the accumulator: mixed precision)")


def _accumulator_with_layout(d) -> bool:
    """A REFUSED record of an accumulator fragment declared with a layout (row_major or
    col_major), as matrix_a and matrix_b are."""
    return (d.kind == "refused by a header" and d.names[:1] == ("fragment",) and len(d.types) > 5
            and d.types[0] == "accumulator")


def _accumulator_layout(d, path):
    """wmma::fragment<wmma::accumulator, 16, 16, 16, float, wmma::row_major> c: an accumulator
    takes no layout in its type; its memory's layout is given to store_matrix_sync."""
    name, layout = d.expression or "the accumulator", d.types[5]
    return (f"{_where(d, path)} declares {name}, the accumulator fragment, with a layout, "
            f"wmma::{layout}: an accumulator fragment takes none (only matrix_a and matrix_b "
            "fragments have their layout in their type)",
            f"declare it without one: wmma::fragment<wmma::accumulator, {', '.join(d.types[1:5])}> "
            f"{d.expression or 'c'}; the layout of the memory it is stored to is given to "
            f"store_matrix_sync (wmma::mem_{layout})")


def _stored_to_another_type(d, memory="float", accumulator=("__half", "half")) -> bool:
    """A REFUSED record of store_matrix_sync given ``memory`` (float) and an accumulator of
    ``accumulator`` (half)."""
    return (d.kind == "refused by a header" and d.names[:1] == ("store_matrix_sync",)
            and len(d.types) == 2 and d.types[0] == memory
            and d.types[1].startswith("fragment<accumulator,")
            and d.types[1].rstrip(">").split(",")[-1].strip() in accumulator)


def _half_memory(d, path):
    """store_matrix_sync(C, c, ...) of a float accumulator into half memory: C declared half
    (like the inputs) where the accumulator's float belongs."""
    call = d.expression or ""
    args = [a.strip() for a in call[call.find("(") + 1:call.rfind(")")].split(",")]
    name = args[1] if len(args) > 1 else "the accumulator"
    pointer = re.match(r"[A-Za-z_]\w*", args[0]) if len(args) > 1 else None
    memory = pointer[0] if pointer else "C"
    return (f"{_where(d, path)}'s {call or 'store_matrix_sync'} stores {name}, an accumulator "
            f"fragment of float, to {memory}, a half pointer: store_matrix_sync writes an "
            f"accumulator to memory of its own type, and {memory} was declared half where the "
            "accumulator's float belongs", f"declare {memory} float, as the accumulator is: "
            f"float *{memory} (the tensor cores take 16-bit inputs, A and B, and add their "
            "products in float, which the result keeps: mixed precision)")


def _half_accumulator(d, path):
    """store_matrix_sync(C, c, ...) of a half accumulator into C's float elements: the
    accumulator declared half, where a multiply of 16-bit inputs adds its products in float."""
    call = d.expression or ""
    args = [a.strip() for a in call[call.find("(") + 1:call.rfind(")")].split(",")]
    memory, name = (args[0], args[1]) if len(args) > 1 else ("C", "the accumulator")
    shape = ", ".join(part.strip() for part in d.types[1].split(",")[1:4])
    return (f"{_where(d, path)}'s {call or 'store_matrix_sync'} stores {name}, an accumulator "
            f"fragment of half, to {memory}, a float pointer: store_matrix_sync writes an "
            f"accumulator to memory of its own type, and {name} was declared half where {memory}'s "
            "float belongs", f"declare the accumulator float, as {memory} is: wmma::fragment<wmma::"
            f"accumulator, {shape}, float> {name if args[1:] else 'c'}; (the tensor cores take "
            "16-bit inputs and add their products in float, in the accumulator: mixed precision)")


def stored_without_layout(d, where):
    """store_matrix_sync(C, c, 16) of an accumulator, no overload taking three arguments (a
    "no matching function" record): the layout C is stored in left out, as the loads of matrix_a
    and matrix_b fragments leave it; None for any other call."""
    if d.names[:1] != ("store_matrix_sync",) or len(d.operands) != 3 or \
            not any("wmma::accumulator" in t for t in d.types):
        return None
    memory, name, ld = d.operands
    root = re.match(r"[A-Za-z_]\w*", memory)
    return (f"{where}'s {d.expression} stores {name}, an accumulator fragment, without a layout: "
            "store_matrix_sync takes a fourth argument, the layout the tile is stored in, since "
            "an accumulator fragment has none of its own (only matrix_a and matrix_b fragments "
            "have theirs in their type, so their loads take none)",
            f"give the layout {root[0] if root else 'C'} is stored in: wmma::store_matrix_sync({memory}, {name}, {ld}, "
            "wmma::mem_row_major) (wmma::mem_col_major for one stored column after column)")


def _loaded_from(records, use: str) -> str:
    """The type of the memory a ``use`` fragment is loaded from (a load_matrix_sync that mma.h
    refused: half for __half), else half."""
    loads = [d.types[1] for d in records if d.names[:1] == ("load_matrix_sync",)
             and len(d.types) > 1 and d.types[0].startswith(f"fragment<{use},")]
    return {"__half": "half"}.get(loads[0], loads[0]) if loads else "half"


def _declaration(d, memory: str, shape: str = "") -> str:
    """The record's fragment declared with ``memory`` in place of its type (and ``shape`` in
    place of its shape, where given)."""
    layout = f", wmma::{d.types[5]}" if len(d.types) > 5 else ""
    return (f"wmma::fragment<wmma::{d.types[0]}, {shape or ', '.join(d.types[1:4])}, {memory}{layout}> "
            f"{d.expression or ''}".rstrip() + ";")
