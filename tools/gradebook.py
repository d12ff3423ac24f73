"""Points and totals: what each exercise is worth, and the two CSV files a grading run writes.

Each exercise is worth its catalog's ``points`` (``helpers.exercises.catalog``: 1 each), unless
the instructor's points file says otherwise: JSON, ``{"julia": 2, "sepia_opencl": 0.5}``, or the
same as TOML (``julia = 2``; read with ``tomllib``, in Python 3.11 and newer). An exercise the
file leaves out keeps its catalog's points. A passed exercise scores its points (FAST scores
the same: the speed tier is feedback, not points), any other nothing.

- ``grades.csv``: one row a student and exercise (``ROW_FIELDS``): the status, the checker's
  problem and hint, the first compiler error, for a right kernel of a chapter about speed what
  keeps it from FAST (``slow``), the score and the time taken.
- ``grades.gradebook.csv``: one row a student, with nbgrader's gradebook column names
  (``student_id``, ``raw_score``, ``score``, ``max_score``; no late penalty here, so the score is
  the raw score), then one column an exercise holding its score: the form a learning platform's
  gradebook import takes.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import catalog  # noqa: E402 - after the path is set

ROW_FIELDS = ["student", "exercise", "result", "status", "score", "max_score", "problem", "hint",
              "error", "slow", "seconds"]
STATUSES = ("fast", "passed", "not yet", "not handed in", "not started", "stopped", "crashed")
"""What happened to one exercise of one student: the checker passed it and rated it FAST (an
exercise that asks for speed); it passed it; it named a mistake (a compile error is one); the
work was not in the submission; the stub was as shipped; a limit stopped the checker; its process
died without a verdict."""
PASSING = ("fast", "passed")
"""The statuses that score."""
GRADEBOOK_FIELDS = ["student_id", "raw_score", "score", "max_score"]


def load_points(path: Path | None = None) -> dict[str, float]:
    """``{exercise: points}``: the catalog's, with those of the points file at ``path``."""
    points = {e.name: float(e.points) for e in catalog.EXERCISES}
    if path is None:
        return points
    given = _read_points_file(Path(path))
    for name, value in given.items():
        if name not in points:
            raise SystemExit(f"{path}: no exercise called {name!r}; the exercises are: "
                             + ", ".join(points))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise SystemExit(f"{path}: {name} = {value!r}, but points are a number, 0 or more")
        points[name] = float(value)
    return points


def _read_points_file(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        try:
            import tomllib
        except ImportError:  # Python 3.10
            raise SystemExit(f"{path}: reading TOML needs Python 3.11 or newer; write the same "
                             "as JSON (points.json: {\"julia\": 2})") from None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise SystemExit(f"{path} is not valid TOML: {err}") from None
    try:
        given = json.loads(text)
    except ValueError as err:
        raise SystemExit(f"{path} is not valid JSON: {err}") from None
    if not isinstance(given, dict):
        raise SystemExit(f"{path}: give an object of points by exercise, such as "
                         "{\"julia\": 2}")
    return given


def scored(rows: list[dict], points: dict[str, float]) -> list[dict]:
    """``rows`` with each one's ``score`` and ``max_score``, as text for the CSV."""
    return [{**row, "max_score": number(points[row["exercise"]]),
             "score": number(points[row["exercise"]] if row["status"] in PASSING else 0)}
            for row in rows]


def number(value: float) -> str:
    """A score as a gradebook shows it: 2 rather than 2.0, 0.5 as it is."""
    return f"{float(value):g}"


def totals(rows: list[dict]) -> list[dict]:
    """One gradebook row a student (``GRADEBOOK_FIELDS`` and one column an exercise) of scored
    ``rows``, students in the rows' order."""
    table = {}
    for row in rows:
        entry = table.setdefault(row["student"], {"student_id": row["student"], "raw_score": 0.0,
                                                  "max_score": 0.0})
        entry["raw_score"] += float(row["score"])
        entry["max_score"] += float(row["max_score"])
        entry[row["exercise"]] = row["score"]
    return [{**entry, "raw_score": number(entry["raw_score"]), "score": number(entry["raw_score"]),
             "max_score": number(entry["max_score"])} for entry in table.values()]


def gradebook_path(out: Path) -> Path:
    """Where the gradebook goes beside ``grades.csv``: ``grades.gradebook.csv``."""
    return out.with_suffix(".gradebook.csv")


def write(rows: list[dict], out: Path) -> None:
    """Write scored ``rows`` to ``out`` and their totals to ``gradebook_path(out)``."""
    write_csv(out, ROW_FIELDS, rows)
    exercises = list(dict.fromkeys(row["exercise"] for row in rows))
    write_csv(gradebook_path(out), GRADEBOOK_FIELDS + exercises, totals(rows))


def read(out: Path) -> list[dict]:
    """The rows of a ``grades.csv`` that ``write`` wrote."""
    with open(out, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_csv(path: Path, fields: list[str], rows: list[dict]) -> None:
    part = path.with_name(path.name + ".part")
    with open(part, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    os.replace(part, path)
