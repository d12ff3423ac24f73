"""The checkers against one-token mistakes: each kernel exercise's solution, changed by one token
on a line the learner writes, run through its checker; a mutant it passes is a mistake it cannot
see, or a change that computes the same (which only a reader can tell).

    python tools/mutants.py [names ...] [--more] [--show]

The lines a learner writes are those where the stub differs from its solution
(``cuda_src/exercises/<name>.cu`` against ``cuda_src/solutions/<name>.cu``). On each, every match
of an operator of ``OPERATORS`` (``--more`` adds ``MORE``: types, constants, neighbours, a line
left out) gives one mutant, which the exercise's checker runs on the simulator as a learner's
file (``KernelExercise.check_file``). Printed for each exercise: the mutants, how many do not
compile, how many the checker sends back (NOT YET), how many pass (PASS or FAST), and how many
made the checker raise, which is a bug in it; then each passing or raising mutant, its line
before and after (``--show``: with its verdict). Exit status 1 when a checker raised.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import re
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # the repository: helpers

from helpers.exercises import catalog  # noqa: E402
from helpers.sim.settings import settings  # noqa: E402

OPERATORS = [(r"<=", "<"), (r"(?<![<>=!])<(?![<=])", "<="), (r">=", ">"),
             (r"(?<![<>=-])>(?![>=])", ">="), (r"\.x\b", ".y"), (r"\.y\b", ".x"),
             (r"\bblockIdx\b", "threadIdx"), (r"\bthreadIdx\b", "blockIdx"),
             (r"\bblockDim\b", "gridDim"), (r"&&", "||"), (r"\|\|", "&&"),
             (r"(?<![+\-*/<>=!&|^%])=(?!=)", "+="), (r" \+ 1\b", ""), (r" - 1\b", ""),
             (r"\b(\d+)\b", "{n+1}"), (r"\b([1-9]\d*)\b", "{n-1}"), (r" \* ", " + "),
             (r" - ", " + "), (r" \+ ", " - "), (r"__syncthreads\(\);", ""),
             (r"__syncwarp\(\);", ""), (r"\breturn;", ";"), (r"\bcontinue;", ";"),
             (r"\+\+", "--"), (r"\+= ", "-= ")]
"""(pattern, replacement) of the one-token changes; {n+1} and {n-1} change a number (64 or
less) by one."""
MORE = [(r"\bfloat (?=\w+ *[=;])", "int "), (r"\b0\.0f\b", "1.0f"), (r"-INFINITY", "0.0f"),
        (r"\[(\w+)\]", "[{w} + 1]"), (r" / ", " * "), (r"\bthreadIdx\.x\b", "threadIdx.x + 1"),
        (r"\bunsigned int\b", "int"), (r"\bsize_t\b", "int"), (r"\bmin\(", "max("),
        (r"\bfminf\(", "fmaxf(")]
"""``--more``: a type, a constant, a neighbour's element, a division, a bound; and each
statement of a learner's line left out."""


def learner_lines(solution: str, stub: str) -> list[int]:
    """The indices of the solution's lines that the stub does not have as they are."""
    matcher = difflib.SequenceMatcher(a=stub.splitlines(), b=solution.splitlines(),
                                      autojunk=False)
    return sorted(j for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("replace", "insert")
                  for j in range(j1, j2))


def _replacements(match, replacement):
    if replacement == "{n+1}":
        return [str(int(match.group(1)) + 1)] if int(match.group(1)) <= 64 else []
    if replacement == "{n-1}":
        return [str(int(match.group(1)) - 1)] if int(match.group(1)) <= 64 else []
    return [replacement.replace("{w}", match.group(1)) if "{w}" in replacement else replacement]


def mutants(solution: str, stub: str, more: bool = False):
    """``(line number, the line, the changed line, the changed source)`` of every one-token
    change of the learner's lines (each source once)."""
    lines, seen = solution.splitlines(), set()
    for j in learner_lines(solution, stub):
        code, comment = re.match(r"(.*?)(\s*//.*)?$", lines[j]).groups()
        if not code.strip():
            continue
        changed = []
        if more and code.strip().endswith(";") and not re.match(
                r"\s*(return|int |float |const |unsigned |__shared__)", code):
            changed.append("")   # the statement left out
        for pattern, replacement in OPERATORS + (MORE if more else []):
            for match in re.finditer(pattern, code):
                changed += [code[:match.start()] + r + code[match.end():]
                            for r in _replacements(match, replacement)]
        for new in changed:
            text = "\n".join(lines[:j] + ([new + (comment or "")] if new else [])
                             + lines[j + 1:]) + "\n"
            if new != code and text not in seen:
                seen.add(text)
                yield j + 1, code.strip(), new.strip() or "(left out)", text


def check(name: str, path: Path):
    """``(outcome, verdict line)`` of the exercise's checker on the file ``path``: outcome
    "compile" (it does not compile), "not yet", "pass" or "raised" (a bug in the checker)."""
    module = __import__(f"helpers.exercises.{name}", fromlist=["EXERCISE"])
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            verdict = module.EXERCISE.check_file(str(path))
    except Exception:   # noqa: BLE001 - a checker must never raise: this is what is reported
        return "raised", traceback.format_exc(limit=-3).strip().splitlines()[-1]
    outcome = "pass" if verdict.passed else "compile" if verdict.error else "not yet"
    return outcome, str(verdict)


def exercise_names() -> list[str]:
    return [e.name for e in catalog.EXERCISES if e.work.endswith(".cu")
            and (ROOT / "cuda_src" / "solutions" / f"{e.name}.cu").is_file()]


def audit(name: str, folder: Path, more: bool = False) -> list[tuple]:
    """``(line, before, after, outcome, verdict)`` of each mutant of exercise ``name``."""
    solution = (ROOT / "cuda_src" / "solutions" / f"{name}.cu").read_text()
    stub = (ROOT / "cuda_src" / "exercises" / f"{name}.cu").read_text()
    found = []
    for k, (line, before, after, text) in enumerate(mutants(solution, stub, more)):
        path = folder / f"{name}_mutant{k}.cu"
        path.write_text(text)
        found.append((line, before, after, *check(name, path)))
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="exercises (default: every kernel exercise)")
    parser.add_argument("--more", action="store_true", help="more kinds of change (MORE)")
    parser.add_argument("--show", action="store_true", help="print each listed mutant's verdict")
    parser.add_argument("--time-limit", type=float, default=2.0,
                        help="seconds a launch may run before it counts as endless (default 2)")
    args = parser.parse_args(argv)
    raised = False
    print(f"{'exercise':20} {'mutants':>7} {'no compile':>10} {'not yet':>7} {'pass':>5} "
          f"{'raised':>6}")
    with tempfile.TemporaryDirectory(prefix="mutants-") as folder, \
            settings.changed(time_limit=args.time_limit):
        for name in args.names or exercise_names():
            found = audit(name, Path(folder), args.more)
            count = {o: sum(f[3] == o for f in found) for o in ("compile", "not yet", "pass",
                                                                 "raised")}
            print(f"{name:20} {len(found):7} {count['compile']:10} {count['not yet']:7} "
                  f"{count['pass']:5} {count['raised']:6}")
            for line, before, after, outcome, verdict in found:
                if outcome in ("pass", "raised"):
                    print(f"    {outcome}: line {line}: {before}  ->  {after}")
                    if args.show or outcome == "raised":
                        print(f"        {verdict}")
            raised |= count["raised"] > 0
    return 1 if raised else 0


if __name__ == "__main__":
    sys.exit(main())
