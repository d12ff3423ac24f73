"""Run one checker where the submission it runs cannot reach out of it (used by tools/grade.py).

A checker runs a student's code with the grader's rights: their kernel, compiled into a library
that the checker's process loads on the simulator, and for notebooks 05 and 11 their Python
function, run as it is. The grader's limits (time, memory, output) stop mistakes; this stops
malice. Each checker runs

- with no network: a network namespace of its own, in which no other machine, and no port of
  this one, can be reached;
- with a file system of only what it needs, read-only: the system's folders, Python's, the
  course's without its solutions and its .git, the one student's folder (so no other student's,
  no grader's file); writable only a private /tmp (its TMPDIR), /dev/shm and scratch folder,
  memory of a bounded size (its verdict comes back through a pipe: no folder of this machine's
  disk is writable to it);
- with an environment of only the course's settings and where the tools are (no grader's secret);
- as the first process of a PID namespace of its own, so that when it ends, or is killed at a
  limit, the kernel ends every process it started, one that left its process group included.

bubblewrap (``bwrap``: Debian's and Ubuntu's package bubblewrap) does all of it, where the
machine lets it make namespaces (a container may not). Without it, ``unshare`` (util-linux)
gives the network and process parts, the environment and a TMPDIR of its own, but the file
system stays as writable as for the grader. With neither, only the limits hold, and the grader says so.
Whatever runs it, the checker's process group and every process under it are killed when it
ends (``end``), and its memory is that of all its processes and its private folders
(``memory_mb``).
"""

from __future__ import annotations

import functools
import os
import re
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

SCRATCH_BYTES = 256 << 20
"""The size of a checker's scratch folder (its compile cache, its home), memory as /tmp is."""

SHM_BYTES = 64 << 20
"""The size of a checker's own /dev/shm, memory as /tmp is."""

COURSE = ("cuda_src", "helpers", "notebooks", "tools")
"""What a checker reads of the course. The rest of the checkout is not in its sandbox: its .git
(every solution's history), a class's folders or grades kept there, the instructor's files."""

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
"""The system's folders, in a checker's sandbox read-only (those this machine has)."""

SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh",
           "/etc/ssl/private", "/etc/sudoers", "/etc/sudoers.d")
"""What of /etc a grader running as root could read and a checker must not: hidden (emptied)."""

KEPT = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH",
        "CUDA_DEVICE", "CUDA_VISIBLE_DEVICES")
KEPT_PREFIXES = ("CUDA_COURSE_", "CUDA_SIM_")
"""The grader's environment variables that a checker gets (the course's settings, where the
compilers and the GPU are): no other, so that no secret of the grader's reaches a submission."""

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
    as well as this machine allows; ``scratch``, an empty folder, is all it may write (under
    bubblewrap, as memory: nothing of this machine's disk). The file descriptors the caller
    passes on (``pass_fds``) stay open in it: a checker's verdict comes back through one."""
    found = kind()
    if found == "bwrap":
        env = environment(scratch, "/tmp")
        env.update(CUDA_COURSE_CACHE_DIR=str(scratch / "cache"),
                   XDG_CACHE_HOME=str(scratch / "xdg-cache"))
        return _bwrap(student, scratch, env) + argv, env
    for folder in ("tmp", "home"):
        (scratch / folder).mkdir()
    env = environment(scratch, str(scratch / "tmp"))
    if found is None:
        return argv, env
    return UNSHARE + [sys.executable, "-c", NOT_INIT] + argv, env


def environment(scratch: Path, tmp: str) -> dict:
    """A checker's environment: the grader's variables that ``KEPT`` names (no secret of the
    grader's reaches it), its home and caches in ``scratch``, its temporary files in ``tmp``."""
    kept = {k: v for k, v in os.environ.items() if k in KEPT or k.startswith(KEPT_PREFIXES)}
    return {"PATH": os.defpath, **kept, "HOME": str(scratch / "home"), "TMPDIR": tmp,
            "MPLCONFIGDIR": str(scratch / "mpl")}


def _bwrap(student: Path, scratch: Path, env: dict) -> list[str]:
    """bwrap's arguments, up to the command: a file system of only what a checker needs, read-only
    (the system's folders, Python's, the course's without its solutions, ``student``), a private
    /tmp and /dev/shm, ``scratch`` a private folder, no namespace shared, and
    no variable but ``env``. bwrap mounts in order, the last on top: what hides comes after what
    it hides in."""
    args = ["bwrap", "--dev", "/dev", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
            "--proc", "/proc", "--size", str(TMP_BYTES), "--tmpfs", "/tmp", *_system(), *_gpu()]
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    prefixes |= _python_path(env)
    course = [ROOT / name for name in COURSE]
    args += [x for folder in [*prefixes, *course] for x in ("--ro-bind", str(folder), str(folder))]
    student = student.resolve()
    if student.parent != Path("/"):
        args += ["--tmpfs", str(student.parent)]           # the other students' folders
    args += [x for d in SOLUTIONS if (ROOT / d).is_dir() for x in ("--tmpfs", str(ROOT / d))]
    args += ["--ro-bind", str(student), str(student),
             "--perms", "0700", "--size", str(SCRATCH_BYTES), "--tmpfs", str(scratch),
             "--dir", env["HOME"], *_prebuilt(scratch / "cache")]
    args += ["--clearenv", *[x for item in env.items() for x in ("--setenv", *item)]]
    return args + [*NAMESPACES, "--chdir", str(ROOT), "--"]


def _python_path(env: dict) -> set:
    """The folders of PYTHONPATH (where packages were installed with --target, say), but the
    course's: its folders come in as ``COURSE`` says, without its solutions and its .git."""
    found = {Path(p).resolve() for p in env.get("PYTHONPATH", "").split(os.pathsep) if p}
    return {p for p in found if p.is_dir() and p != ROOT.resolve()
            and ROOT.resolve() not in p.parents and p not in ROOT.resolve().parents}


def _system() -> list[str]:
    """bwrap's arguments that put the system's folders (``SYSTEM``) in the sandbox, read-only,
    with ``SECRETS`` emptied."""
    args = []
    for name in SYSTEM:
        path = Path(name)
        if path.is_symlink():      # /bin -> usr/bin, where /usr is merged
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in SECRETS:
        if Path(name).is_dir() and not Path(name).is_symlink():
            args += ["--tmpfs", name]
        elif Path(name).exists():
            args += ["--ro-bind", "/dev/null", name]
    return args


def _gpu() -> list[str]:
    """bwrap's arguments that give a GPU's device files and what CUDA reads of the kernel's (its
    /sys; /proc/driver/nvidia is in the sandbox's /proc), on a machine that has one."""
    devices = sorted(Path("/dev").glob("nvidia*"))
    if not devices:
        return []
    return [*[x for d in devices for x in ("--dev-bind", str(d), str(d))], "--ro-bind", "/sys", "/sys"]


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
    parts = [p for p in shared.iterdir() if p.name.startswith(PREBUILT) and p.is_dir()
             and any(f.suffix in (".o", ".gch") for f in p.iterdir())]   # built, not wanted
    return ["--perms", "0700", "--dir", str(cache), "--perms", "0700", "--dir", str(inside),
            *[x for p in parts for x in ("--ro-bind", str(p), str(inside / p.name))]]


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


def memory_mb(pid: int) -> float:
    """The memory that ``pid`` and every process under it hold, in MB: their resident memory,
    and what their sandbox's private folders hold (``private_mb``)."""
    total = 0
    under = descendants(pid)
    for each in under:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024 + private_mb(under)


def private_mb(pids: list[int]) -> float:
    """What the private folders of the sandbox of ``pids`` hold, in MB: its /tmp, /dev/shm and
    scratch folder are memory (tmpfs) that no process's resident size shows, up to
    ``TMP_BYTES + SHM_BYTES + SCRATCH_BYTES``. Read through the root of the first of ``pids``
    whose mounts are not this process's; 0 where none's are (no sandbox, or ``unshare``'s,
    whose folders are this machine's)."""
    ours = _tmpfs(os.getpid())
    for each in pids:
        try:
            own = [folder for device, folder in _tmpfs(each).items() if device not in ours]
            if own:
                return sum(_used(f"/proc/{each}/root{folder}") for folder in own)
        except OSError:     # it ended while it was being read, or is not this user's
            continue
    return 0.0


def _tmpfs(pid: int) -> dict[str, str]:
    """{device: where it is mounted} of each tmpfs that process ``pid`` sees."""
    found = {}
    for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        if rest.split()[:1] == ["tmpfs"]:
            _, _, device, _, folder = fields.split()[:5]
            found.setdefault(device, re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), folder))
    return found


def _used(folder: str) -> float:
    """The MB that the file system at ``folder`` holds."""
    stat = os.statvfs(folder)
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize / 2**20


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
