"""A launch stopped by a C++ operator that a GPU computes differently: a float-to-integer
conversion of NaN or of a value out of the type's range, or a shift by the operand's width or more.

C++ leaves both undefined, and the two machines answer differently: x86's conversion gives INT_MIN
(its "integer indefinite") or wraps around, and its shifts take the count modulo the width; a GPU's
`cvt` saturates to the type's range and its `shl` / `shr` clamp the count (0, or the sign bits of an
arithmetic right shift). A prelude cannot change built-in operators, so the learner's code is
compiled with GCC's checks for both (compile/builder.py's OPERATOR_CHECKS), and the runtime's
handlers (include/sim_grid.h) stop the launch where the answers differ. This module turns what they
report into a ConversionError or a ShiftError: the operands, their C types, what a GPU gives, and
what to write instead.
"""

import re
import struct

from ..compile.source import line_text
from ..errors import ConversionError, ShiftError, xyz
from .report import thread_words
from .ubsan import as_signed, type_of

STATUSES = ("CAST", "SHIFT")

# The intrinsic that converts as a C++ cast does (toward zero) and as a GPU does, by (source bits,
# integer bits, signed); char and short have none.
_INTRINSICS = {(f, bits, signed): f"__{'float' if f == 32 else 'double'}2{name}_rz"
               for f in (32, 64)
               for (bits, signed), name in {(32, True): "int", (32, False): "uint",
                                            (64, True): "ll", (64, False): "ull"}.items()}


def error(record, status, err):
    """The ConversionError (status "CAST") or ShiftError ("SHIFT") for a launch of ``record`` (a
    LaunchRecord) that the runtime stopped, from its report ``err``."""
    line = f"{err.file.decode()}:{err.line}" if err.file else None
    facts = {"kernel": record.kernel.name, "block": tuple(err.block),
             "thread": err.failed_thread(), "line": line}
    where = (f"in kernel {record.kernel.name!r}, block {xyz(facts['block'])}, "
             f"{thread_words(err)}" + (f" at {line}" if line else ""))
    if status == "CAST":
        return _conversion(err, where, facts)
    text = line_text(record.module.source, err.line, err.file.decode() if err.file else None)
    return _shift(err, operator_at(text, err.column), where, facts)


def _conversion(err, where, facts):
    source, source_bits, _ = type_of(err.types[0])
    target, bits, signed = type_of(err.types[1])
    value = struct.unpack("<d", struct.pack("<Q", err.operands[0]))[0]
    gpu, cpu = as_signed(err.gpu, bits, signed), as_signed(err.cpu, bits, signed)
    shown = "NaN" if value != value else f"{value:g}"
    intrinsic = _INTRINSICS.get((source_bits, bits, signed))
    if intrinsic:
        advice = (f"Keep the value in the type's range first, or write {intrinsic}(x), which the "
                  "simulator computes as a GPU does")
    else:
        clamp, suffix = ("fminf(fmaxf", ".0f") if source_bits == 32 else ("fmin(fmax", ".0")
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        advice = (f"Clamp it to the type's range first: "
                  f"({target}){clamp}(x, {low}{suffix}), {high}{suffix})")
    return ConversionError(
        f"cuLaunchKernel failed: a float-to-integer conversion of NaN or of a value out of range "
        f"{where}: ({target}) of the {source} {shown} gives {gpu} on a GPU, and {cpu} on this CPU "
        "(C++ leaves it undefined; a GPU's conversion saturates to the type's range). "
        f"{advice}.", value=value, from_type=source, to_type=target, gpu=gpu, cpu=cpu, **facts)


def _shift(err, operator, where, facts):
    operand_type, width, signed = type_of(err.types[0])
    count_type, count_bits, count_signed = type_of(err.types[1])
    operand = as_signed(err.operands[0], width, signed)
    count = as_signed(err.operands[1], count_bits, count_signed)
    by_operator = {"<<": 0, ">>": -1 if operand < 0 else 0}
    gpu = by_operator[operator] if operator else (0 if operand >= 0 else None)
    shifted = f"{operand} {operator} {count}" if operator else f"{operand} shifted by {count}"
    gives = (f"gives {gpu} on a GPU" if gpu is not None else
             "gives 0 on a GPU for << and -1 for >>")
    return ShiftError(
        f"cuLaunchKernel failed: a shift by {count} of a {width}-bit {operand_type} {where}: "
        f"{shifted} {gives}, whose shl and shr clamp the count to {width}, while C++ leaves a "
        f"count below 0 or of {width} or more undefined and this CPU takes it modulo {width}. "
        f"Keep the count below {width} (test it first: k < {width} ? x {operator or '<<'} k : 0), "
        f"or shift a 64-bit value (1ull << k) for counts up to 63.",
        operand=operand, operand_type=operand_type, count=count, count_type=count_type,
        operator=operator, gpu=gpu, **facts)


def operator_at(text, column):
    """"<<" or ">>": the operator at ``column`` (1-based, where GCC's check places it) of the line
    ``text``, or the only one the line holds; None where it cannot tell."""
    if text is None:
        return None
    at = text[column - 1:column + 1] if column > 0 else ""
    if at in ("<<", ">>"):
        return at
    found = set(re.findall(r"(?<![<>])(<<|>>)(?![<>=])", text))
    return found.pop() if len(found) == 1 else None
