"""The import graph of helpers/, read from the code (every import, those inside functions too):
no circle anywhere, and the simulator's engine below PyCUDA's faces.

helpers/sim/ has PyCUDA's faces on top (driver, compiler, gpuarray, ...), which the notebooks and
PyCUDA code import, and the engine below them in rooms (helpers/sim/__init__.py lists them). An
engine module imports only the ground floor, its own room and the rooms below it, and never a
face: that is what keeps the engine readable from the bottom up. tests/sim/ mirrors the rooms:
every engine module has a test file named after it (tests/README.md, "Where a test lives").
"""

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
HELPERS = TESTS.parent / "helpers"
SIM = "helpers.sim"
FACES = {"driver", "compiler", "gpuarray", "elementwise", "reduction", "scan", "cumath",
         "curandom", "characterize", "tools"}
# The package's own entry points and the `pycuda` shim: above the faces.
ENTRY = {"__init__", "__main__", "as_pycuda", "shim_install", "shim"}
# The engine, from the ground up: a module may import its own room and the rooms before it.
ROOMS = ["ground", "machine", "compile", "microscope", "run", "arrays"]
GROUND = {"errors", "distances", "settings", "unsupported", "c_types"}


def _module_name(path):
    parts = list(path.relative_to(HELPERS.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_name(p): p for p in HELPERS.rglob("*.py")
            if "solutions" not in p.parts and "as_shipped" not in p.parts}


def _imports(name, path, known):
    """The helpers modules that module ``name`` imports anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


@pytest.fixture(scope="module")
def graph():
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def _room(name):
    """The engine room of a helpers.sim module, or None for a face or an entry point."""
    rest = name[len(SIM) + 1:].split(".")
    if rest[0] in GROUND:
        return "ground"
    return rest[0] if rest[0] in ROOMS else None


def test_no_module_of_helpers_is_in_an_import_circle(graph):
    assert _circles(graph) == []


def test_every_simulator_module_is_a_face_an_entry_point_or_in_a_room(graph):
    sim = [n for n in graph if n.startswith(SIM + ".")]
    unplaced = [n for n in sim if _room(n) is None
                and n[len(SIM) + 1:].split(".")[0] not in FACES | ENTRY]
    assert unplaced == []


def test_the_engine_imports_only_its_room_and_the_rooms_below(graph):
    wrong = []
    for name, targets in graph.items():
        room = _room(name) if name.startswith(SIM + ".") else None
        if room is None:
            continue
        for target in targets:
            other = _room(target) if target.startswith(SIM + ".") else None
            if target.startswith("helpers.") and (
                    other is None or ROOMS.index(other) > ROOMS.index(room)):
                wrong.append(f"{name} ({room}) imports {target} ({other or 'a face'})")
    assert wrong == []


def _untested(modules, tests):
    """The engine modules (helpers.sim.<room>.<name>, or helpers.sim.<name> on the ground floor)
    whose test file, tests/sim/[<room>/]test_<name>.py, is not among ``tests``."""
    untested = []
    for name in modules:
        room = _room(name) if name.startswith(SIM + ".") else None
        parts = name[len(SIM) + 1:].split(".")
        if room is None or room != "ground" and len(parts) == 1:  # a face, or a room's package
            continue
        folder = [] if room == "ground" else parts[:-1]
        if "/".join(["sim", *folder, f"test_{parts[-1]}.py"]) not in tests:
            untested.append(name)
    return sorted(untested)


def test_every_engine_module_has_a_test_file_named_after_it(graph):
    tests = {p.relative_to(TESTS).as_posix() for p in (TESTS / "sim").rglob("test_*.py")}
    assert _untested(graph, tests) == []


def test_the_check_finds_an_untested_module():
    modules = [f"{SIM}.errors", f"{SIM}.machine.stacks", f"{SIM}.machine", f"{SIM}.driver"]
    assert _untested(modules, {"sim/test_errors.py"}) == [f"{SIM}.machine.stacks"]


def test_the_check_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
