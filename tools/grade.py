#!/usr/bin/env python3
"""Grade a class: run every exercise's checker on every student's submission.

    python tools/grade.py SUBMISSIONS [--out grades.csv] [--time-limit 120] [--memory-limit 2048]
                                     [--seed N]

SUBMISSIONS holds one folder a student, named after them, with their copy of the course's
``cuda_src/exercises/`` (and ``notebooks/05_pinned_memory_and_streams.ipynb`` and
``notebooks/11_multiple_gpus.ipynb`` for the exercises written in a notebook cell). For each student and each exercise the checker
runs in a process of its own, with a time limit, a memory limit (resident memory, checked ten
times a second) and a limit on what it prints; a submission that hangs, crashes, eats memory or
floods its output fails that exercise alone, and grading goes on. An exercise whose work is not in
the submission fails as "not handed in", and one whose stub is still as shipped as "not started",
both without running.

Writes a CSV (student, exercise, result, problem, hint, seconds), each checker's printed output
into a folder beside it (``grades.logs/<student>/<exercise>.txt``), and prints a summary.

Each checker runs the cases its exercise ships with and more that it draws from a seed the
grader picks each run (printed; ``--seed`` runs the same again), so that a kernel tuned to the
shipped sizes fails (helpers/exercises/hidden.py).

The kernels are the students' native code, compiled and run on this machine (on the simulator,
as a shared library inside the checker's process), and notebooks 05 and 11 run their Python: each
checker runs in a sandbox (tools/sandbox.py: no network, the file system read-only but for its
scratch folder, no process left behind) where bubblewrap is installed, and the grader warns
where it is not (README, "For instructors").
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import catalog  # noqa: E402 - after the path is set
from tools import sandbox  # noqa: E402

FIELDS = ["student", "exercise", "result", "problem", "hint", "seconds"]


def check_one(student_dir: str, name: str, result_path: str, seed: str) -> None:
    """In the child process: run one checker on one submission (with the hidden cases of
    ``seed``), write its verdict as JSON."""
    verdict = catalog.check(catalog.find(name), Path(student_dir), hidden=int(seed))
    data = {"passed": verdict.passed, "problem": verdict.problem, "hint": verdict.hint}
    part = Path(result_path + ".part")
    part.write_text(json.dumps(data))
    os.replace(part, result_path)


class Limits:
    """How each checker runs: its limits, and the seed of its hidden cases (drawn when not
    given)."""

    def __init__(self, seconds: float, memory_mb: int, output_kb: int, seed: int | None = None):
        self.seconds, self.memory_mb, self.output_kb = seconds, memory_mb, output_kb
        self.seed = secrets.randbelow(1 << 31) if seed is None else seed


class _OutputKeeper(threading.Thread):
    """Reads a child's output, keeps the first ``cap`` bytes, counts the rest."""

    def __init__(self, stream, cap: int):
        super().__init__(daemon=True)
        self.stream, self.cap, self.kept, self.total = stream, cap, bytearray(), 0

    def run(self):
        for chunk in iter(lambda: self.stream.read1(65536), b""):
            self.total += len(chunk)
            room = self.cap - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]


def _no_core_dumps():
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_child(student_dir: Path, name: str, limits: Limits, workdir: Path):
    """Run one checker in its own process group, sandboxed, with a scratch folder of its own;
    kill whatever it leaves behind; ``(verdict dict or None, why it stopped, output bytes kept,
    seconds)``."""
    scratch = workdir / f"{student_dir.name}-{name}"
    scratch.mkdir(mode=0o700)
    result = scratch / "verdict.json"
    command, env = sandbox.command(
        [sys.executable, str(Path(__file__).resolve()), "--one", str(student_dir), name,
         str(result), str(limits.seed)], student_dir, scratch)
    start = time.monotonic()
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True, preexec_fn=_no_core_dumps)
    output = _OutputKeeper(child.stdout, limits.output_kb * 1024)
    output.start()
    stopped = _watch(child, output, limits, start)
    sandbox.end(child.pid)
    output.join(timeout=5)
    verdict = json.loads(result.read_text()) if result.is_file() else None
    shutil.rmtree(scratch, ignore_errors=True)
    return verdict, stopped, bytes(output.kept), time.monotonic() - start


def _watch(child, output, limits: Limits, start: float) -> str | None:
    """Wait for the child; kill its process group at a limit and say which limit it was."""
    stopped = None
    while child.poll() is None:
        if time.monotonic() - start > limits.seconds:
            stopped = f"ran longer than the time limit of {limits.seconds:g} s (an endless loop?)"
        elif sandbox.resident_mb(child.pid) > limits.memory_mb:
            stopped = f"used more than the memory limit of {limits.memory_mb} MB"
        else:
            stopped = _flooded(output, limits)
        if stopped:
            sandbox.end(child.pid)
            child.wait()
            break
        time.sleep(0.1)
    return stopped or _flooded(output, limits, wait=True)


def _flooded(output, limits: Limits, wait=False) -> str | None:
    if wait:
        output.join(timeout=5)
    if output.total > limits.output_kb * 1024:
        return f"printed more than the output limit of {limits.output_kb} KB (a printf in a loop?)"
    return None


def grade(student_dir: Path, exercise, limits: Limits, workdir: Path, logs: Path) -> dict:
    """One row of the CSV."""
    row = {"student": student_dir.name, "exercise": exercise.name, "seconds": "0.0"}
    if not (student_dir / exercise.work).is_file():
        return {**row, "result": "fail", "problem": f"not handed in: {exercise.work} is missing "
                "from the submission", "hint": f"hand in {exercise.work}"}
    if catalog.learner_work(exercise, student_dir) is not None \
            and not catalog.started(exercise, student_dir):
        return {**row, "result": "fail", "problem": "not started: the stub is as shipped",
                "hint": f"edit {exercise.work}"}
    verdict, stopped, output, seconds = run_child(student_dir, exercise.name, limits, workdir)
    (logs / student_dir.name).mkdir(parents=True, exist_ok=True)
    (logs / student_dir.name / f"{exercise.name}.txt").write_bytes(output)
    row["seconds"] = f"{seconds:.1f}"
    if stopped:
        return {**row, "result": "fail", "problem": f"the checker was stopped: it {stopped}",
                "hint": "run the checker in the notebook to see where it goes wrong"}
    if verdict is None:
        return {**row, "result": "fail", "problem": _crash_text(output),
                "hint": "the kernel crashed the process: look for a write far outside an "
                        "array, or a call the course does not support"}
    return {**row, "result": "pass" if verdict["passed"] else "fail",
            "problem": verdict["problem"], "hint": verdict["hint"]}


def _crash_text(output: bytes) -> str:
    lines = [line for line in output.decode(errors="replace").splitlines() if line.strip()]
    last = lines[-1][:300] if lines else "no output"
    return f"the checker's process died without a verdict (last line printed: {last})"


def grade_class(submissions: Path, out: Path, limits: Limits, names=None) -> list[dict]:
    """Grade every student folder of ``submissions``; write the CSV; return its rows."""
    students = sorted(p for p in submissions.iterdir() if p.is_dir())
    if not students:
        raise SystemExit(f"{submissions} holds no student folders (one folder a student, "
                         "each with its cuda_src/exercises/)")
    exercises = [catalog.find(n) for n in names] if names else catalog.EXERCISES
    logs = out.with_suffix(".logs")
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for student in students:
            for exercise in exercises:
                rows.append(grade(student, exercise, limits, Path(workdir), logs))
                print(f"{student.name:<20} {exercise.name:<13} {rows[-1]['result']}", flush=True)
    part = out.with_name(out.name + ".part")
    with open(part, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    os.replace(part, out)
    return rows


def summary(rows: list[dict]) -> str:
    """Passes by exercise and by student, as printed at the end."""
    lines = ["", "passed, by exercise:"]
    for name in dict.fromkeys(r["exercise"] for r in rows):
        mine = [r for r in rows if r["exercise"] == name]
        lines.append(f"  {name:<13} {sum(r['result'] == 'pass' for r in mine)} of {len(mine)}")
    lines.append("passed, by student:")
    for name in dict.fromkeys(r["student"] for r in rows):
        mine = [r for r in rows if r["student"] == name]
        lines.append(f"  {name:<20} {sum(r['result'] == 'pass' for r in mine)} of {len(mine)}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path, nargs="?")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"))
    parser.add_argument("--time-limit", type=float, default=120, help="seconds per checker")
    parser.add_argument("--memory-limit", type=int, default=2048, help="MB per checker")
    parser.add_argument("--output-limit", type=int, default=256, help="KB printed per checker")
    parser.add_argument("--exercise", action="append", help="only this one (repeatable)")
    parser.add_argument("--seed", type=int, help="of the hidden cases (default: a new one)")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # the child's entry
    args = parser.parse_args(argv)
    if args.one:
        check_one(*args.one)
        return 0
    if args.submissions is None or not args.submissions.is_dir():
        parser.error("give the folder of submissions (one folder a student)")
    limits = Limits(args.time_limit, args.memory_limit, args.output_limit, args.seed)
    print(sandbox.warning() or "each checker runs sandboxed by bubblewrap", flush=True)
    print(f"hidden cases: seed {limits.seed} (--seed {limits.seed} grades with the same again)",
          flush=True)
    rows = grade_class(args.submissions, args.out, limits, args.exercise)
    print(summary(rows))
    print(f"\nwrote {args.out} and the checkers' output in {args.out.with_suffix('.logs')}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
