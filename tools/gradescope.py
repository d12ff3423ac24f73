#!/usr/bin/env python3
"""A Gradescope autograder for the course: the checkers, on the simulator, in Gradescope's
container (which has no GPU).

    python tools/gradescope.py build gradescope.zip [--points points.json] [--time-limit 60]
    python tools/gradescope.py run [--root /autograder]      # what run_autograder does

``build`` writes the zip Gradescope's "Configure Autograder" page takes: at its top
``setup.sh`` (run once to build the image: the course's ``apt.txt``, g++ and binutils for the
simulator, and bubblewrap for the checkers' sandbox, from apt, then the course and its Python
dependencies with pip) and
``run_autograder``; and ``course/``, the student release (no solutions:
``tools/student_release.py``) with ``gradescope.json``, the points and limits given here.

``run`` is what ``run_autograder`` starts, in Gradescope's layout under ``--root`` (or
``AUTOGRADER_ROOT``; by default ``/autograder``): it collects the student's files from
``submission/`` (at their paths in the release, or uploaded loose: ``tools/collect.py``), runs
every checker on them as ``tools/grade.py`` does (each in a process of its own, with its
limits), and writes ``results/results.json``: the ``score``, the ``max_score``, and a test an
exercise with its ``name``, ``score``, ``max_score``, ``status`` and ``output`` (the student's
feedback for it, as Markdown: ``tools/feedback.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import collect
import feedback
import grade
import gradebook
import student_release

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = "gradescope.json"
"""The bundle's settings, in its ``course/``: ``points`` by exercise and the checkers' limits."""

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the autograder's image (Ubuntu 22.04 or newer).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
# the simulator's compiler and linker, as apt.txt lists them for Binder (g++, binutils), and
# bubblewrap, the checkers' sandbox (tools/sandbox.py)
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap \
    $(cat /autograder/source/course/apt.txt)
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
/autograder/venv/bin/pip install -e /autograder/source/course
cd /autograder/source/course && CUDA_COURSE_BACKEND=simulator /autograder/venv/bin/python -m helpers.doctor
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission: the checkers on the simulator, then
# results/results.json. AUTOGRADER_ROOT and AUTOGRADER_PYTHON stand in for /autograder and its
# venv where the autograder is tried outside Gradescope.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
cd "$root/source/course"
CUDA_COURSE_BACKEND=simulator exec "${AUTOGRADER_PYTHON:-/autograder/venv/bin/python}" \\
    tools/gradescope.py run --root "$root"
"""


def build(out: Path, points: dict[str, float], limits: grade.Limits) -> Path:
    """Write the autograder's zip to ``out``; return it."""
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        student_release.release(course)
        settings = {"points": points, "time_limit": limits.seconds,
                    "memory_limit": limits.memory_mb, "output_limit": limits.output_kb}
        (course / SETTINGS).write_text(json.dumps(settings, indent=1) + "\n")
        part = out.with_name(out.name + ".part")
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as bundle:
            for name, text in (("setup.sh", SETUP), ("run_autograder", RUN)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o100755 << 16  # a regular file, executable
                bundle.writestr(info, text)
            for path in sorted(p for p in course.rglob("*") if p.is_file()):
                bundle.write(path, path.relative_to(tmp).as_posix())
        os.replace(part, out)
    return out


def run(root: Path) -> dict:
    """Grade ``root/submission`` as the bundle's settings say; write and return the results."""
    if not (ROOT / SETTINGS).is_file():
        raise SystemExit(f"{ROOT / SETTINGS} is missing: run this from the course/ of a bundle "
                         "that `tools/gradescope.py build` wrote")
    settings = json.loads((ROOT / SETTINGS).read_text())
    limits = grade.Limits(settings["time_limit"], settings["memory_limit"],
                          settings["output_limit"])
    with tempfile.TemporaryDirectory() as tmp:
        student = Path(tmp) / "submissions" / "student"
        student.mkdir(parents=True)
        collect.collect_student(root / "submission", student)
        rows = grade.grade_class(student.parent, Path(tmp) / "grades.csv", limits,
                                 points=settings["points"])
    results = results_json(rows)
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / "results.json.part"
    part.write_text(json.dumps(results, indent=1))
    os.replace(part, folder / "results.json")
    return results


def results_json(rows: list[dict]) -> dict:
    """Gradescope's results of one student's scored rows."""
    score, max_score = feedback.total(rows)
    tests = [{"name": f"{row['exercise']} ({feedback.notebook(row)})",
              "score": float(row["score"]), "max_score": float(row["max_score"]),
              "status": "passed" if row["status"] in gradebook.PASSING else "failed",
              "output": f"**{feedback.TITLES[row['status']]}**\n\n"
                        + feedback.exercise_markdown(row),
              "output_format": "md"} for row in rows]
    passed = sum(row["status"] in gradebook.PASSING for row in rows)
    return {"score": float(score), "max_score": float(max_score),
            "output": f"{passed} of {len(rows)} exercises passed, on the course's CPU simulator "
                      "(no GPU here: the speed tier reads the simulator's trace, not a timing).",
            "tests": tests}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="write the autograder's zip")
    make.add_argument("out", type=Path, nargs="?", default=Path("gradescope.zip"))
    make.add_argument("--points", type=Path, help="points by exercise (.json or .toml)")
    make.add_argument("--time-limit", type=float, default=60, help="seconds per checker")
    make.add_argument("--memory-limit", type=int, default=2048, help="MB per checker")
    make.add_argument("--output-limit", type=int, default=256, help="KB printed per checker")
    grading = commands.add_parser("run", help="grade a submission (run_autograder)")
    grading.add_argument("--root", type=Path,
                         default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
    args = parser.parse_args(argv)
    if args.command == "run":
        results = run(args.root)
        print(f"score {results['score']:g} of {results['max_score']:g}")
        return 0
    limits = grade.Limits(args.time_limit, args.memory_limit, args.output_limit)
    build(args.out, gradebook.load_points(args.points), limits)
    print(f"wrote {args.out}: upload it on Gradescope's Configure Autograder page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
