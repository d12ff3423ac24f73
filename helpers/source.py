"""Showing the course's kernels in a notebook: a file of cuda_src/, or the part of it that a
section is about, and the line number of a line (for the simulator's pictures of one line)."""

from helpers import course


def _lines(name):
    return (course.cuda_src() / name).read_text().splitlines()


def show_source(name, start=None, stop=None):
    """Print cuda_src/<name>, from the line that contains `start` up to the one before `stop`."""
    lines = _lines(name)
    first = next(i for i, line in enumerate(lines) if start in line) if start else 0
    last = next(i for i, line in enumerate(lines) if stop in line) if stop else len(lines)
    print("\n".join(lines[first:last]).rstrip())


def line_of(name, text, nth=0, after=""):
    """The number (from 1) of the nth line of cuda_src/<name> that contains `text`, counting from
    the first line that contains `after`."""
    lines = _lines(name)
    start = next(i for i, line in enumerate(lines) if after in line)
    return [i + 1 for i, line in enumerate(lines) if i >= start and text in line][nth]
