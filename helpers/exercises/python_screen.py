"""What a learner's Python may use, read from its code before any of it runs: the screen that
stands between a learner's Python (notebook 05's cells, notebook 11's files and cell) and the
checker, which runs it in its own process.

An allow-list: imports only of the modules the exercises need (``IMPORTS``), and of
``helpers.backend`` and ``helpers.ch11.multigpu`` only the names they hand the learner; only the
builtins a function that computes needs (``BUILTINS``), and ``from __future__`` imports; no
attribute that starts with an underscore, and no name either but the code's own (a ``_share`` it
binds, a lone ``_``); no attribute that walks frames or code (``gi_frame``,
``f_back``, ``tb_frame``, ``co_code``, ...) or reads or writes files (``np.save``, ``tofile``);
a module reached only as ``module.attr``, never handed on as a value, and a module inside an
allowed one (``np.ctypeslib``) refused unless allowed itself (``np.random``, ``np.linalg``);
``str.format`` only on a literal whose fields read no attribute or item. ``refusal(code)`` is
the first thing refused, as a (problem, hint) naming it and its line, or None.
"""

from __future__ import annotations

import __future__
import ast
import builtins
import importlib
import string
import sys
import types

IMPORTS = {"numpy", "numpy.random", "numpy.linalg", "math", "time", "sys", "helpers.backend",
           "helpers.ch11.multigpu", "pycuda.driver", "pycuda.gpuarray"}
"""The modules a learner's code may import."""
NAMES_OF = {"helpers.backend": {"drv", "gpuarray", "BACKEND"}, "helpers.ch11.multigpu": {"using"},
            "sys": {"getsizeof"}}
"""Of the course's own modules and sys, the names a learner's code may take or read."""
MODULES = IMPORTS | {"pycuda", "helpers", "helpers.ch11", "helpers.backend.drv",
                     "helpers.backend.gpuarray"}
"""The modules a learner's code may reach, as it names them."""
GIVEN = {"np": "numpy", "drv": "helpers.backend.drv", "gpuarray": "helpers.backend.gpuarray"}
"""The modules a notebook's first cell (and ``catalog.define_function``) gives the cell."""
BUILTINS = {"abs", "all", "any", "bin", "bool", "bytearray", "bytes", "chr", "complex", "dict",
            "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex",
            "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min",
            "next", "object", "oct", "ord", "pow", "print", "range", "repr", "reversed", "round",
            "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip"} | {
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception)}
"""The builtins a learner's code may use: what computes, and the exceptions it may raise."""
WALKS = ("f_", "gi_", "cr_", "ag_", "tb_", "co_")
"""How the attributes of frames, generators, coroutines, tracebacks and code start."""
FILES = {"save", "savez", "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt",
         "fromfile", "fromregex", "memmap", "DataSource", "tofile", "dump", "module_from_file"}
"""Attributes (NumPy's, an array's, the driver's) that read or write files."""
NO_USE = "which an exercise's function has no use for"
ARRAYS = "work with the arrays and values it is given"
USES = ("numpy (np.random and np.linalg too), math, time, pycuda.driver and pycuda.gpuarray; "
        "from helpers.backend drv and gpuarray, from helpers.ch11.multigpu using")
BUILTIN_HINTS = {
    ("eval", "exec", "compile"): "write the code itself, not a string of it",
    ("getattr", "setattr", "delattr", "hasattr"): "write the attribute itself: obj.name",
    ("globals", "locals", "vars", "dir"): "use your variables by their names",
    ("input", "breakpoint", "help"): "the checker cannot type: take the values from the "
                                     "function's arguments",
    ("exit", "quit"): "return from the function (or raise an exception)",
}


def refusal(code) -> tuple | None:
    """The first construct of ``code`` (a ``learner_code.LearnerCode``: a cell, a file or a
    function) that the screen refuses, as ``(problem, hint)``; None where none is."""
    modules = {**GIVEN, **_imported(code.tree)}
    bound, nodes = _bound(code.tree), list(ast.walk(code.tree))
    heads = {id(n.value): n.attr for n in nodes if isinstance(n, ast.Attribute)}
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        found = (_import_refused(node) or _underscore(node, bound)
                 or _builtin(node, bound, called)
                 or _attribute(node) or _module_use(node, modules, heads) or _format(node))
        if found:
            return f"{code.at(node)} {found[0]}", found[1]
    return None


def _imported(tree) -> dict:
    """The names the code's imports bind to a module, with the module's dotted name."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update({a.asname or a.name.split(".")[0]: a.name if a.asname else
                          a.name.split(".")[0] for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names
                          if isinstance(_resolved(f"{node.module}.{a.name}"), types.ModuleType)})
    return found


def _bound(tree) -> set:
    """Every name the code binds anywhere (so one that shadows a builtin is its own)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
    return names


def _resolved(dotted: str):
    """The object an allowed module's dotted name (or one attribute past it) stands for, or
    None; only an allowed module is ever imported."""
    if dotted in IMPORTS:
        try:
            return importlib.import_module(dotted)
        except ImportError:   # PyCUDA, where there is no GPU: the learner's import fails too
            return None
    parent, _, last = dotted.rpartition(".")
    if parent not in MODULES:
        return None
    return getattr(_resolved(parent) or sys.modules.get(parent), last, None)


def _import_refused(node) -> tuple | None:
    if isinstance(node, ast.Import):
        wrong = next((a.name for a in node.names if a.name not in IMPORTS), None)
    elif isinstance(node, ast.ImportFrom):
        module = "." * node.level + (node.module or "")
        if module == "__future__" and all(
                a.name in __future__.all_feature_names for a in node.names):
            return None                  # how Python reads the code, nothing it reaches
        wrong = next((f"{module}.{a.name}" if module in IMPORTS else module for a in node.names
                      if not _from_allowed(module, a.name)), None)
    else:
        return None
    return wrong and (f"imports {wrong}, {NO_USE}",
                      f"import only what the exercise needs: {USES}")


def _from_allowed(module: str, name: str) -> bool:
    if f"{module}.{name}" in IMPORTS:
        return True
    if module not in IMPORTS or name in FILES | {"*"} or name not in NAMES_OF.get(module, {name}):
        return False
    found = _resolved(f"{module}.{name}")
    return not isinstance(found, types.ModuleType) or f"{module}.{name}" in MODULES


def _underscore(node, bound: set) -> tuple | None:
    """A name that starts with an underscore, but for a variable, argument or function the code
    binds itself (not ``__``: Python's own): an attribute, or a name read that is not its own,
    would reach into another's insides."""
    name = (node.id if isinstance(node, ast.Name) else node.attr if isinstance(
        node, ast.Attribute) else node.arg if isinstance(node, ast.arg) else node.name if (
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))) else
        node.asname or node.name if isinstance(node, ast.alias) else None)
    if not name or name == "_" or not any(part.startswith("_") for part in name.split(".")):
        return None
    if name in bound and not name.startswith("__") and not isinstance(
            node, (ast.Attribute, ast.alias)):
        return None
    return (f"names {name}: a name that starts with an underscore reaches into Python's or the "
            f"checker's insides, {NO_USE}", "name your own variables without a leading "
            "underscore (a lone _ for a value you throw away is fine)")


def _builtin(node, bound: set, called: set) -> tuple | None:
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            and node.id in vars(builtins) and node.id not in bound | BUILTINS):
        return None
    hint = next((h for names, h in BUILTIN_HINTS.items() if node.id in names), ARRAYS)
    return f"{'calls' if id(node) in called else 'names'} {node.id}, {NO_USE}", hint


def _attribute(node) -> tuple | None:
    if not isinstance(node, ast.Attribute):
        return None
    if not isinstance(node.ctx, ast.Load):
        return (f"sets or deletes {ast.unparse(node)}: an exercise's function changes no "
                "object's attributes (a module's, or the checker's objects it is handed)",
                "keep what you compute in your own variables")
    if node.attr.startswith(WALKS):
        return (f"reads .{node.attr}, which walks Python's frames and code, past the function: "
                f"an exercise's function has no use for it", ARRAYS)
    if node.attr in ("ctypes", "cffi"):
        return (f"reads .{node.attr}, which hands out raw memory addresses: an exercise's "
                "function has no use for them", ARRAYS)
    if node.attr in FILES:
        return (f"calls .{node.attr}, which reads or writes files: an exercise's function has "
                "no use for it",
                f"{ARRAYS}, and return what the exercise asks for")
    return None


def _module_use(node, modules: dict, heads: dict) -> tuple | None:
    """A module named as a value (not as ``module.attr``: ``heads`` holds each attribute's
    object, with its name), or a module reached inside one (``np.ctypeslib``) that is not allowed;
    ``modules``: the names bound to modules."""
    dotted = _module_of(node, modules)
    if dotted is None:
        return None
    text = ast.unparse(node)
    if id(node) in heads and dotted in NAMES_OF:
        return _name_of(node, dotted, heads)
    if dotted not in MODULES:
        return (f"reaches {text}, a module that an exercise's function has no use for",
                f"use only the modules the exercise needs: {USES}")
    if id(node) not in heads:
        return (f"uses the module {text} as a value: a module is for its functions",
                f"call what you need of it where you need it: {text}.something(...)")
    return None


def _name_of(node, dotted: str, heads: dict) -> tuple | None:
    """A name of ``dotted`` (a module of ``NAMES_OF``) read that is not one it hands out."""
    if heads[id(node)] in NAMES_OF[dotted]:
        return None
    return (f"reads {ast.unparse(node)}.{heads[id(node)]}, {NO_USE}",
            f"of {ast.unparse(node)} use only {', '.join(sorted(NAMES_OF[dotted]))}")


def _module_of(node, modules: dict) -> str | None:
    """The dotted name of the module ``node`` (a name read, or an attribute of an allowed
    module) stands for, or None where it stands for no module."""
    if isinstance(node, ast.Name):
        return modules.get(node.id) if isinstance(node.ctx, ast.Load) else None
    if not isinstance(node, ast.Attribute):
        return None
    parent = _module_of(node.value, modules)
    if parent not in MODULES:
        return None
    dotted = f"{parent}.{node.attr}"
    return dotted if isinstance(_resolved(dotted), types.ModuleType) else None


def _format(node) -> tuple | None:
    """``.format`` or ``.format_map`` called on anything but a literal whose fields read no
    attribute and no item: a field such as {0.gi_frame} reads what the code may not name."""
    if not (isinstance(node, ast.Attribute) and node.attr in ("format", "format_map")):
        return None
    literal = node.value.value if isinstance(node.value, ast.Constant) else None
    if isinstance(literal, str) and not any(any(c in (field or "") for c in ".[") or "{" in (
            spec or "") for _, field, spec, _ in _fields(literal)):
        return None
    return (f"calls .{node.attr} on a format whose fields may read attributes, {NO_USE}",
            "write an f-string instead: f\"{x:.2f}\"")


def _fields(literal: str) -> list:
    try:
        return list(string.Formatter().parse(literal))
    except ValueError:
        return [("", ".", "", "")]
