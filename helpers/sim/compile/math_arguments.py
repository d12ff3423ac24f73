"""A math function called on argument types that CUDA's device code has no version for, in the
words nvcc would use (include/sim_math_args.h refuses them as nvcc does).

In device code CUDA declares sqrt, fmin, ... for floats and doubles only, and min and max for a
fixed set of pairs. sqrt of an int is the C++ library's host function ("calling a constexpr
__host__ function("sqrt") from a __global__ function is not allowed"), min of an int and a float
is ambiguous ("more than one instance of overloaded function "min" matches the argument list").
g++ reports the first as a deleted __sim_math_<name> and the second as an ambiguous call.
"""

import re

from ..errors import MathArgumentError
from .diagnosed import MATH_ARGUMENT, Diagnostic

_DELETED = re.compile(r"use of deleted function [‘'][^’']*?__sim_math_(?P<name>\w+)\((?P<params>[^)]*)\)"
                      r"(?: \[with (?P<with>[^\]]*)\])?")
_AMBIGUOUS = re.compile(r"call of overloaded [‘'](?P<name>min|max)\((?P<args>[^)]*)\)[’'] is ambiguous")
_TEMPLATE_ARGUMENT = re.compile(r"__A\d+ = (?P<type>[^;\]]+)")
# The functions whose first argument is the number and whose second is an exponent or a pointer.
NUMBER_FIRST = {"ldexp", "scalbn", "scalbln", "frexp", "remquo"}


def error(what, text, file, line):
    """The MathArgumentError for the compiler's error ``text`` at the learner's ``file`` and
    ``line``, or None when the error is about something else."""
    deleted, ambiguous = _DELETED.search(text), _AMBIGUOUS.search(text)
    if deleted:
        with_clause = deleted.group("with") or ""
        types = [m.group("type").strip() for m in _TEMPLATE_ARGUMENT.finditer(with_clause)]
        return _refused(what, deleted.group("name"), types, file, line)
    if ambiguous:
        types = [a.replace("&", "").replace("const ", "").strip()
                 for a in ambiguous.group("args").split(",")]
        return _ambiguous(what, ambiguous.group("name"), types, file, line)
    return None


def _error(msg, name, types, file, line):
    """The MathArgumentError, with its record for the checkers (diagnosed.MATH_ARGUMENT)."""
    err = MathArgumentError(msg, name, types, file, line)
    err.diagnostics = (Diagnostic(file, line, None, MATH_ARGUMENT, (name,), tuple(types)),)
    return err


def _a(type_name):
    return ("an " if type_name[:1] in "aeiou" else "a ") + type_name


def _refused(what, name, types, file, line):
    """sqrt(int), fmin(float, int), fma(float, float, int), ldexp(int, int): a host function."""
    shown = f"{name}({', '.join(types)})"
    if name in NUMBER_FIRST:
        takes = f"takes a float or a double as its first argument, and nvcc refuses {_a(types[0])} there"
        advice = f"convert the number: {name}((float)x, ...) or {name}((double)x, ...)."
    elif len(types) == 1:
        takes = f"takes a float or a double, and nvcc refuses it on {_a(types[0])}"
        advice = f"convert the argument: {name}((float)x) computes in float, {name}((double)x) in double."
    else:
        many = {2: "two", 3: "three"}[len(types)]
        takes = f"takes {many} floats or {many} doubles, and nvcc refuses any other mix"
        advice = ("give every argument the same type: for floats, write a literal as 1.0f (1 "
                  "is an int, 1.0 a double) and convert an int variable with (float)n; or make "
                  "them all doubles.")
    return _error(
        f"simulator compilation of {what} failed\n{file}:{line}: error: {shown}: in device code "
        f"CUDA's {name} {takes} (nvcc: calling a constexpr __host__ function(\"{name}\") from a "
        f"__global__ function is not allowed).\nnote: {advice}", name, types, file, line)


def _ambiguous(what, name, types, file, line):
    """min(int, float): no overload of CUDA's min fits better than another."""
    shown = f"{name}({', '.join(types)})"
    return _error(
        f"simulator compilation of {what} failed\n{file}:{line}: error: {shown}: CUDA's {name} has "
        f"no version for {_a(types[0])} with {_a(types[1])} (nvcc: more than one instance of "
        f"overloaded function \"{name}\" matches the argument list).\nnote: convert one of them "
        f"so that both are integers or both are floating-point: {name}((float)a, b), or "
        f"f{name}f(a, b) for two floats.", name, types, file, line)
