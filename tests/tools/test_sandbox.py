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
import select
import shutil
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
        while sandbox.memory_mb(child.pid) < 300 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sandbox.memory_mb(child.pid) >= 300
    finally:
        sandbox.end(child.pid)
        child.wait(timeout=10)


def test_what_a_checker_keeps_in_its_private_folders_counts_as_its_memory(tmp_path):
    """Its /tmp, /dev/shm and scratch folder are memory that no process's resident size shows
    (up to 1.3 GiB a checker): what they hold counts against the memory limit too."""
    _require("bwrap")
    student, scratch = tmp_path / "student", tmp_path / "scratch"
    student.mkdir()
    scratch.mkdir()
    code = ("import os, time\nfor folder in ('/tmp', '/dev/shm'):\n"
            "    with open(os.path.join(folder, 'fill.bin'), 'wb') as f:\n"
            "        f.write(bytes((250 if folder == '/tmp' else 50) << 20))\n"
            "print('written', flush=True)\ntime.sleep(60)\n")
    command, env = sandbox.command([sys.executable, "-c", code], student, scratch)
    child = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        assert child.stdout.readline() == "written\n"
        assert 300 <= sandbox.memory_mb(child.pid) < 300 + 100   # the files, and Python's own
        assert 300 <= sandbox.private_mb(sandbox.descendants(child.pid)) < 301
    finally:
        sandbox.end(child.pid)
        child.wait(timeout=10)


PROBE = """
import json, os, sys, tempfile
def read(path):
    try:
        with open(path, "rb") as f:
            return len(f.read())
    except OSError as err:
        return type(err).__name__
def fill(folder, size):
    try:
        with open(os.path.join(folder, "fill.bin"), "wb") as f:
            f.write(bytes(size))
            f.flush()
            os.fsync(f.fileno())
        return "written"
    except OSError as err:
        return type(err).__name__
paths = json.loads(sys.argv[1])
print(json.dumps({"read": {name: read(path) for name, path in paths.items()},
                  "secrets": sorted(k for k in os.environ if "TOKEN" in k),
                  "tmpdir": tempfile.gettempdir(), "tmp": fill(tempfile.gettempdir(), 48 << 20),
                  "shm": fill("/dev/shm", 48 << 20), "home": fill(os.environ["HOME"], 48 << 20)}))
"""


@pytest.fixture
def in_the_course():
    """A folder in the course's checkout, outside what a checker needs of it (a class's
    submissions or the grader's --out folder kept there); removed afterwards."""
    folder = ROOT / f"sandbox-test-{os.getpid()}"
    folder.mkdir()
    yield folder
    shutil.rmtree(folder)


def _probe(student, scratch, paths):
    """What a checker's process in the sandbox of ``student`` can read of ``paths`` ({name:
    path}), which variables named *TOKEN* it has, and what it can write to /tmp, /dev/shm and its home
    (in its scratch folder)."""
    command, env = sandbox.command([sys.executable, "-c", PROBE, json.dumps(
        {name: str(path) for name, path in paths.items()})], student, scratch)
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("inside", [False, True], ids=["submissions-outside", "inside-the-course"])
def test_a_checker_reads_only_its_student_and_the_course_without_solutions(
        inside, in_the_course, tmp_path, monkeypatch):
    """The course's solutions and its .git (which holds every solution's history), a classmate's
    folder (the submissions folder in the course or not), the grader's --out folder and home
    folder, and the grader's secrets stay out of a checker's sandbox (AVB-03, 04, 05, 09, 25), and
    /etc's (read as root); a PYTHONPATH folder (packages installed with --target) comes in, but
    the course's own root on it does not bring its .git; what it writes is memory of a bounded
    size, never this machine's disk (AVB-18, 19)."""
    _require("bwrap")
    monkeypatch.setenv("GRADER_TOKEN", "canary")
    site = tmp_path / "site"
    site.mkdir()
    (site / "installed.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{ROOT}")
    monkeypatch.setattr(sandbox, "TMP_BYTES", 32 << 20)
    monkeypatch.setattr(sandbox, "SHM_BYTES", 32 << 20)
    monkeypatch.setattr(sandbox, "SCRATCH_BYTES", 32 << 20)
    submissions = (in_the_course if inside else tmp_path) / "submissions"
    for student in ("alice", "mallory"):
        (submissions / student / "cuda_src").mkdir(parents=True)
        (submissions / student / "cuda_src" / "work.cu").write_text(f"// {student}\n")
    out = in_the_course / "out"
    out.mkdir()
    (out / "grades.csv").write_text("alice,pass\n")
    home = next((p for p in Path.home().iterdir() if p.is_file()), None)
    paths = {"solution": ROOT / "helpers" / "exercises" / "solutions" / "pipeline.py",
             "git": ROOT / ".git", "classmate": submissions / "alice" / "cuda_src" / "work.cu",
             "grades": out / "grades.csv", "home": home or "/nonexistent",
             "shadow": "/etc/shadow", "own": submissions / "mallory" / "cuda_src" / "work.cu",
             "course": ROOT / "helpers" / "exercises" / "catalog.py",
             "installed": site / "installed.py"}
    (tmp_path / "scratch").mkdir()
    seen = _probe(submissions / "mallory", tmp_path / "scratch", paths)
    read = {name: isinstance(size, int) for name, size in seen["read"].items()}
    assert read == {**dict.fromkeys(paths, False), "own": True, "course": True, "installed": True,
                    "shadow": read["shadow"] and not Path("/etc/shadow").exists()}, seen
    assert seen["secrets"] == [], seen
    assert seen["tmpdir"] == "/tmp" and seen["tmp"] == seen["shm"] == seen["home"] == "OSError", seen


HOSTILE = """
import json, os, socket, subprocess, sys
args = json.loads(sys.argv[1])
def attempt(action):
    try:
        action()
        return "done"
    except OSError as err:
        return type(err).__name__
def connect():
    socket.create_connection(("127.0.0.1", args["port"]), timeout=2).close()
def write(path):
    with open(path, "w") as f:
        f.write("escaped")
late = f"import os, time; time.sleep(2); os.write({args['late']}, b'outlived')"
subprocess.Popen([sys.executable, "-c", late], start_new_session=True, pass_fds=(args["late"],),
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(json.dumps({"connect": attempt(connect),
                  "outside": attempt(lambda: write(args["outside"])),
                  "own": attempt(lambda: write(args["own"]))}))
"""


def test_a_checkers_code_reaches_no_port_writes_nowhere_else_and_leaves_no_process(tmp_path):
    """Code run in the sandbox as it is (the Python screen keeps a student's from getting this
    far): a connection to this machine fails, a file outside its scratch or in its own student's
    folder cannot be written, and a process it started in a session of its own ends with it."""
    _require("bwrap")
    student, scratch = tmp_path / "submissions" / "mallory", tmp_path / "scratch"
    student.mkdir(parents=True)
    scratch.mkdir()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        late, late_fd = os.pipe()      # the late process holds its end while it lives
        args = {"port": listener.getsockname()[1], "outside": str(tmp_path / "escaped.txt"),
                "own": str(student / "escaped.txt"), "late": late_fd}
        command, env = sandbox.command([sys.executable, "-c", HOSTILE, json.dumps(args)],
                                       student, scratch)
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                              pass_fds=(late_fd,), timeout=120)
        os.close(late_fd)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)   # a write outside may land in its private /tmp, not ours
    assert seen["connect"] != "done" and seen["own"] != "done", seen
    assert not (tmp_path / "escaped.txt").exists() and not (student / "escaped.txt").exists()
    assert select.select([late], [], [], 10)[0], "a process outlived the checker"
    assert os.read(late, 100) == b"", "a process outlived the checker"
    os.close(late)
