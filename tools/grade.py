#!/usr/bin/env python3
"""Grade a class: run every exercise's checker on every student's submission.

    python tools/grade.py SUBMISSIONS [--out grades.csv] [--points points.json]
                          [--time-limit 120] [--memory-limit 2048] [--seed N] [--jobs 1]

SUBMISSIONS holds one folder a student, named after them, with each exercise's file at its path
in the student release (the catalog's ``work``: ``cuda_src/exercises/*.cu`` and ``*.py``,
``cuda_src/opencl/exercises/*.cl``, ``notebooks/05_pinned_memory_and_streams.ipynb`` and
``notebooks/11_multiple_gpus.ipynb``): ``tools/collect.py`` makes it from the students' copies of
the release. For each student and each exercise the checker
runs in a process of its own, with a time limit, a memory limit (resident memory and what its
sandbox's private folders hold, checked ten times a second) and a limit on what it prints; a
submission that hangs, crashes, eats memory or floods its output fails that exercise alone, and
grading goes on. ``--jobs N`` runs N checkers
at once (default 1: the speed tier's FAST and notebook 05's overlap are timed, and checkers that
share the machine, or a GPU, slow each other down). An exercise whose work is not in
the submission fails as "not handed in" (so does a file that is a symbolic link, or reached
through one out of the student's folder, and a notebook that is not a notebook), and one whose
stub is still as shipped as "not started", both without running; a student's folder that is a
link is left out, with a warning. A checker's verdict comes back through a pipe, never a file of
this machine's disk; what comes back that is not the checker's verdict (the student's code can
write there) is that exercise's "crashed", and so is any error of the grader on one
submission, with a warning: one submission never stops the grading of the class.

Writes ``grades.csv`` (a row a student and exercise: status, score, problem, hint, the first
compiler error, what keeps a right kernel from FAST, seconds) and ``grades.gradebook.csv`` (a row a student: nbgrader's gradebook
columns and a score an exercise; see ``tools/gradebook.py`` for the points), a feedback file a
student (``grades.feedback/<student>.md`` and ``.html``: ``tools/feedback.py``), each checker's
printed output (``grades.logs/<student>/<exercise>.txt``), and prints a summary. Every message
names the student's files by their path in the release, never this machine's.

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
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]  # the course, and feedback and gradebook

import collect  # noqa: E402 - after the path is set
import feedback  # noqa: E402
import gradebook  # noqa: E402
from helpers.exercises import catalog  # noqa: E402 - after the path is set
from tools import sandbox  # noqa: E402


def check_one(student_dir: str, name: str, result_fd: str, seed: str) -> None:
    """In the child process: run one checker on one submission (with the hidden cases of
    ``seed``), write its verdict as JSON to the pipe ``result_fd``."""
    verdict = catalog.check(catalog.find(name), Path(student_dir), hidden=int(seed))
    data = {"passed": verdict.passed, "fast": verdict.fast, "problem": verdict.problem,
            "hint": verdict.hint, "error": verdict.error, "slow": verdict.slow}
    with os.fdopen(int(result_fd), "w") as result:
        result.write(json.dumps(data))


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


_running: set[int] = set()  # the checkers' processes now running (--jobs runs several)
_interrupted = threading.Event()  # grading was interrupted: start no other checker


def run_child(student_dir: Path, name: str, limits: Limits, workdir: Path):
    """Run one checker in its own process group, sandboxed, with a scratch folder of its own;
    kill whatever it leaves behind; ``(verdict: read_verdict's, why it stopped, output bytes
    kept, seconds)``."""
    scratch = workdir / f"{student_dir.name}-{name}"
    scratch.mkdir(mode=0o700)
    if _interrupted.is_set():
        raise KeyboardInterrupt("grading was interrupted")
    result, result_fd = os.pipe()
    command, env = sandbox.command(
        [sys.executable, str(Path(__file__).resolve()), "--one", str(student_dir), name,
         str(result_fd), str(limits.seed)], student_dir, scratch)
    start = time.monotonic()
    try:
        child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 pass_fds=(result_fd,), start_new_session=True,
                                 preexec_fn=_no_core_dumps)
    finally:
        os.close(result_fd)
    _running.add(child.pid)
    output = _OutputKeeper(child.stdout, limits.output_kb * 1024)
    written = _OutputKeeper(os.fdopen(result, "rb"), VERDICT_BYTES + 1)
    output.start()
    written.start()
    try:
        stopped = _watch(child, output, limits, start)
    finally:
        sandbox.end(child.pid)
        _running.discard(child.pid)
    output.join(timeout=5)
    written.join(timeout=5)
    verdict = read_verdict(bytes(written.kept))
    shutil.rmtree(scratch, ignore_errors=True)
    return verdict, stopped, bytes(output.kept), time.monotonic() - start


VERDICT_TYPES = {"passed": bool, "fast": bool, "problem": str, "hint": str, "error": str,
                 "slow": str}
"""The verdict a checker writes (``check_one``): its fields and their types."""
VERDICT_BYTES = 64 * 1024
WORK_BYTES = 64 * 2**20
"""The largest file of a student's that the grader reads (in its own process, to see if the
stub was started): a notebook with its outputs is a few MiB."""


def read_verdict(data: bytes) -> dict | str | None:
    """The verdict the checker wrote to its pipe (``data``, up to ``VERDICT_BYTES`` and one
    more); None where it wrote none; else why it is not the checker's verdict (the student's
    code runs in that process and can write there): taken only as a dict of ``VERDICT_TYPES``."""
    if not data:
        return None
    if len(data) > VERDICT_BYTES:
        return f"larger than {VERDICT_BYTES // 1024} KB"
    try:
        verdict = json.loads(data)
    except (ValueError, RecursionError):
        return "not JSON the grader can read"
    if not isinstance(verdict, dict) or verdict.keys() != VERDICT_TYPES.keys() \
            or any(type(verdict[key]) is not kind for key, kind in VERDICT_TYPES.items()):
        return "JSON of another shape"
    return verdict


def _watch(child, output, limits: Limits, start: float) -> str | None:
    """Wait for the child; kill its process group at a limit and say which limit it was."""
    stopped = None
    while child.poll() is None:
        if time.monotonic() - start > limits.seconds:
            stopped = f"ran longer than the time limit of {limits.seconds:g} s (an endless loop?)"
        elif sandbox.memory_mb(child.pid) > limits.memory_mb:
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
    """One row of the CSV (``gradebook.ROW_FIELDS`` but the scores), its paths the student's.
    Whatever goes wrong in the grader on one submission is that row's "crashed", and a warning
    to the instructor: one student never stops the grading of the class."""
    try:
        row = _verdict_row(student_dir, exercise, limits, workdir, logs)
    except Exception as err:  # noqa: BLE001 - any error, so that the class is graded
        print(f"warning: the grader failed on {student_dir.name}'s {exercise.work} "
              f"({type(err).__name__}: {str(err)[:300]}); their row says 'crashed': look at "
              f"{student_dir / exercise.work}, and grade it again with --exercise "
              f"{exercise.name} once it is mended", file=sys.stderr, flush=True)
        row = {"student": student_dir.name, "exercise": exercise.name, "seconds": "0.0",
               "result": "fail", "status": "crashed", "error": "", "slow": "",
               "problem": f"the grader could not grade this submission ({type(err).__name__})",
               "hint": "tell your instructor: the grader's log says what went wrong"}
    return in_submission(row, student_dir)


def _verdict_row(student_dir: Path, exercise, limits: Limits, workdir: Path, logs: Path) -> dict:
    row = {"student": student_dir.name, "exercise": exercise.name, "seconds": "0.0",
           "result": "fail", "error": "", "slow": ""}
    unchecked = _not_to_check(student_dir, exercise)
    if unchecked:
        return {**row, **unchecked}
    verdict, stopped, output, seconds = run_child(student_dir, exercise.name, limits, workdir)
    (logs / student_dir.name).mkdir(parents=True, exist_ok=True)
    (logs / student_dir.name / f"{exercise.name}.txt").write_bytes(output)
    row["seconds"] = f"{seconds:.1f}"
    if stopped:
        return {**row, "status": "stopped", "problem": f"the checker was stopped: it {stopped}",
                "hint": "run the checker in the notebook to see where it goes wrong"}
    if verdict is None:
        last = _last_line(output)
        return {**row, "status": "crashed", "error": last,
                "problem": "the checker's process died without a verdict (last line printed: "
                           f"{last or 'no output'})",
                "hint": "the kernel crashed the process: look for a write far outside an "
                        "array, or a call the course does not support" if exercise.is_kernel
                        else "your function ended the checker's process: look for a call that "
                             "exits or kills the process"}
    if isinstance(verdict, str):
        return {**row, "status": "crashed", "problem": "what came back was not the checker's "
                f"verdict ({verdict}): something in your code wrote where the checker writes it",
                "hint": "your code must not write to files or pipes: return the result, as the "
                        "exercise asks"}
    status = "fast" if verdict["fast"] else "passed" if verdict["passed"] else "not yet"
    return {**row, "result": "pass" if verdict["passed"] else "fail", "status": status,
            "problem": verdict["problem"], "hint": verdict["hint"], "error": verdict["error"],
            "slow": verdict["slow"]}


def _not_to_check(student_dir: Path, exercise) -> dict | None:
    """The status, problem and hint of work no checker need run on (a link, missing, not a
    notebook, the stub as shipped), or None."""
    work = student_dir / exercise.work
    if why := collect.not_own(student_dir, work):
        return {"status": "not handed in", "problem": f"not handed in: {exercise.work} is {why}, "
                "not a file of your own: the grader takes only files", "hint": f"hand in {exercise.work} itself, not a link to it"}
    if not work.is_file():
        return {"status": "not handed in", "problem": f"not handed in: {exercise.work} is "
                "missing from the submission", "hint": f"hand in {exercise.work}"}
    if (size := work.stat().st_size) > WORK_BYTES:
        return {"status": "not handed in", "problem": f"not handed in: {exercise.work} is "
                f"{size / 2**20:,.0f} MiB, more than the grader reads ({WORK_BYTES >> 20} MiB)",
                "hint": f"hand in {exercise.work} without its outputs (Edit, Clear Outputs of All "
                "Cells, then save)" if not exercise.is_kernel else "hand in your kernel's source"}
    if not exercise.is_kernel and catalog.notebook_cells(work) is None:
        return {"status": "not handed in", "problem": f"not handed in: {exercise.work} is not a "
                "notebook (Jupyter cannot open it: it is not a notebook's JSON with its cells)",
                "hint": f"hand in {exercise.work} as Jupyter saves it (File, Save Notebook)"}
    if catalog.learner_work(exercise, student_dir) is not None \
            and not catalog.started(exercise, student_dir):
        return {"status": "not started", "problem": "not started: the stub is as shipped",
                "hint": f"edit {exercise.work}"}
    return None


def _last_line(output: bytes) -> str:
    lines = [line for line in output.decode(errors="replace").splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def in_submission(row: dict, student_dir: Path) -> dict:
    """``row`` with the submission's folder taken off every path in its texts, so that they
    name a file as the student knows it (``cuda_src/exercises/julia.cu``), not where this
    machine keeps it."""
    folders = {str(student_dir), str(student_dir.resolve())}
    texts = {}
    for key in ("problem", "hint", "error", "slow"):
        if key not in row:
            continue
        text = row[key]
        for folder in sorted(folders, key=len, reverse=True):
            text = text.replace(folder.rstrip(os.sep) + os.sep, "")
        texts[key] = text
    return {**row, **texts}


def grade_class(submissions: Path, out: Path, limits: Limits, names=None,
                points: dict | None = None, jobs: int = 1) -> list[dict]:
    """Grade every student folder of ``submissions``, ``jobs`` checkers at a time; score the rows
    with ``points`` (default: the catalog's) and write the CSVs and the feedback
    (``feedback.publish``); return the scored rows."""
    students = collect.real_folders(submissions)
    if not students:
        raise SystemExit(f"{submissions} holds no student folders (one folder a student, "
                         "each with the files tools/collect.py copies)")
    exercises = [catalog.find(n) for n in names] if names else catalog.EXERCISES
    out.parent.mkdir(parents=True, exist_ok=True)   # --out in a folder not made yet
    logs = out.with_suffix(".logs")
    pairs = [(student, exercise) for student in students for exercise in exercises]
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for (student, exercise), row in zip(pairs, _graded(pairs, jobs, limits, Path(workdir),
                                                           logs)):
            rows.append(row)
            print(f"{student.name:<20} {exercise.name:<13} {row['status']}", flush=True)
    return feedback.publish(rows, out, points or gradebook.load_points())


def _graded(pairs, jobs, *args):
    """Each (student, exercise) pair's row, in order: one after another in this thread, or
    ``jobs`` at once. Interrupted (Ctrl-C), the checkers still running are killed and those not
    started never start."""
    _interrupted.clear()
    if jobs == 1:
        yield from (grade(student, exercise, *args) for student, exercise in pairs)
        return
    pool = ThreadPoolExecutor(jobs)
    try:
        for row in [pool.submit(grade, student, exercise, *args) for student, exercise in pairs]:
            yield row.result()
    finally:
        _interrupted.set()   # every row is in, or grading stops here
        pool.shutdown(wait=False, cancel_futures=True)
        for pid in list(_running):
            sandbox.end(pid)


def summary(rows: list[dict]) -> str:
    """Passes by exercise and by student, as printed at the end."""
    lines = ["", "passed, by exercise:"]
    for name in dict.fromkeys(r["exercise"] for r in rows):
        mine = [r for r in rows if r["exercise"] == name]
        fast = sum(r["status"] == "fast" for r in mine)
        lines.append(f"  {name:<13} {sum(r['result'] == 'pass' for r in mine)} of {len(mine)}"
                     + (f" ({fast} FAST)" if fast else ""))
    lines.append("passed, by student (and points):")
    for entry in gradebook.totals(rows):
        mine = [r for r in rows if r["student"] == entry["student_id"]]
        lines.append(f"  {entry['student_id']:<20} {sum(r['result'] == 'pass' for r in mine)} of "
                     f"{len(mine)}  ({entry['score']} of {entry['max_score']} points)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path, nargs="?")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"))
    parser.add_argument("--points", type=Path, help="points by exercise (.json or .toml)")
    parser.add_argument("--time-limit", type=float, default=120, help="seconds per checker")
    parser.add_argument("--memory-limit", type=int, default=2048, help="MB per checker")
    parser.add_argument("--output-limit", type=int, default=256, help="KB printed per checker")
    parser.add_argument("--exercise", action="append", help="only this one (repeatable)")
    parser.add_argument("--seed", type=int, help="of the hidden cases (default: a new one)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="checkers run at once (1: timed verdicts as fair as they can be)")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # the child's entry
    args = parser.parse_args(argv)
    if args.one:
        check_one(*args.one)
        return 0
    if args.submissions is None or not args.submissions.is_dir():
        parser.error("give the folder of submissions (one folder a student)")
    points = gradebook.load_points(args.points)
    limits = Limits(args.time_limit, args.memory_limit, args.output_limit, args.seed)
    print(sandbox.warning() or "each checker runs sandboxed by bubblewrap", flush=True)
    print(f"hidden cases: seed {limits.seed} (--seed {limits.seed} grades with the same again)",
          flush=True)
    if args.jobs < 1:
        parser.error("--jobs is how many checkers run at once: 1 or more")
    rows = grade_class(args.submissions, args.out, limits, args.exercise, points, args.jobs)
    print(summary(rows))
    print(f"\nwrote {args.out}, {gradebook.gradebook_path(args.out)}, the feedback in "
          f"{feedback.feedback_folder(args.out)}/ and the checkers' output in "
          f"{args.out.with_suffix('.logs')}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
