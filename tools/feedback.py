#!/usr/bin/env python3
"""Feedback a student can be given: one file each, Markdown and HTML, from a grading run.

    python tools/feedback.py grades.csv [--points points.json]

``tools/grade.py`` writes the feedback when it ends; this command writes it again from its
``grades.csv`` (with a new points file, say) without running a checker: it rescores the rows,
rewrites ``grades.csv`` and ``grades.gradebook.csv`` (``tools/gradebook.py``), and writes
``grades.feedback/<student>.md`` and ``.html``.

A student's file gives their score, then every exercise graded: its status (FAST, passed, not
yet, not handed in, not started, stopped by a limit, crashed), its points, the checker's problem
and hint, for a right kernel that is not yet FAST what is missing, and for work that does not
compile the compiler's first error (a notebook prints it above the
verdict; here it is beside it). Paths in it are the student's own (``cuda_src/exercises/...``),
never the grading machine's.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
from pathlib import Path

import gradebook
from helpers.exercises import catalog  # gradebook has put the course on the path

TITLES = {"fast": "passed, FAST", "passed": "passed", "not yet": "not yet", "not handed in": "not handed in",
          "not started": "not started", "stopped": "stopped by the grader's limits",
          "crashed": "crashed"}
"""How each of ``gradebook.STATUSES`` reads in a student's feedback."""


def entries(row: dict) -> list[tuple[str, str, bool]]:
    """``(label, text, as code)`` for what the feedback says about one exercise."""
    if row["status"] in gradebook.PASSING:
        slow = row.get("slow", "")      # a grades.csv written before the speed tier has none
        return [("What was checked", row["problem"], False)] + (
            [("Not yet FAST", slow, False), ("Hint", row["hint"], False)] if slow else [])
    found = [("Problem", row["problem"], False), ("Hint", row["hint"], False)]
    if row["error"]:
        found.append(("First error", row["error"], True))
    return [entry for entry in found if entry[1]]


def notebook(row: dict) -> str:
    """The notebook whose exercise the row is."""
    return catalog.find(row["exercise"]).notebook


def heading(row: dict) -> str:
    return (f"{row['exercise']}: {TITLES[row['status']]}, {row['score']} of {row['max_score']} "
            f"{'point' if row['max_score'] == '1' else 'points'}")


def _md(text: str) -> str:
    """``text`` as Markdown that reads as the text alone, and makes no structure whatever the
    student put in it (an exception's message, a file's name): on one line, every character
    Markdown gives a meaning escaped."""
    one_line = " ".join(part.strip() for part in text.splitlines() if part.strip())
    return re.sub(r"([\\`*_\[\]<>#|=\-+!~()&])", r"\\\1", one_line)


def _code_block(text: str) -> str:
    """``text`` in a fenced code block whose fence is longer than any run of backticks in it,
    so that nothing in it closes the block (CommonMark)."""
    fence = "`" * max(3, 1 + max(map(len, re.findall("`+", text)), default=0))
    return f"{fence}\n{text}\n{fence}"


def exercise_markdown(row: dict) -> str:
    """One exercise's part of the feedback, as Markdown (also Gradescope's output for it)."""
    parts = []
    for label, text, code in entries(row):
        parts.append(f"**{label}:**\n\n{_code_block(text)}" if code
                     else f"**{label}:** {_md(text)}")
    return "\n\n".join(parts)


def total(rows: list[dict]) -> tuple[str, str]:
    """(score, max_score) of one student's scored rows."""
    (entry,) = gradebook.totals(rows)
    return entry["score"], entry["max_score"]


def markdown(student: str, rows: list[dict]) -> str:
    """The feedback file of ``student``, from their scored rows."""
    score, max_score = total(rows)
    lines = [f"# Feedback for {_md(student)}", "", f"Score: **{score} of {max_score}** points.",
             "", "| Exercise | Notebook | Result | Points |", "|---|---|---|---|"]
    lines += [f"| {_md(r['exercise'])} | {_md(notebook(r))} | {TITLES[r['status']]} | "
              f"{r['score']} of {r['max_score']} |" for r in rows]
    for row in rows:
        lines += ["", f"## {_md(heading(row))}", "", exercise_markdown(row)]
    return "\n".join(lines) + "\n"


STYLE = ("body{font-family:sans-serif;max-width:52em;margin:2em auto;line-height:1.45}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em}"
         "pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}"
         ".passed{color:#1a7f37}.other{color:#b35900}")


def page(student: str, rows: list[dict]) -> str:
    """The same feedback as ``markdown``, as an HTML page."""
    esc = html.escape
    score, max_score = total(rows)
    body = [f"<h1>Feedback for {esc(student)}</h1>",
            f"<p>Score: <strong>{esc(score)} of {esc(max_score)}</strong> points.</p>",
            "<table><tr><th>Exercise</th><th>Notebook</th><th>Result</th><th>Points</th></tr>"]
    body += [f"<tr><td>{esc(r['exercise'])}</td><td>{esc(notebook(r))}</td>"
             f"<td class=\"{_css(r)}\">"
             f"{esc(TITLES[r['status']])}</td><td>{esc(r['score'])} of {esc(r['max_score'])}"
             "</td></tr>" for r in rows]
    body.append("</table>")
    for row in rows:
        body.append(f"<h2 class=\"{_css(row)}\">{esc(heading(row))}</h2>")
        for label, text, code in entries(row):
            body.append(f"<p><strong>{esc(label)}:</strong></p><pre>{esc(text)}</pre>" if code
                        else f"<p><strong>{esc(label)}:</strong> {esc(text)}</p>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>Feedback for {esc(student)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _css(row: dict) -> str:
    return "passed" if row["status"] in gradebook.PASSING else "other"


def feedback_folder(out: Path) -> Path:
    """Where the feedback goes beside ``grades.csv``: ``grades.feedback/``."""
    return out.with_suffix(".feedback")


def write(rows: list[dict], folder: Path) -> list[Path]:
    """Write ``<student>.md`` and ``<student>.html`` into ``folder`` for each student of the
    scored ``rows``; return the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student in dict.fromkeys(row["student"] for row in rows):
        mine = [row for row in rows if row["student"] == student]
        for suffix, text in ((".md", markdown(student, mine)), (".html", page(student, mine))):
            path = folder / f"{student}{suffix}"
            part = path.with_name(path.name + ".part")
            part.write_text(text, encoding="utf-8")
            os.replace(part, path)
            written.append(path)
    return written


def publish(rows: list[dict], out: Path, points: dict[str, float]) -> list[dict]:
    """Score ``rows`` with ``points``; write ``out`` (grades.csv), its gradebook and the
    feedback; return the scored rows."""
    rows = gradebook.scored(rows, points)
    gradebook.write(rows, out)
    write(rows, feedback_folder(out))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("grades", type=Path, help="the grades.csv of a tools/grade.py run")
    parser.add_argument("--points", type=Path, help="points by exercise (.json or .toml)")
    args = parser.parse_args(argv)
    if not args.grades.is_file():
        parser.error(f"{args.grades} is not a file: give the grades.csv of tools/grade.py")
    publish(gradebook.read(args.grades), args.grades, gradebook.load_points(args.points))
    print(f"wrote {args.grades}, {gradebook.gradebook_path(args.grades)} and the feedback in "
          f"{feedback_folder(args.grades)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
