"""What the whole suite shares. The suite is kept fast by design, so that it stays fast as every
chapter adds kernels to it (bench/suite_times.py measures it against its targets):

- most of its time is the host compiler building kernel modules (about a second each on the
  simulator), and built modules are cached by their source's text: so a test compiles the same
  text on every run (a source that names a temporary folder, in a ``#line`` or a checker's path,
  is a cache miss every time: use ``source_file``), and tests that can share one module share it
  (a module-scoped fixture compiling all their kernels at once);
- ``make test`` runs the tests on every core (pytest-xdist, one test file to a worker, a notebook
  kept whole);
- tests that take seconds even with a warm cache (a subprocess, a Jupyter kernel, a whole
  benchmark) are marked ``slow``: ``pytest -m "not slow"`` leaves them out while you work;
  ``make test`` runs them.
"""

import hashlib
import os
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def source_file():
    """write(name, text) -> the path of a file called name holding text: the same path for the
    same text in every run, so that a kernel compiled from it (its #line names the path) is found
    in the compile cache the next time."""
    root = Path(tempfile.gettempdir()) / f"cuda-course-test-sources-{os.getuid()}"

    def write(name, text):
        path = root / hashlib.sha256(text.encode()).hexdigest()[:16] / name
        if not path.is_file() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{name}-")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(partial, path)   # atomic: two workers may write the same file at once
        return path

    return write
