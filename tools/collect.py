#!/usr/bin/env python3
"""Collect a class's work: copy each student's exercise files out of their copy of the student
release into the layout ``tools/grade.py`` reads.

    python tools/collect.py STUDENTS OUT       # OUT must not exist yet

STUDENTS holds one folder a student, named after them: their copy of the release (a clone of
their repository, their home folder on the class's JupyterHub, an unpacked ZIP). For each
exercise of the catalog, the file the student edits (``helpers.exercises.catalog``: the ``.cu``
and ``.py`` stubs in ``cuda_src/exercises/``, the ``.cl`` ones in ``cuda_src/opencl/exercises/``,
notebooks 05 and 11) is copied to ``OUT/<student>/<the same path>``, and nothing else: no solution,
test or checker a student's folder might hold. A file is found at its path in the release; where a
student handed in loose files instead (a Gradescope upload, a ZIP of the files alone), at the file
of that name nearest the top of their folder. A file not found is left out, and the grader reports
that exercise as not handed in. Only real files in real folders are taken: a file that is a
symbolic link, or reached through one out of the student's folder, and a student's folder that is
a link, are left out with a warning that names the student and why.

The collection is built beside OUT and moved into place when complete, so that OUT is never half
written.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import catalog  # noqa: E402 - after the path is set


def find_work(folder: Path, exercise: catalog.Exercise) -> Path | None:
    """The file under ``folder`` holding the student's work for ``exercise``: at its path in the
    release, else the file of its name nearest the top, outside hidden folders
    (``.ipynb_checkpoints``, ``.git``); None when there is none, or two as near. A file that is
    not the student's own (``not_own``) is never taken: it is reported, and left out."""
    at_path = folder / exercise.work
    if at_path.is_file() or at_path.is_symlink():
        return at_path if _own(folder, at_path) else None
    found = [p.relative_to(folder) for p in folder.rglob(Path(exercise.work).name)
             if p.is_file() or p.is_symlink()]
    found = [p for p in found if not any(part.startswith(".") for part in p.parts)
             and _own(folder, folder / p)]
    nearest = [p for p in found if len(p.parts) == min(len(q.parts) for q in found)]
    return folder / nearest[0] if len(nearest) == 1 else None


def not_own(folder: Path, path: Path) -> str:
    """Why the file at ``path`` is not ``folder``'s own: a symbolic link (a clone or an unpacked
    ZIP keeps them: to another student's file, to a solution), or reached through one that
    leads out of ``folder``; "" for a plain file inside it."""
    if path.is_symlink():
        return "a symbolic link"
    own = os.path.realpath(folder)
    if os.path.commonpath([own, os.path.realpath(path)]) != own:
        return "reached through a symbolic link that leads out of the student's folder"
    return ""


def _own(folder: Path, path: Path) -> bool:
    """True for a file of ``folder``'s own; else False, and the instructor is told."""
    why = not_own(folder, path)
    if why:
        print(f"warning: {folder.name}: {path.relative_to(folder).as_posix()} is {why} (to "
              f"{os.path.realpath(path)}): skipped, as not handed in; ask {folder.name} to hand "
              "in the file itself", file=sys.stderr, flush=True)
    return not why


def real_folders(parent: Path) -> list[Path]:
    """The folders in ``parent``, sorted; an entry that is a symbolic link to a folder (a
    student's name on another's work) is skipped, and the instructor is told."""
    folders = []
    for path in sorted(parent.iterdir()):
        if path.is_symlink() and path.is_dir():
            print(f"warning: {path.name} is a symbolic link (to {os.readlink(path)}), not a "
                  "folder of its own: skipped; put that student's own work in a folder named "
                  "after them", file=sys.stderr, flush=True)
        elif path.is_dir():
            folders.append(path)
    return folders


def collect_student(folder: Path, dest: Path, exercises=None) -> list[str]:
    """Copy ``folder``'s work for each of ``exercises`` (default: all) to its path under
    ``dest``; return the exercises' names whose work was found."""
    found = []
    for exercise in exercises or catalog.EXERCISES:
        work = find_work(folder, exercise)
        if work is None:
            continue
        (dest / exercise.work).parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(os.open(work, os.O_RDONLY | os.O_NOFOLLOW), "rb") as source, \
                open(dest / exercise.work, "wb") as copy:
            shutil.copyfileobj(source, copy)
        found.append(exercise.name)
    return found


def collect(students: Path, out: Path) -> dict[str, list[str]]:
    """Collect every student folder of ``students`` into ``out`` (a new folder); return
    ``{student: the exercises handed in}``."""
    if out.exists():
        raise SystemExit(f"{out} already exists: give a new folder")
    folders = [p for p in real_folders(students) if not p.name.startswith(".")]
    if not folders:
        raise SystemExit(f"{students} holds no student folders (one folder a student, each "
                         "their copy of the student release)")
    out.parent.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        handed_in = {f.name: collect_student(f, part / f.name) for f in folders}
        for student in handed_in:
            (part / student).mkdir(exist_ok=True)  # a student with nothing: a folder still
        os.replace(part, out)
    finally:
        shutil.rmtree(part, ignore_errors=True)
    return handed_in


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("students", type=Path, help="one folder a student, each their release")
    parser.add_argument("out", type=Path, help="the folder to create, for tools/grade.py")
    args = parser.parse_args(argv)
    if not args.students.is_dir():
        parser.error(f"{args.students} is not a folder")
    handed_in = collect(args.students, args.out)
    total = len(catalog.EXERCISES)
    for student, names in handed_in.items():
        missing = [e.name for e in catalog.EXERCISES if e.name not in names]
        print(f"{student:<20} {len(names)} of {total} exercises"
              + (f" (missing: {', '.join(missing)})" if missing else ""))
    print(f"wrote {args.out}: grade it with  python tools/grade.py {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
