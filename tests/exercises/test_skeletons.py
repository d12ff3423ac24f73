"""The skeleton rule: solving an exercise changes its stub only where the stub says TODO.

A learner who reads a stub should find every place to change marked, and nothing the solution
needs hidden elsewhere. So after the stub's leading comment block (what to do; the solution's
says "Solution:" and explains), the stub and its solution are equal line for line, except on
the stub's TODO lines: a line that carries ``TODO``, and the comment lines that continue a TODO
comment. The solution may replace such a line, delete it, or add lines right after it (or after
the lines that replaced it). Nothing else differs: a stub line without TODO is in the solution,
in the same order, with the same text (trailing spaces aside).

A bug hunt (notebook 09) cannot mark its lines without giving the bugs away: a stub with no TODO
at all is one, and the rule runs the other way round, its solution marking each fixed line with
``FIX`` in a comment (the stub may replace, drop or follow those lines, nothing else).

For a Python exercise the stub is the notebook's cell (its as-shipped copy) and the solution the
function of the same name in ``helpers/exercises/solutions/``; the leading block there is the
comments or docstring after the ``def`` line, and the imports of what the notebook's first cell
gives the cell.

The stubs are also compiled as shipped: by nvcc, as ``tests/kernels/test_nvcc.py`` compiles
every ``.cu`` (skipped where nvcc is absent, except under CI), and on the simulator (the OpenCL
stub on the OpenCL platform the chapter chooses), so that a learner starts from code that builds.
"""

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from helpers.exercises.catalog import AS_SHIPPED, EXERCISES, Exercise
from kernel_sources import nvcc_verdict

ROOT = Path(__file__).resolve().parents[2]
KERNELS = [e for e in EXERCISES if e.is_kernel]
CUDA = [e for e in KERNELS if e.work.endswith(".cu")]


@dataclasses.dataclass(frozen=True)
class Text:
    """A file's lines after its leading block, each with its line number in the file, and what
    starts a comment line in its language."""

    name: str
    lines: list  # [(number, text), ...]
    comment: str = "//"

    def is_comment(self, line: str) -> bool:
        return line.lstrip().startswith(self.comment)


def kernel_body(path: Path) -> Text:
    """A stub file's lines after its leading block of comment lines and blank lines (a kernel's
    comments start with //, a Python file's with #)."""
    lines = path.read_text().splitlines()
    comment = "#" if path.suffix == ".py" else "//"
    start = next((k for k, line in enumerate(lines)
                  if line.strip() and not line.lstrip().startswith(comment)), len(lines))
    return Text(str(path.relative_to(ROOT)), [(k + 1, lines[k]) for k in range(start, len(lines))],
                comment)


_IMPORT = re.compile(r"\s*(from \S+ )?import ")


def function_body(text: str, function: str, name: str) -> Text:
    """The ``def function(`` line and the lines after its leading block (comments, a docstring,
    imports, blank lines), of a cell or a module."""
    lines = text.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith(f"def {function}("))
    k, in_docstring = first + 1, False
    while k < len(lines):
        line = lines[k].strip()
        quotes = line.count('"""')
        if in_docstring or quotes:
            in_docstring = in_docstring != (quotes % 2 == 1)
        elif line and not line.startswith("#") and not _IMPORT.match(line):
            break
        k += 1
    body = [first] + list(range(k, len(lines)))
    return Text(name, [(n + 1, lines[n]) for n in body], comment="#")


def marked(text: Text, word: str) -> list:
    """For each line of ``text``, whether it is marked: it carries ``word``, or it is a comment
    line that continues a marked comment line."""
    marks, comment_marked = [], False
    for _, line in text.lines:
        is_comment = text.is_comment(line)
        mark = word in line or (is_comment and comment_marked)
        comment_marked = is_comment and mark
        marks.append(mark)
    return marks


def skeleton_mismatch(marked_text: Text, other: Text, word: str) -> str | None:
    """None when ``other`` equals ``marked_text`` outside the lines marked with ``word`` (each a
    place where any lines may stand instead, or after it); else a sentence naming the first line
    that breaks the rule."""
    pattern, text = marked_text.lines, other.lines
    marks = marked(marked_text, word)
    # reach[i] = the positions j of text that can stand after pattern's first i lines
    reach = [{0}] + [set() for _ in pattern]
    for i, (_, line) in enumerate(pattern):
        if marks[i]:
            first = min(reach[i], default=len(text) + 1)
            reach[i + 1] = set(range(first, len(text) + 1))
        else:
            reach[i + 1] = {j + 1 for j in reach[i]
                            if j < len(text) and text[j][1].rstrip() == line.rstrip()}
        if not reach[i + 1]:
            return _first_offence(marked_text, other, i, reach[i], word)
    if len(text) in reach[-1]:
        return None
    number, line = text[max(reach[-1])]
    return (f"{other.name} line {number} ({line.strip()!r}) stands after the last line of "
            f"{marked_text.name}, which carries no {word}: only lines right after a {word} line "
            "may be added")


def _first_offence(marked_text, other, i, reach, word):
    number, line = marked_text.lines[i]
    j = min(reach)
    if j == len(other.lines):
        there = "it has ended"
    elif len(reach) == 1:
        there = f"line {other.lines[j][0]} is {other.lines[j][1].strip()!r}"
    else:
        there = f"nowhere from line {other.lines[j][0]}, after the {word} lines, on"
    return (f"{marked_text.name} line {number} ({line.strip()!r}) carries no {word}, but it is "
            f"not in {other.name} where it should be ({there}): outside the {word} lines, a stub "
            "and its solution are equal line for line")


def stub_and_solution(exercise: Exercise) -> tuple[Text, Text]:
    if exercise.is_kernel:
        return (kernel_body(ROOT / exercise.work),
                kernel_body(ROOT / exercise.work.replace("/exercises/", "/solutions/")))
    solution = ROOT / "helpers" / "exercises" / "solutions" / f"{exercise.name}.py"
    return (function_body((AS_SHIPPED / f"{exercise.name}.py").read_text(), exercise.function,
                          f"the as-shipped cell of {exercise.name}"),
            function_body(solution.read_text(), exercise.function,
                          str(solution.relative_to(ROOT))))


def rule_broken(stub: Text, solution: Text) -> str | None:
    if any(marked(stub, "TODO")):
        return skeleton_mismatch(stub, solution, "TODO")
    return skeleton_mismatch(solution, stub, "FIX")


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.name for e in EXERCISES])
def test_a_stub_differs_from_its_solution_only_on_its_todo_lines(exercise):
    stub, solution = stub_and_solution(exercise)
    assert stub.lines and solution.lines
    broken = rule_broken(stub, solution)
    assert broken is None, broken


def _text(name, source):
    return Text(name, list(enumerate(source.strip("\n").splitlines(), start=1)))


STUB = """
int f(int x)
{
    int y = 0;   // TODO: y = x * x
    return y;
}
"""


@pytest.mark.parametrize("solution", [
    "int f(int x)\n{\n    int y = x * x;\n    return y;\n}",                 # replaced
    "int f(int x)\n{\n    int y = 0;   // TODO: y = x * x\n    y = x * x;\n    return y;\n}",
    "int f(int x)\n{\n    int y = x;\n    y *= x;\n    return y;\n}",        # replaced by two
    "int f(int x)\n{\n    return y;\n}",                                  # deleted
])
def test_the_rule_lets_a_todo_line_be_replaced_or_followed(solution):
    assert rule_broken(_text("stub", STUB), _text("solution", solution)) is None


@pytest.mark.parametrize("solution, line", [
    ("int f(int x)\n{\n    int y = x * x;\n    return y + 0;\n}", "line 4 ('return y;')"),
    ("int f(int x)\n{\n    int y = x * x;\n}", "line 4 ('return y;')"),
    ("int f(int x)\n{\n    int y = x * x;\n    return y;\n}\nint g;", "line 6 ('int g;')"),
    ("int f(int x)\nint z;\n{\n    int y = x * x;\n    return y;\n}", "line 2 ('{')"),
])
def test_the_rule_names_the_first_line_that_breaks_it(solution, line):
    broken = rule_broken(_text("stub", STUB), _text("solution", solution))
    assert broken and line in broken, broken


def test_a_todo_comment_goes_on_over_its_comment_lines_only():
    text = _text("stub", "// TODO: do it\n//   like this\n#define N 2\nint x;\n// not this\n")
    assert marked(text, "TODO") == [True, True, False, False, False]


def test_a_stub_without_todo_is_a_bug_hunt_whose_solution_marks_its_fixes():
    stub = _text("stub", "int f(int x)\n{\n    return x + 1;\n}")
    assert rule_broken(stub, _text("solution", "int f(int x)\n{\n    return x;  // FIX\n}")) is None
    broken = rule_broken(stub, _text("solution", "int f(int x)\n{\n    return x;\n}"))
    assert broken and "solution line 3 ('return x;') carries no FIX" in broken, broken


# ---- every stub builds as shipped ---------------------------------------------------------------

@pytest.mark.parametrize("exercise", CUDA, ids=[e.name for e in CUDA])
def test_the_stub_compiles_with_nvcc(exercise, nvcc, accepted, tmp_path):
    from helpers.backend import read_cu

    name = exercise.work.removeprefix("cuda_src/")
    text = read_cu(name)   # wrapped as SourceModule wraps it, unless it says extern "C" itself
    said = nvcc_verdict(nvcc, accepted, text if says_extern_c(exercise) else
                        'extern "C" {\n%s\n}\n' % text, tmp_path)
    assert said is None, f"nvcc rejects the stub {exercise.work}:\n{said}"


@pytest.mark.parametrize("exercise", KERNELS, ids=[e.name for e in KERNELS])
def test_the_stub_compiles_on_the_simulator(exercise):
    if exercise.work.endswith(".py"):          # a Python file of its own (notebook 11's)
        path = ROOT / exercise.work
        assert compile(path.read_text(), str(path), "exec") is not None
        return
    if exercise.work.endswith(".cl"):
        from helpers.ch12 import opencl

        platform, _ = opencl.choose_platform()
        source = opencl.read_cl(exercise.work.removeprefix("cuda_src/opencl/"))
        assert opencl.build_source(opencl.context(platform), source) is not None
        return
    from helpers.backend import read_cu
    from helpers.sim.compiler import SourceModule

    assert SourceModule(read_cu(exercise.work.removeprefix("cuda_src/")),
                        no_extern_c=says_extern_c(exercise)) is not None


def says_extern_c(exercise):
    """The stub includes a C++ header (cuda_fp16.h, mma.h) and declares its kernel extern "C"
    itself: its checker compiles it with no_extern_c=True (KernelExercise.no_extern_c)."""
    module = importlib.import_module(f"helpers.exercises.{exercise.name}")
    return module.EXERCISE.no_extern_c
