"""C++ inside the extern "C" { } that SourceModule wraps around a source (unless no_extern_c=True):
a C++ header the simulator gives (cooperative_groups.h, which declares templates), or the
learner's own template or overloaded function. C gives a name one meaning and no templates, so
g++ refuses each, and nvcc refuses them too ("this declaration may not have extern "C"
linkage"); the cure is PyCUDA's own: no_extern_c=True, and extern "C" before each kernel.

``c_linkage_error(what, stderr)`` turns g++'s refusal into an ExternCError with its record (a
``Diagnostic`` of kind C_LINKAGE: ``names`` the header, "template" or "overloaded function").
"""

import os
import re

from .diagnosed import C_LINKAGE, ERROR_LINE, Diagnostic
from .source import INCLUDE_DIR, in_prelude
from ..errors import ExternCError

_INCLUDED_FROM = re.compile(r"^In file included from (?P<file>[^:\n]+):(?P<line>\d+)", re.M)
_OWN = {"template with C linkage": ("a template", "no templates"),
        "conflicting declaration of C function": ("an overloaded function",
                                                  "one function for each name")}
"""g++'s words for C++ of the learner's own inside extern "C": what it is, and what C has."""


def c_linkage_error(what, stderr):
    """The ExternCError for the first error of ``stderr`` (g++'s output) that is C++ inside
    SourceModule's extern "C" { }, or None when the first such error is another."""
    error = next((m for m in ERROR_LINE.finditer(stderr) if _construct(m) is not None), None)
    if error is None:
        return None
    if in_prelude(error.group("file")):
        header = os.path.relpath(error.group("file"), INCLUDE_DIR)
        where = next((m for m in _INCLUDED_FROM.finditer(stderr)
                      if not in_prelude(m.group("file"))), None)
        file, line = (where.group("file"), int(where.group("line"))) if where else (None, None)
        said, name = f"{header} is C++ (it declares templates)", header
    else:
        header, file, line = None, error.group("file"), int(error.group("line"))
        construct, has = _construct(error)
        name, said = construct.split(" ", 1)[1], f"{construct} is C++ (C has {has})"
    place = f"{file}:{line}: " if file else ""
    err = ExternCError(
        f"simulator compilation of {what} failed\n{place}error: {said}, and SourceModule puts the "
        "whole source inside extern \"C\" { } (nvcc: this declaration may not have extern \"C\" "
        "linkage).\nnote: pass no_extern_c=True to SourceModule, and write extern \"C\" before "
        "each __global__ function so that get_function still finds it by its name.",
        header, file, line)
    err.diagnostics = (Diagnostic(file, line, None, C_LINKAGE, (name,)),)
    return err


def _construct(error):
    """(what, what C has) for the error ``error`` (a match of ERROR_LINE), C++ refused inside
    extern "C" (a template: the learner's, or a prelude header's); None for any other error."""
    return next((said for words, said in _OWN.items() if error.group("text").startswith(words)),
                None)
