"""Run one checker where the submission it runs cannot reach out of it (used by tools/grade.py).

A checker runs a student's code with the grader's rights: their kernel, compiled into a library
that the checker's process loads on the simulator, and for notebooks 05 and 11 their Python
function, run as it is. The grader's limits (time, memory, output) stop mistakes; this stops
malice. Each checker runs

- with no network: a network namespace of its own, in which no other machine, and no port of
  this one, can be reached;
- with the file system read-only but for a scratch folder of its own (its result, its compile
  cache, its temporary files: TMPDIR, and a private /tmp), the other students' folders and the
  instructor's solutions hidden;
- as the first process of a PID namespace of its own, so that when it ends, or is killed at a
  limit, the kernel ends every process it started, one that left its process group included.

bubblewrap (``bwrap``: Debian's and Ubuntu's package bubblewrap) does all of it, where the
machine lets it make namespaces (a container may not). Without it, ``unshare`` (util-linux)
gives the network and process parts and a private TMPDIR, but the file system stays as
writable as for the grader. With neither, only the limits hold, and the grader says so.
Whatever runs it, the checker's process group and every process under it are killed when it
ends (``end``), and its memory is that of all its processes (``resident_mb``).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SOLUTIONS = ("cuda_src/solutions", "cuda_src/opencl/solutions", "helpers/exercises/solutions")
"""The instructor's solutions in a checkout: hidden from the checkers (which never read them)."""

TMP_BYTES = 1 << 30
"""The size of a checker's private /tmp (memory that the memory limit does not see)."""

PREBUILT = ("grid-", "trace-", "prelude-")
"""The grader's compiled parts that every checker's compile cache starts with, read-only (see
helpers/sim/compile/prebuilt.py): without them each checker would build them again."""


NAMESPACES = ["--unshare-all", "--die-with-parent", "--new-session"]
UNSHARE = ["unshare", *([] if os.getuid() == 0 else ["--user", "--map-root-user"]), "--net",
           "--pid", "--fork", "--kill-child", "--mount-proc"]
NOT_INIT = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]) & 255)"
"""unshare's first process in the new PID namespace is its init, which the kernel shields from
the signals it sends itself: a checker there outlived a submission's os.kill(os.getpid(), 9)
(seen on the H200's machine, which has no bwrap) and judged a function that never ran. This
parent is init instead, and the checker an ordinary process under it."""
PROBES = {"bwrap": ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                    *NAMESPACES, "true"],
          "unshare": [*UNSHARE, "true"]}


@functools.cache
def kind() -> str | None:
    """``"bwrap"``, ``"unshare"``, or None: the first of them that this machine has and that
    runs (tried once, on ``true``)."""
    for name in ("bwrap", "unshare"):
        if shutil.which(name) is None:
            continue
        try:
            tried = subprocess.run(PROBES[name], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if tried.returncode == 0:
            return name
    return None


def warning() -> str | None:
    """What the grader prints when the checkers cannot be fully contained (None when they can)."""
    found = kind()
    if found == "bwrap":
        return None
    missing = ("bubblewrap (bwrap) is not installed, or cannot make namespaces here" if found
               else "neither bubblewrap (bwrap) nor unshare can make namespaces here")
    done = ("with unshare the checkers get no network and leave no process behind, but the file "
            "system stays writable to them" if found else "only the time, memory and output "
            "limits hold: a submission can write where the grader can, reach the network and "
            "leave processes behind")
    return (f"WARNING: {missing}; {done}. Install bubblewrap (apt-get install bubblewrap), or "
            "grade in a container or under a throwaway account.")


def command(argv: list[str], student: Path, scratch: Path) -> tuple[list[str], dict]:
    """``(command, environment)`` that run ``argv`` (a checker on ``student``'s folder) contained
    as well as this machine allows; ``scratch``, an empty folder, is all it may write."""
    env = dict(os.environ, TMPDIR=str(scratch / "tmp"), MPLCONFIGDIR=str(scratch / "mpl"))
    (scratch / "tmp").mkdir()
    found = kind()
    if found is None:
        return argv, env
    if found == "unshare":
        return UNSHARE + [sys.executable, "-c", NOT_INIT] + argv, env
    env.update(CUDA_COURSE_CACHE_DIR=str(scratch / "cache"),
               XDG_CACHE_HOME=str(scratch / "xdg-cache"))
    return _bwrap(student, scratch) + argv, env


def _bwrap(student: Path, scratch: Path) -> list[str]:
    """bwrap's arguments, up to the command: the file system read-only, a private /tmp, the
    other students and the solutions hidden, ``scratch`` writable, no namespace shared."""
    args = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for device in sorted(Path("/dev").glob("nvidia*")):   # a GPU's device files
        args += ["--dev-bind", str(device), str(device)]
    student = student.resolve()
    if student.parent != Path("/"):
        args += ["--tmpfs", str(student.parent)]           # the other students' folders
    args += [x for d in SOLUTIONS if (ROOT / d).is_dir() for x in ("--tmpfs", str(ROOT / d))]
    for folder in {ROOT, Path(sys.prefix), Path(sys.base_prefix), student}:
        args += ["--ro-bind", str(folder), str(folder)]      # again, should /tmp hold them
    args += ["--bind", str(scratch), str(scratch), *_prebuilt(scratch / "cache")]
    return args + [*NAMESPACES, "--chdir", str(ROOT), "--"]


def _prebuilt(cache: Path) -> list[str]:
    """bwrap's arguments that put the grader's prebuilt parts, read-only, in the compile cache
    ``cache`` (so a checker reads them, and cannot change what the next checker loads)."""
    try:
        from helpers.sim.compile import cache as module_cache
        from helpers.sim.compile.cache import LAYOUT_VERSION

        shared = module_cache.folder()
    except OSError:
        return []
    inside = cache / f"sim-v{LAYOUT_VERSION}"
    inside.mkdir(parents=True, mode=0o700)
    os.chmod(cache, 0o700)
    parts = [p for p in shared.iterdir() if p.name.startswith(PREBUILT) and p.is_dir()
             and any(f.suffix in (".o", ".gch") for f in p.iterdir())]   # built, not wanted
    return [x for p in parts for x in ("--ro-bind", str(p), str(inside / p.name))]


def descendants(pid: int) -> list[int]:
    """``pid`` and every process under it, as far as /proc tells."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            tasks = list(Path(f"/proc/{current}/task").glob("*/children"))
        except OSError:   # it ended while it was being read
            continue
        for task in tasks:
            try:
                todo += [int(child) for child in task.read_text().split()]
            except OSError:
                continue
    return found


def resident_mb(pid: int) -> float:
    """The resident memory of ``pid`` and every process under it, in MB."""
    total = 0
    for each in descendants(pid):
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def end(pid: int) -> None:
    """Kill the process group of ``pid`` (a session leader, in it) and every process under it,
    one that left the group included (without a PID namespace, only while its parent lives)."""
    under = descendants(pid)[1:]
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # gone, or its pid reused
        pass
    for each in under:
        try:
            os.kill(each, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # gone, or its pid reused
            pass
