"""Where a learner stands: ``status()`` lists every exercise with its state, ``reset(name)`` puts
a stub back as shipped after saving the learner's version beside it.

    from helpers.exercises import status, reset
    status()                 # every exercise, chapter by chapter, smallest first: not started,
                             # failing (with the hint), passing (for a chapter about speed, with
                             # what is missing for FAST) or fast
    reset("scale_vector")    # cuda_src/exercises/scale_vector.cu as shipped; yours is kept as
                             # scale_vector.cu.saved-<date>-<time>

A learner's work is never lost: the saved copy is written before the stub is replaced, under a
name that no file has yet (``-2``, ``-3``, ... follow the time when several resets share a
second), and both writes are atomic (a temporary file, then a hard link that refuses an existing
name for the saved copy, ``os.replace`` for the stub).
"""

from __future__ import annotations

import contextlib
import datetime
import io
import itertools
import os
from pathlib import Path

from helpers import course
from helpers.exercises import catalog


def state(exercise: catalog.Exercise, root: Path) -> tuple[str, str]:
    """``(state, detail)``: "not started", "failing" (detail: the verdict's line), "passing"
    (detail: the verdict's line where it says what is missing for FAST) or "fast" (right, and
    fast enough for an exercise that asks for speed)."""
    if not catalog.started(exercise, root):
        return "not started", ""
    with contextlib.redirect_stdout(io.StringIO()):   # the checker's own printing
        verdict = catalog.check(exercise, root)
    if verdict.fast:
        return "fast", ""
    if verdict:
        return "passing", str(verdict) if verdict.slow else ""
    return "failing", str(verdict)


def status(root: Path | None = None) -> dict[str, str]:
    """Print every exercise of the course with its state, chapter by chapter, each chapter's
    ladder in the catalog's order (smallest first: the order to do them in); return
    {name: state}.

    Runs each started exercise's checker (a few seconds each on the simulator). The exercises
    written in notebook cells (05, 11) are read as last saved: save the notebook first.
    """
    root = Path(root) if root else course.root()
    states = {}
    width = max(len(e.name) for e in catalog.EXERCISES)
    for notebook, ladder in chapters(catalog.EXERCISES):
        lines = []
        for step, exercise in enumerate(ladder, start=1):
            name, detail = state(exercise, root)
            states[exercise.name] = name
            lines.append(f"  {step}. {exercise.name:<{width}} {name:<12} {exercise.work}")
            if detail:
                lines.append(f"       {detail}")
        passing = sum(states[e.name] in ("passing", "fast") for e in ladder)
        print(f"{notebook.removesuffix('.ipynb').replace('_', ' ')}: {passing} of "
              f"{len(ladder)} pass")
        print("\n".join(lines))
    done = sum(s in ("passing", "fast") for s in states.values())
    fast = sum(s == "fast" for s in states.values())
    print(f"{done} of {len(states)} exercises pass" + (f", {fast} of them FAST." if fast else "."))
    return states


def chapters(exercises) -> list[tuple[str, list]]:
    """``[(notebook, [exercise, ...]), ...]``: the exercises grouped by notebook, the notebooks
    in the course's order (their numbers), each group in the order given."""
    groups: dict[str, list] = {}
    for exercise in exercises:
        groups.setdefault(exercise.notebook, []).append(exercise)
    return sorted(groups.items())


def reset(name: str, root: Path | None = None) -> Path | None:
    """Put exercise ``name``'s stub back as shipped; return where the learner's version was
    saved (None when there was nothing to save)."""
    exercise = catalog.find(name)
    if not exercise.is_kernel:
        raise ValueError(
            f"{name} is written in a notebook cell ({exercise.work}), which reset cannot change "
            f"while the notebook may be open: copy the cell as shipped from "
            f"{catalog.AS_SHIPPED / (name + '.py')} instead")
    path = (Path(root) if root else course.root()) / exercise.work
    shipped = catalog.as_shipped(exercise)
    saved = None
    if path.is_file() and path.read_text(errors="replace") != shipped:
        saved = _save_beside(path, path.read_bytes())
    os.replace(_written_part(path, shipped.encode()), path)
    if saved:
        print(f"Saved your version as {saved}; {exercise.work} is back as shipped.")
    else:
        print(f"{exercise.work} is as shipped (there was nothing of yours to save).")
    return saved


def _save_beside(path: Path, data: bytes) -> Path:
    """Write ``data`` to a new file ``<name>.saved-<date>-<time>[-N]`` beside ``path`` and return
    it. The name is claimed with a hard link, which fails rather than replace a file that exists:
    two resets in one second, or two processes at once, never overwrite a saved copy."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    part = _written_part(path, data)
    try:
        for n in itertools.count(1):
            saved = path.with_name(f"{path.name}.saved-{stamp}" + (f"-{n}" if n > 1 else ""))
            with contextlib.suppress(FileExistsError):
                os.link(part, saved)
                return saved
    finally:
        part.unlink()


def _written_part(path: Path, data: bytes) -> Path:
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    with open(part, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return part
