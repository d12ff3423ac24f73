"""tools/sandbox.py: a checker cannot reach out of its sandbox. Hostile submissions of notebook
05's exercise (the learner's Python, run by the checker) graded by tools/grade.py: one writes
files outside its folder, one forks a child that leaves its process group and sleeps past
grading, one opens a socket to this machine, one holds more memory than the limit (counted
inside the sandbox, whose first process is bubblewrap's). Each gets a verdict, none escapes, and the students
around them are graded. And, without a sandbox, what the grader still does: the whole process
tree killed, the memory of every process counted."""

import csv
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel_sources import ROOT, stable_dir
from test_grading import JOBS

sys.path.insert(0, str(ROOT))
from tools import sandbox  # noqa: E402

NOTEBOOK = "notebooks/05_pinned_memory_and_streams.ipynb"
SOLUTION = (ROOT / "helpers" / "exercises" / "solutions" / "pipeline.py").read_text()
SOLUTION = SOLUTION[SOLUTION.index("def my_pipeline("):]
MARK = f"{86000 + os.getpid() % 10000}.25"   # the forked child's `sleep MARK`, found by its text
HEAD = "def my_pipeline(h_in, h_out, n_chunks, streams, launch):\n"



def _require(*kinds):
    """Skip unless the sandbox is one of ``kinds`` (``None`` for none); under CI, fail."""
    if sandbox.kind() in kinds:
        return
    if os.environ.get("CI"):
        pytest.fail("no bubblewrap that runs on this CI machine: .ci/run should have installed "
                    "it (apt-get install bubblewrap)")
    pytest.skip(f"the sandbox here is {sandbox.kind()}, this needs {' or '.join(kinds)}")


def _writer(targets):
    return HEAD + f"""    for target in {[str(t) for t in targets]!r}:
        try:
            with open(target, "w") as f:
                f.write("escaped")
        except OSError:
            pass
    raise RuntimeError("wrote where it could")
"""


FORKER = HEAD + f"""    import os
    if os.fork() == 0:
        os.setsid()
        os.execvp("sleep", ["sleep", "{MARK}"])
    raise RuntimeError("left a child behind")
"""


HOG = HEAD + """    import time
    block = b"x" * (2400 << 20)   # touched, so resident
    time.sleep(60)                # held long enough for the grader to see it
    raise RuntimeError(f"held {len(block)} bytes")
"""


def _caller(port):
    return HEAD + f"""    import socket
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=5).sendall(b"escaped")
        raise RuntimeError("reached the grader's machine")
    except OSError as err:
        raise RuntimeError(f"no network: {{err}}")
"""


def _notebook(source):
    cell = {"cell_type": "code", "source": source, "metadata": {}, "outputs": [],
            "execution_count": None}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _sleepers():
    """The processes running ``sleep MARK``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes() == f"sleep\0{MARK}\0".encode():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def graded():
    _require("bwrap", "unshare")
    root = stable_dir("hostile-class")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    outside = [root / "escaped.txt", ROOT / "escaped-the-grader.txt",
               Path("/tmp") / f"escaped-the-grader-{os.getpid()}.txt"]
    students = {"ann": SOLUTION, "caller": _caller(listener.getsockname()[1]), "forker": FORKER, "hog": HOG,
                "writer": _writer([*outside, root / "writer" / "escaped.txt"]), "zoe": SOLUTION}
    for student, source in students.items():
        (root / student / "notebooks").mkdir(parents=True)
        (root / student / NOTEBOOK).write_text(_notebook(source))
    out = root / "grades.csv"
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), str(root), "--out",
                          str(out), "--exercise", "pipeline", "--time-limit", "120",
                          # the default: on the H200, PyCUDA and the pipeline's pinned
                          # buffers took over 1000 MB
                          "--memory-limit", "2048", "--jobs", str(JOBS)],
                         capture_output=True, text=True, timeout=900)
    time.sleep(0.5)  # a child that escaped would be running now
    escaped = {"files": [p for p in outside if p.exists()], "processes": _sleepers()}
    try:
        escaped["connections"] = [listener.accept()]
    except BlockingIOError:
        escaped["connections"] = []
    listener.close()
    for pid in escaped["processes"]:
        os.kill(pid, 9)
    for path in escaped["files"]:
        path.unlink()
    assert run.returncode == 0, run.stdout + run.stderr
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    return rows, escaped, run.stdout, root


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_every_student_gets_a_verdict_and_the_others_pass(graded):
    rows, _, printed, _ = graded
    assert sorted(rows) == ["ann", "caller", "forker", "hog", "writer", "zoe"]
    assert rows["ann"]["result"] == rows["zoe"]["result"] == "pass", rows
    # refused by helpers/exercises/python_screen.py before any of it runs, the sandbox behind it
    for student, words in (("caller", "imports socket"), ("forker", "imports os"),
                           ("writer", "calls open")):
        assert rows[student]["result"] == "fail", rows[student]
        assert rows[student]["problem"].startswith("line ") and words in rows[student][
            "problem"], rows
    assert "hidden cases: seed" in printed


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_the_memory_limit_counts_the_processes_inside_the_sandbox(graded):
    rows, _, _, _ = graded
    assert rows["hog"]["result"] == "fail", rows["hog"]
    assert "used more than the memory limit of 2048 MB" in rows["hog"]["problem"], rows["hog"]


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_no_process_outlives_grading(graded):
    _, escaped, _, _ = graded
    assert escaped["processes"] == []


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_no_connection_reaches_this_machine(graded):
    rows, escaped, _, _ = graded
    assert escaped["connections"] == []
    assert "imports socket" in rows["caller"]["problem"], rows["caller"]   # the screen's refusal


@pytest.mark.slow
@pytest.mark.gpu_timing
def test_no_file_is_written_outside_the_scratch_folder(graded):
    _require("bwrap")
    _, escaped, _, root = graded
    assert escaped["files"] == []
    assert not (root / "writer" / "escaped.txt").exists()


@pytest.mark.skipif(subprocess.run(sandbox.PROBES["unshare"], capture_output=True).returncode,
                    reason="unshare cannot make namespaces here")
def test_under_unshare_a_checker_that_kills_itself_ends(monkeypatch, tmp_path):
    """Its first process in the new PID namespace would be its init, which ignores the SIGKILL it
    sends itself: the checker must run under it, not as it."""
    monkeypatch.setattr(sandbox, "kind", lambda: "unshare")
    command, env = sandbox.command([sys.executable, "-c", "import os; os.kill(os.getpid(), 9); "
                                    "print('outlived')"], tmp_path, tmp_path)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert "outlived" not in done.stdout and done.returncode != 0, done


def test_without_a_sandbox_the_grader_warns_and_runs_the_checker_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "kind", lambda: None)
    assert "only the time, memory and output limits hold" in sandbox.warning()
    command, env = sandbox.command(["python", "-c", "pass"], tmp_path, tmp_path)
    assert command == ["python", "-c", "pass"]
    assert env["TMPDIR"] == str(tmp_path / "tmp") and (tmp_path / "tmp").is_dir()


def test_end_kills_a_child_that_left_the_process_group():
    child = subprocess.Popen(["sh", "-c", f"setsid sleep {MARK} & wait"], start_new_session=True)
    deadline = time.monotonic() + 10
    while not _sleepers() and time.monotonic() < deadline:
        time.sleep(0.05)
    escaped = _sleepers()
    assert escaped and all(pid in sandbox.descendants(child.pid) for pid in escaped)
    sandbox.end(child.pid)
    child.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _sleepers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sleepers() == []


def test_the_memory_counted_is_that_of_every_process_under_the_checker():
    code = ("import os, time\nif os.fork() == 0:\n    block = bytearray(300 << 20)\n"
            "    time.sleep(30)\nelse:\n    time.sleep(30)\n")
    child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while sandbox.resident_mb(child.pid) < 300 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sandbox.resident_mb(child.pid) >= 300
    finally:
        sandbox.end(child.pid)
        child.wait(timeout=10)
