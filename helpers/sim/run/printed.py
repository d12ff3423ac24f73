"""Kernel printf in Jupyter: the lines show in the cell that launched the kernel.

A kernel's printf writes to the process's file descriptor 1, flushed when the launch ends, as a
GPU's printf buffer is when the host synchronises. In a Jupyter kernel, fd 1 is a pipe that a
thread of ipykernel reads and forwards into whichever cell runs at that moment: if the cell ends
before that thread has read the lines, they show in the next cell, or nowhere. So after a launch
the simulator waits until the pipe is empty (a second at most), and a moment more for the thread
to pass on what it read.
"""

import array
import fcntl
import sys
import termios
import time

TIMEOUT_S, HANDOVER_S = 1.0, 0.01


def _unread(fd: int) -> int:
    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]


def wait_until_forwarded() -> None:
    """Return once what the last launch printed has left fd 1's pipe for the running cell (at
    once where stdout is no Jupyter kernel's pipe, or nothing is waiting in it)."""
    fd = getattr(sys.stdout, "_fid", None)   # ipykernel's OutStream: the read end of fd 1's pipe
    if not isinstance(fd, int):
        return
    try:
        if not _unread(fd):
            return
        deadline = time.monotonic() + TIMEOUT_S
        while _unread(fd) and time.monotonic() < deadline:
            time.sleep(0.001)
    except OSError:
        return
    time.sleep(HANDOVER_S)
