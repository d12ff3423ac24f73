"""The grader's draws against the reference solutions: each exercise's solution through its
checker on the grader's hidden cases of every seed in a range (``catalog.check(..., hidden=seed)``,
as ``tools/grade.py --seed`` runs a class), on this machine's backend. A solution sent back is a
bug of the checker: a detector that fires on a right kernel, a tolerance that some draw breaks.
``tests/exercises/test_hidden.py`` runs one seed; this runs as many as asked.

    python tools/grader_draws.py [NAME ...] [--seeds 0:100]
    CUDA_COURSE_BACKEND=pycuda python tools/grader_draws.py --seeds 0:40     # on a GPU

Prints a line an exercise: how many seeds its solution failed, then the first few with their
verdicts. Exit status 1 where any failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import catalog  # noqa: E402

SHOWN = 3   # failed seeds printed an exercise


def hold_solution(exercise: catalog.Exercise, root: Path) -> None:
    """Put ``exercise``'s reference solution in the course copy ``root`` where the learner's work
    goes: a .cu file as a link to cuda_src/solutions/ (its module's #line then names that file, so
    a cached build of the solution serves), another file copied, a function as the one cell of a
    notebook."""
    work = root / exercise.work
    work.parent.mkdir(parents=True, exist_ok=True)
    if exercise.function:
        text = (ROOT / "helpers" / "exercises" / "solutions" / f"{exercise.name}.py").read_text()
        cell = {"cell_type": "code", "source": text[text.index(f"def {exercise.function}("):],
                "metadata": {}, "outputs": [], "execution_count": None}
        work.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                    "nbformat_minor": 5}))
    elif work.suffix == ".cu":
        work.symlink_to(ROOT / "cuda_src" / "solutions" / work.name)
    else:
        solutions = "opencl/solutions" if work.suffix == ".cl" else "solutions"
        work.write_text((ROOT / "cuda_src" / solutions / work.name).read_text())


def failed_draws(exercise: catalog.Exercise, seeds) -> list:
    """[(seed, verdict)] for each seed of ``seeds`` whose draws the solution did not pass."""
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        hold_solution(exercise, root)
        for seed in seeds:
            with contextlib.redirect_stdout(io.StringIO()):
                verdict = catalog.check(exercise, root, hidden=seed)
            if not verdict.passed:
                failed.append((seed, verdict))
    return failed


def seed_range(text: str) -> range:
    start, _, stop = text.partition(":")
    return range(int(start), int(stop)) if stop else range(int(start), int(start) + 1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="exercises (default: every one)")
    parser.add_argument("--seeds", type=seed_range, default=range(0, 20),
                        help="START:STOP, or one seed (default 0:20)")
    args = parser.parse_args(argv)
    exercises = [catalog.find(name) for name in args.names] or catalog.EXERCISES
    failures = 0
    for exercise in exercises:
        start = time.perf_counter()
        failed = failed_draws(exercise, args.seeds)
        failures += len(failed)
        print(f"{exercise.name:18} {len(failed)} of {len(args.seeds)} seeds failed "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
        for seed, verdict in failed[:SHOWN]:
            print(f"    seed {seed}: {verdict}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
