"""tools/grade.py on a made-up class: a right kernel passes; a wrong one, an endless loop, a
crash, a compile error, a missing file, an output flood, a stub left as shipped and a kernel tuned
to the checker's shipped sizes (which the grader's hidden cases find out) each fail alone, with a
problem that names what happened, and the CSV says so. (Hostile submissions: test_sandbox.py.)"""

import csv
import json
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel_sources import ROOT, solution, stable_dir, variant
from kernel_sources import ARCH, find_nvcc

from helpers.backend import BACKEND
from helpers.exercises import catalog

KERNEL = solution("scale_vector.cu")
SIGNATURE = "__global__ void scale_vector(const float *x, float *y, float alpha, int n)"
# A kernel that stops itself: __trap() is a failed launch on a GPU and a failed device-side
# assert on the simulator. (On a GPU the checker compiles the simulator's twin too, for its
# race-checked case, so a host call such as raise() would stop it there, as ivy's does.)
CRASH = SIGNATURE + " { __trap(); }\n"
ESCAPED = Path("/tmp/escaped-the-grader")
# A submission that escapes its folder and leaves a process behind: refused by nvcc, and by the
# simulator's check of what device code calls, before it runs.
ESCAPE = """
#include <fcntl.h>
#include <unistd.h>
""" + SIGNATURE + """ {
    if (blockIdx.x == 0 && threadIdx.x == 0 && fork() == 0) {
        int fd = open("/tmp/escaped-the-grader", O_WRONLY | O_CREAT, 0600);
        write(fd, "x", 1);
    }
}
"""

# Checkers the grader runs at once in these tests (--jobs): on the simulator most of a checker's
# time is its own compile or a wait for a limit, so three overlap well; on a GPU one, as the
# grader's default, since notebook 05's checker times the overlap of copies and kernels.
JOBS = 3 if BACKEND == "simulator" else 1

# student: (their scale_vector.cu, or None for none; what the CSV's problem must contain)
# On a GPU the graded tests are gpu_timing: each child compiles with nvcc and launches within the
# grader's time limit, which 15 other busy pytest-xdist workers pushed past 20 s on the H200.
CLASS = {
    "ada": (KERNEL, None),
    "bob": (variant(KERNEL, ("i < n", "i <= n")), "off by one"),
    # k stays 0, so the loop never ends; the volatile store each time round keeps it: a loop
    # without side effects may be assumed to end and removed (ptxas removed an empty loop on a
    # volatile int k, and the kernel passed on an H200), one with a volatile access may not
    # (its SASS is LDG, FMUL, STG.E.STRONG.SYS, BRA back)
    "cy": (variant(KERNEL, ("        y[i] = alpha * x[i];",
                            "        for (int k = 0; k < n; k *= 2)\n"
                            "            ((volatile float *)y)[i] = alpha * x[i];")),
           "endless loop?"),
    # on a GPU, PyCUDA reports the trap as a failed launch; the simulator, as a failed assert
    "dee": (CRASH, ("the kernel crashed", "the launch failed", "died without a verdict")),
    "eve": (KERNEL + "\nthis is not CUDA\n", "does not compile"),
    "fay": (None, "not handed in"),
    "gus": (variant(KERNEL, ("y[i] = alpha * x[i];",
                             "y[i] = alpha * x[i];\n        for (int k = 0; k < 100; k++) "
                             "printf(\"thread %d says hello %d\\n\", i, k);")),
            "printed more than the output limit"),
    "hal": (catalog.as_shipped(catalog.find("scale_vector")), "not started"),
    "ivy": (ESCAPE, "does not compile"),
    "jo": (variant(KERNEL, ("{\n    int i", "{\n    if (n != 1000 && n != 37 && n != 5000)\n"
                                           "        return;\n    int i")), "nothing was written"),
}


@pytest.fixture(scope="module")
def graded():
    root = stable_dir("class")
    for student, (source, _) in CLASS.items():
        exercises = root / student / "cuda_src" / "exercises"
        exercises.mkdir(parents=True)
        if source is not None:
            (exercises / "scale_vector.cu").write_text(source)
    out = root / "grades.csv"
    ESCAPED.unlink(missing_ok=True)
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), str(root),
                          "--out", str(out), "--exercise", "scale_vector", "--time-limit", "20",
                          "--output-limit", "64", "--jobs", str(JOBS)],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, CUDA_SIM_TIME_LIMIT="2"))  # the endless loop: 2 s
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out, newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}, run.stdout, root


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_the_csv_has_a_row_for_every_student_and_exercise(graded):
    rows, printed, _ = graded
    assert sorted(rows) == sorted(CLASS)
    assert all(row["exercise"] == "scale_vector" for row in rows.values())
    # with checkers run at once (JOBS), still printed in the roster's order
    assert [line.split()[0] for line in printed.splitlines()
            if line.split()[1:2] == ["scale_vector"]] == sorted(CLASS)


def test_jobs_below_one_are_refused_before_anything_runs(tmp_path):
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), str(tmp_path),
                          "--jobs", "0"], capture_output=True, text=True)
    assert run.returncode == 2 and "--jobs is how many checkers run at once" in run.stderr


def _checkers_of(folder, pids=None):
    """Of ``pids`` (default: every process), those that run a checker on a submission in
    ``folder`` (grade.py --one ..., the sandbox's processes around it too)."""
    found = []
    for pid in pids if pids is not None else [p.name for p in Path("/proc").glob("[0-9]*")]:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--one" in argv and any(arg.startswith(str(folder).encode()) for arg in argv):
            found.append(int(pid))
    return found


def _children(pid):
    """The processes ``pid`` started itself."""
    try:
        return [int(c) for t in Path(f"/proc/{pid}/task").iterdir()
                for c in (t / "children").read_text().split()]
    except OSError:
        return []


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_stops_the_grading_and_every_checker_it_started(tmp_path, jobs):
    """Three endless loops and a time limit of ten minutes: Ctrl-C while checkers run ends the
    grader within a minute (a grader that waited for its running checkers would take their
    limit, ten minutes), and no checker is left running. (The bound was 10 s: on a 2-core
    machine running two suites at once, the kills and the joins of the checkers' output threads
    took longer.)"""
    for student in ("ann", "ben", "cy"):
        (tmp_path / student / "cuda_src" / "exercises").mkdir(parents=True)
        (tmp_path / student / "cuda_src" / "exercises" / "scale_vector.cu").write_text(
            CLASS["cy"][0])
    grader = subprocess.Popen([sys.executable, str(ROOT / "tools" / "grade.py"), str(tmp_path),
                               "--out", str(tmp_path / "grades.csv"), "--exercise",
                               "scale_vector", "--time-limit", "600", "--jobs", str(jobs)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, CUDA_SIM_TIME_LIMIT="600"),
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while (len(_checkers_of(tmp_path, _children(grader.pid))) < jobs
               and time.monotonic() < deadline):
            time.sleep(0.2)
        assert len(_checkers_of(tmp_path, _children(grader.pid))) == jobs, "no checker started"
        grader.send_signal(signal.SIGINT)
        grader.wait(timeout=60)   # not the checkers' own limit, ten minutes
        time.sleep(0.5)
        assert _checkers_of(tmp_path) == []
    finally:
        grader.kill()
        for pid in _checkers_of(tmp_path):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.gpu_timing
@pytest.mark.parametrize("student", sorted(CLASS))
def test_each_submission_gets_its_own_verdict(graded, student):
    rows, _, _ = graded
    row, expected = rows[student], CLASS[student][1]
    if expected is None:
        assert row["result"] == "pass", row
    else:
        assert row["result"] == "fail", row
        expected = (expected,) if isinstance(expected, str) else expected
        assert any(words in row["problem"] for words in expected), row


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_no_submission_reached_outside_its_folder(graded):
    assert not ESCAPED.exists()


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_the_summary_and_the_logs(graded):
    _, printed, root = graded
    assert "scale_vector  1 of 10" in printed, printed
    assert "ada                  1 of 1" in printed, printed
    assert (root / "grades.logs" / "ada" / "scale_vector.txt").read_text().startswith("PASS:")
    flood = (root / "grades.logs" / "gus" / "scale_vector.txt").read_bytes()
    assert len(flood) <= 64 * 1024


def test_a_checker_process_that_dies_is_reported_with_its_last_line(monkeypatch, tmp_path):
    """A kernel cannot end the checker's process on either backend now (the simulator refuses
    host calls, a GPU's trap is a launch failure); the grader still says so when something
    does, with the last line the process printed."""
    spec = importlib.util.spec_from_file_location("grade", ROOT / "tools" / "grade.py")
    grade = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grade)
    monkeypatch.setattr(grade, "run_child", lambda *args: (None, None, b"compiling\nKilled\n", 0.4))
    student = tmp_path / "zed"
    (student / "cuda_src" / "exercises").mkdir(parents=True)
    (student / "cuda_src" / "exercises" / "scale_vector.cu").write_text(KERNEL)
    row = grade.grade(student, catalog.find("scale_vector"), grade.Limits(20, 2048, 64), tmp_path,
                      tmp_path / "logs")
    assert row["result"] == "fail", row
    assert row["problem"] == "the checker's process died without a verdict (last line printed: " \
                             "Killed)", row


def test_the_endless_loop_stays_a_loop_through_nvcc(tmp_path):
    """cy's loop is endless on a GPU too: in nvcc's PTX a block that stores (volatile) and
    branches back to itself, with no way out."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    source = tmp_path / "cy.cu"
    source.write_text('extern "C" {\n%s\n}\n' % CLASS["cy"][0])
    ptx = tmp_path / "cy.ptx"
    run = subprocess.run([nvcc, f"-arch={ARCH}", "-ptx", "-o", str(ptx), str(source)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    blocks = re.findall(r"^(\$\w+):\n(.*?)(?=^\$\w+:|^\})", ptx.read_text(), re.M | re.S)
    assert any("st.volatile.global" in body and re.search(rf"bra(\.uni)?\s+\{label};\s*$", body)
               and "@" not in body for label, body in blocks), ptx.read_text()


@pytest.mark.parametrize("fast, slow, status", [(True, "", "fast"),
                                                (False, "16.0 sectors a request", "passed")])
def test_a_right_kernel_of_a_chapter_about_speed_is_fast_or_passed(monkeypatch, tmp_path, fast,
                                                                   slow, status):
    """The child's verdict carries the speed tier: FAST scores as a pass, and a PASS short of
    FAST keeps what is missing in the row's slow column, by the student's path."""
    spec = importlib.util.spec_from_file_location("grade", ROOT / "tools" / "grade.py")
    grade = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grade)
    student = tmp_path / "zed"
    verdict = {"passed": True, "fast": fast, "problem": "C = A @ Bt.T", "hint": "",
               "error": "", "slow": slow and f"{student}/cuda_src/exercises/matmul_bt.cu: {slow}"}
    monkeypatch.setattr(grade, "run_child", lambda *args: (verdict, None, b"", 0.4))
    (student / "cuda_src" / "exercises").mkdir(parents=True)
    (student / "cuda_src" / "exercises" / "matmul_bt.cu").write_text("// mine\n")
    row = grade.grade(student, catalog.find("matmul_bt"), grade.Limits(20, 2048, 64), tmp_path,
                      tmp_path / "logs")
    assert (row["result"], row["status"]) == ("pass", status), row
    assert row["slow"] == (slow and f"cuda_src/exercises/matmul_bt.cu: {slow}"), row


def test_the_summary_counts_the_fast_among_the_passes():
    spec = importlib.util.spec_from_file_location("grade", ROOT / "tools" / "grade.py")
    grade = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grade)
    rows = [{"student": s, "exercise": "box_blur", "result": r, "status": status, "score": score,
             "max_score": "1"} for s, r, status, score in (("ada", "pass", "fast", "1"),
                                                          ("bob", "pass", "passed", "1"),
                                                          ("cy", "fail", "not yet", "0"))]
    assert "  box_blur      2 of 3 (1 FAST)" in grade.summary(rows).splitlines()


def _grade_module():
    spec = importlib.util.spec_from_file_location("grade", ROOT / "tools" / "grade.py")
    grade = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grade)
    return grade


SPLIT_SUM = solution("split_sum.py")


@pytest.mark.slow
@pytest.mark.parametrize("written", ["[]", '{"passed": true}', "{", "[" * 100_000,
                                     '{"passed": "yes", "fast": 1, "problem": 0, "hint": "", '
                                     '"error": "", "slow": ""}'])
def test_a_verdict_of_another_shape_is_that_students_crash(tmp_path, monkeypatch, written):
    """A checker's process holds the student's code, which could write to the verdict's pipe
    itself (round AV of the red-team audit, AVB-16; the Python screen and the .cu refusals now keep a
    student's code from it, so the checker's process is stood in for here): the students before
    and after are graded, and that one's row says so; a verdict is read only as a dict of the
    checker's fields and types."""
    grade = _grade_module()
    command = grade.sandbox.command

    def writing(argv, student, scratch):   # argv: python grade.py --one student name fd seed
        if student.name == "m_garbage":
            argv = [sys.executable, "-c", f"import os; os.fdopen({argv[5]}, 'w').write({written!r})"]
        return command(argv, student, scratch)

    monkeypatch.setattr(grade.sandbox, "command", writing)
    for student in ("alice", "m_garbage", "z_bob"):
        (tmp_path / "subs" / student / "cuda_src" / "exercises").mkdir(parents=True)
        (tmp_path / "subs" / student / "cuda_src" / "exercises" / "split_sum.py").write_text(
            SPLIT_SUM)
    rows = grade.grade_class(tmp_path / "subs", tmp_path / "grades.csv",
                             grade.Limits(60, 2048, 64, seed=1), ["split_sum"])
    assert [(r["student"], r["result"]) for r in rows] == \
        [("alice", "pass"), ("m_garbage", "fail"), ("z_bob", "pass")], rows
    assert rows[1]["status"] == "crashed", rows[1]
    assert "not the checker's verdict" in rows[1]["problem"], rows[1]
    assert (tmp_path / "grades.feedback" / "m_garbage.md").is_file()


def test_what_comes_back_is_read_only_as_the_checkers_dict():
    grade = _grade_module()
    right = {"passed": True, "fast": False, "problem": "p", "hint": "", "error": "", "slow": ""}
    assert grade.read_verdict(json.dumps(right).encode()) == right
    assert grade.read_verdict(b"") is None
    big = json.dumps(dict(right, problem="x" * grade.VERDICT_BYTES)).encode()
    assert "larger than" in grade.read_verdict(big)
    assert "of another shape" in grade.read_verdict(b'{"passed": true}')


def test_one_row_that_fails_the_grader_is_that_rows_crash(monkeypatch, tmp_path, capsys):
    """Whatever goes wrong in the grader on one submission, the class is still graded: the row
    says the grader failed on it, and the instructor is told what."""
    grade = _grade_module()

    def fails(student_dir, *args):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(grade, "_verdict_row", fails)
    row = grade.grade(tmp_path / "zed", catalog.find("scale_vector"), grade.Limits(20, 2048, 64),
                      tmp_path, tmp_path / "logs")
    assert (row["student"], row["result"], row["status"]) == ("zed", "fail", "crashed"), row
    assert "the grader could not grade" in row["problem"], row
    assert "zed" in capsys.readouterr().err
