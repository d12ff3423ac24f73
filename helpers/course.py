"""Where the learner's copy of the course is: the folder that holds ``cuda_src/`` and
``notebooks/``, whose kernels the notebooks compile and whose exercise stubs the checkers read.

The package and the course's files need not sit together. From a checkout (an editable install,
``make lab``) the package's parent is the course; but a class's JupyterHub has ``pip install .``
put ``helpers`` in site-packages, and each learner works in a copy of the course somewhere else.
So the course is looked for, in this order:

1. the working folder and its parents: a Jupyter kernel starts in its notebook's folder, so a
   notebook finds the copy it belongs to, the one whose stubs the learner edits;
2. ``CUDA_COURSE_ROOT`` (helpers/settings.py), for a program started outside any copy (set,
   it must hold the course);
3. the package's own parent (a checkout).

When none holds the course, ``CourseNotFound`` names every folder searched and what to do.
Nothing is remembered between calls: a notebook or a test may change folder or setting.

    from helpers import course
    course.cuda_src() / "vector_add.cu"
"""

from __future__ import annotations

import os
from pathlib import Path

from helpers import settings

PACKAGE_PARENT = Path(__file__).resolve().parent.parent
"""Where ``helpers`` is installed: the course itself in a checkout, site-packages after pip."""
MARKS = ("cuda_src", "notebooks")
"""The folders that make a folder the course."""


class CourseNotFound(FileNotFoundError):
    """No folder searched holds the course. ``searched``: the folders, in order; ``setting``:
    CUDA_COURSE_ROOT's value ("" when unset)."""

    def __init__(self, searched: list[Path], setting: str):
        self.searched, self.setting = searched, setting
        named = f"{settings.COURSE_ROOT}={setting} does not hold it" if setting else \
            f"{settings.COURSE_ROOT} is not set"
        super().__init__(
            f"cannot find the course's files ({'/ and '.join(MARKS)}/): none of "
            f"{', '.join(str(p) for p in searched)} holds them ({named}). Open the notebooks "
            f"from your copy of the course (cd into it before `jupyter lab`), or set "
            f"{settings.COURSE_ROOT}=/path/to/the/course (the folder with {MARKS[0]}/ in it)")


def holds_course(folder: Path) -> bool:
    return all((folder / mark).is_dir() for mark in MARKS)


def searched(cwd: Path | None = None, setting: str | None = None,
             package_parent: Path | None = None) -> list[Path]:
    """The folders to look in, in order (defaults: this process's working folder and setting,
    and PACKAGE_PARENT)."""
    cwd = Path(cwd if cwd is not None else os.getcwd()).resolve()
    setting = settings.get(settings.COURSE_ROOT) if setting is None else setting
    folders = [cwd, *cwd.parents]
    if setting:
        folders.append(Path(setting).expanduser().resolve())
    return list(dict.fromkeys([*folders, package_parent or PACKAGE_PARENT]))


def root(cwd: Path | None = None, setting: str | None = None,
         package_parent: Path | None = None) -> Path:
    """The course's folder: the first of ``searched(...)`` that holds it. A CUDA_COURSE_ROOT
    that does not hold it is an error when it is reached, not passed over: it was set on
    purpose, and a checkout's own files found instead would hide the mistake."""
    setting = settings.get(settings.COURSE_ROOT) if setting is None else setting
    folders = searched(cwd, setting, package_parent)
    chosen = Path(setting).expanduser().resolve() if setting else None
    for i, folder in enumerate(folders):
        if holds_course(folder):
            return folder
        if folder == chosen:
            raise CourseNotFound(folders[:i + 1], setting)
    raise CourseNotFound(folders, setting)


def cuda_src() -> Path:
    """The course's ``cuda_src/``: the kernels, the exercise stubs and their solutions."""
    return root() / "cuda_src"
