"""Where a learner stands: ``status()`` lists every exercise with its state, ``reset(name)`` puts
a stub back as shipped after saving the learner's version beside it.

    from helpers.exercises import status, reset
    status()                 # every exercise: not started, failing (with the hint), or passing
    reset("scale_vector")    # cuda_src/exercises/scale_vector.cu as shipped; yours is kept as
                             # scale_vector.cu.saved-<date>-<time>

A learner's work is never lost: the saved copy is written before the stub is replaced, and both
writes are atomic (a temporary file, then ``os.replace``).
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
from pathlib import Path

from helpers.exercises import catalog


def course_root() -> Path:
    """The folder that holds cuda_src/ and notebooks/: the learner's copy of the course."""
    from helpers.backend import CUDA_SRC

    return CUDA_SRC.parent


def state(exercise: catalog.Exercise, root: Path) -> tuple[str, str]:
    """``(state, detail)``: "not started", "failing" (detail: the verdict's line) or "passing"."""
    if not catalog.started(exercise, root):
        return "not started", ""
    with contextlib.redirect_stdout(io.StringIO()):   # the checker's own printing
        verdict = catalog.check(exercise, root)
    return ("passing", "") if verdict else ("failing", str(verdict))


def status(root: Path | None = None) -> dict[str, str]:
    """Print every exercise of the course with its state; return {name: state}.

    Runs each started exercise's checker (a few seconds each on the simulator). The pipeline
    exercise is read from notebook 05 as last saved: save the notebook first.
    """
    root = Path(root) if root else course_root()
    states = {}
    for exercise in catalog.EXERCISES:
        name, detail = state(exercise, root)
        states[exercise.name] = name
        print(f"{exercise.notebook[:2]}  {exercise.name:<13} {name:<12} {exercise.work}")
        if detail:
            print(f"    {detail}")
    done = sum(s == "passing" for s in states.values())
    print(f"{done} of {len(states)} exercises pass.")
    return states


def reset(name: str, root: Path | None = None) -> Path | None:
    """Put exercise ``name``'s stub back as shipped; return where the learner's version was
    saved (None when there was nothing to save)."""
    exercise = catalog.find(name)
    if not exercise.is_kernel:
        raise ValueError(
            f"{name} is written in a notebook cell ({exercise.work}), which reset cannot change "
            f"while the notebook may be open: copy the cell as shipped from "
            f"{catalog.AS_SHIPPED / (name + '.py')} instead")
    path = (Path(root) if root else course_root()) / exercise.work
    shipped = catalog.as_shipped(exercise)
    saved = None
    if path.is_file() and path.read_text(errors="replace") != shipped:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        saved = path.with_name(f"{path.name}.saved-{stamp}")
        _write_atomically(saved, path.read_bytes())
    _write_atomically(path, shipped.encode())
    if saved:
        print(f"Saved your version as {saved}; {exercise.work} is back as shipped.")
    else:
        print(f"{exercise.work} is as shipped (there was nothing of yours to save).")
    return saved


def _write_atomically(path: Path, data: bytes) -> None:
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_bytes(data)
    os.replace(part, path)
