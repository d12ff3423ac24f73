#!/usr/bin/env python3
"""Make the student release: a copy of the course without the solutions, to hand out or push to
a repository of its own.

    python tools/student_release.py OUT        # OUT must not exist yet

Copies the course's files (those git tracks; in a copy without git, such as a ZIP download, the
files there less what ``.gitignore`` ignores; for the tests, ``release(..., working_tree=True)``,
also those git does not track yet and does not ignore), leaving out what gives the answers away:

- every ``solutions/`` folder (``cuda_src/solutions/``, ``cuda_src/opencl/solutions/``,
  ``helpers/exercises/solutions/``: the answers themselves);
- ``tests/``: the exercise tests build known-wrong kernels from the solutions and hold a right
  pipeline in pieces (the notebooks stay testable: ``make test`` runs them);
- ``.ci/``, the course's own CI.

Every exercise stub is written as shipped (from ``helpers/exercises/as_shipped/``), whatever
this checkout's copy holds, and README.md starts with a note that this is the student release.
``tests/tools/test_student_release.py`` checks that no solution survives; the notebooks' nbval run
(``conftest.py``) executes them in such a release, so that they are known to run without answers.
"""

from __future__ import annotations

import argparse
import fnmatch
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import catalog  # noqa: E402 - after the path is set

LEFT_OUT = ("solutions/", "tests/", ".ci/")
NOTE = ("> **Student release.** The exercises' solutions are not included: your instructor has "
        "them. Check your work with the checker cell under each exercise, or with "
        "`helpers.exercises.status()`.\n\n")


def tracked_files(root: Path = ROOT, working_tree: bool = False) -> list[str]:
    """The course's files under ``root``, as paths relative to it: those git tracks (with
    ``working_tree``, also those it does not track yet and does not ignore: a new module not yet
    added), or where git has no index here (a ZIP download, a copy), every file less what
    .gitignore ignores."""
    new = ["--others", "--exclude-standard"] if working_tree else []
    try:
        listing = subprocess.run(["git", "ls-files", "-z", "--cached", *new], cwd=root,
                                 check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return unignored_files(root)
    return [p for p in listing.decode().split("\0") if p]


def unignored_files(root: Path) -> list[str]:
    """The files under ``root`` that its .gitignore does not ignore (and none in .git), sorted.
    The course's .gitignore uses three forms of line: ``name/`` (a folder of that name
    anywhere), ``*.ext`` or ``name`` (a file name anywhere), ``dir/pattern`` and ``dir/sub/``
    (from the root)."""
    ignore = root / ".gitignore"
    rules = [r.strip() for r in (ignore.read_text().splitlines() if ignore.is_file() else [])
             if r.strip() and not r.startswith("#")]
    folders = {r.strip("/") for r in rules if r.endswith("/") and "/" not in r.strip("/")}
    paths = [r.strip("/") + ("/*" if r.endswith("/") else "") for r in rules
             if "/" in r.strip("/")]
    names = [r for r in rules if "/" not in r]
    folders.add(".git")
    found = []
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        parts = Path(name).parts
        if not path.is_file() or any(fnmatch.fnmatch(part, f) for part in parts[:-1]
                                     for f in folders):
            continue
        if any(fnmatch.fnmatch(parts[-1], n) for n in names) or \
                any(fnmatch.fnmatch(name, p) for p in paths):
            continue
        found.append(name)
    return sorted(found)


def left_out(name: str) -> bool:
    """True for a file the release must not hold: in any solutions/ folder, tests/ or .ci/."""
    return "solutions" in Path(name).parts[:-1] or name.startswith(LEFT_OUT[1:])


def release(out: Path, root: Path = ROOT, working_tree: bool = False) -> list[str]:
    """Write the release into ``out`` (a new folder); return the files written. ``working_tree``:
    with the files git does not track yet and does not ignore (the tests' release, of the work
    at hand), not only those it tracks (the release to hand out)."""
    if out.exists():
        raise SystemExit(f"{out} already exists: give a new folder")
    written = []
    for name in tracked_files(root, working_tree):
        if left_out(name) or not (root / name).is_file():
            continue
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, out / name)
        written.append(name)
    for exercise in catalog.EXERCISES:  # its folder may hold no file git tracks
        if exercise.is_kernel:
            (out / exercise.work).parent.mkdir(parents=True, exist_ok=True)
            (out / exercise.work).write_text(catalog.as_shipped(exercise))
    readme = out / "README.md"
    readme.write_text(NOTE + readme.read_text())
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to create")
    args = parser.parse_args(argv)
    files = release(args.out)
    print(f"wrote {len(files)} files into {args.out}, without any {', '.join(LEFT_OUT)}")
    print(f"to publish it: cd {args.out} && git init && git add -A && git commit -m 'Course'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
