"""List the Python modules over about 400 lines and the functions over about 60: the house's size
rules (small functions, no module a reader cannot hold in their head).

    python tools/sizes.py [--module-lines 400] [--function-lines 60] [PATH ...]

PATHs default to bench/, helpers/, tools/ and tests/. A function's length runs from its ``def``
(or its first decorator) to its last line, docstring included; a nested function counts within
its parent and on its own. Prints ``path:function:first-last (lines)``; exit status 0 either way.
``tests/tools/test_sizes.py`` holds the course's own tree to the defaults.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = ("bench", "helpers", "tools", "tests")


def python_files(paths):
    for path in paths:
        path = Path(path)
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def long_functions(tree, limit):
    """(qualified name, first line, last line) of each function longer than limit lines."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    if child.end_lineno - first + 1 > limit:
                        found.append((name, first, child.end_lineno))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def oversized(paths, module_lines=400, function_lines=60):
    """The lines ``main`` prints: each module over ``module_lines`` and function over
    ``function_lines`` under ``paths``."""
    found = []
    for path in python_files(paths):
        text = path.read_text()
        shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
        lines = text.count("\n")
        if lines > module_lines:
            found.append(f"{shown}: module, {lines} lines")
        found += [f"{shown}:{name}:{first}-{last} ({last - first + 1} lines)"
                  for name, first, last in long_functions(ast.parse(text), function_lines)]
    return found


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="*", default=[ROOT / d for d in DEFAULT_PATHS])
    p.add_argument("--module-lines", type=int, default=400)
    p.add_argument("--function-lines", type=int, default=60)
    a = p.parse_args(argv)
    for line in oversized(a.paths, a.module_lines, a.function_lines):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
