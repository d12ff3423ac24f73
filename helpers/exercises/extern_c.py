"""How a checker compiles the learner's ``.cu`` file: inside the extern "C" { } that PyCUDA's
SourceModule wraps around a source, so that get_function finds a kernel by its name (notebook
01), unless the exercise's stub is C++ (``KernelExercise(no_extern_c=True)``) or the learner's
file says ``extern "C"`` itself: then as it stands, as ``SourceModule(source, no_extern_c=True)``
compiles it. So a learner who writes C++ (a template, cooperative_groups.h) does what a PyCUDA
program does for it: extern "C" before the kernel. ``refused`` is the verdict's words for a file
whose C++ stands inside the extern "C" (the simulator's C_LINKAGE record,
helpers.sim.compile.linkage)."""

from __future__ import annotations

from helpers.exercises.diagnostic_words import where as _where

HINT = ("write extern \"C\" before your kernel, extern \"C\" __global__ void ...: a file that says "
        "extern \"C\" itself is compiled as it stands, as SourceModule(source, no_extern_c=True) "
        "compiles it (notebook 01), and its kernel keeps its name")


def as_it_stands(source: str, no_extern_c: bool) -> bool:
    """True where ``source`` is compiled as it stands (no_extern_c=True): the exercise says so,
    or the source says ``extern "C"`` outside its comments and strings."""
    from helpers.sim.compile.kernel_text import Unreadable, read_tokens

    if no_extern_c:
        return True
    try:
        tokens = read_tokens(source, 0, len(source))
    except Unreadable:
        return False
    return any(a.text == "extern" and b.text == '"C"' for a, b in zip(tokens, tokens[1:]))


def refused(records, path, source):
    """(problem, hint) for C++ inside the checker's extern "C" (the first of ``records``): a
    header's (``names``: cooperative_groups.h), the learner's template or overloaded function."""
    record = records[0]
    what = record.names[0] if record.names else "template"
    where = _where(record, path) if record.file else "the file"
    problem = {"template": f"{where} declares a template, which is C++ (C has no templates)",
               "overloaded function": f"{where} declares a second function of the same name, an "
                                      "overload, which is C++ (C gives a name one function)"}.get(
        what, f"{where} includes {what}, which is C++ (it declares templates)")
    return (f"{problem}, and the checker compiles your file inside extern \"C\" {{ }}, as "
            "PyCUDA's SourceModule does", HINT)
