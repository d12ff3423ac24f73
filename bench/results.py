"""What a benchmark writes: its table (Markdown, as printed), CSV, a bar chart, and its section of
``bench/RESULTS.md``.

RESULTS.md holds the figures of measured runs, one section per benchmark and machine, between
two marker comments that the benchmark writes itself (``--record``): a figure there comes from a
run, never from a hand. Prose about the figures stays outside the markers.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench import BENCH

RESULTS = BENCH / "RESULTS.md"


@dataclass
class Row:
    """One line of the course kernels' table (and of the CSV)."""
    kernel: str
    size: str
    ms: float | None = None
    batch: int = 1
    runs: int = 0
    rate: float | None = None
    unit: str = ""
    pct: float | None = None
    ok: bool = True
    peers: dict = field(default_factory=dict)   # column -> ratio (float) or a word


def fmt_peer(v):
    if not isinstance(v, float):
        return v
    return f"{v:,.0f}x" if v >= 100 else f"{v:#.3g}x"


def markdown_table(head, lines):
    """A Markdown table with its columns aligned (it reads as a table in a terminal too)."""
    lines = [head, *lines]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in lines]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def table(rows, columns):
    """The course kernels' table; ``columns`` names the peers."""
    head = ["kernel", "size", "time/launch", "rate", "% of ceiling", *(f"vs {p}" for p in columns)]
    lines = []
    for r in rows:
        if not r.ok:
            lines.append([r.kernel, r.size, "WRONG", *[""] * (len(head) - 3)])
            continue
        lines.append([r.kernel, r.size, f"{r.ms:.4g} ms", f"{r.rate:,.1f} {r.unit}",
                      "-" if r.pct is None else f"{r.pct:.0f}%",
                      *(fmt_peer(r.peers.get(p, "")) for p in columns)])
    return markdown_table(head, lines)


def write_csv(path, rows, columns):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "size", "median_ms", "batch", "runs", "rate", "unit",
                    "pct_of_ceiling", "check", *columns])
        for r in rows:
            w.writerow([r.kernel, r.size, r.ms if r.ok else "", r.batch, r.runs,
                        r.rate if r.ok else "", r.unit, "" if r.pct is None else r.pct,
                        "ok" if r.ok else "WRONG", *(r.peers.get(p, "") for p in columns)])


def plot(path, rows, columns, title):
    """Two bar charts: % of the ceiling, and each peer's time over the kernel's (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r.ok]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    pct = [r.pct or 0 for r in rows]
    bars = left.barh([r.kernel for r in rows], pct,
                     color=["tab:blue" if r.unit == "GB/s" else "tab:green" for r in rows])
    left.bar_label(bars, labels=[f"{p:.0f}%" if r.pct is not None else "n/a"
                                 for p, r in zip(pct, rows)], padding=2)
    left.axvline(70, color="gray", ls="--", lw=1)
    left.invert_yaxis()
    left.set_xlabel("% of the ceiling (blue: copy bandwidth, green: FMA throughput)")
    left.set_title("against the device (dashed: 70%)")

    height = 0.8 / len(columns)
    for k, peer in enumerate(columns):
        ys = [i + (k - (len(columns) - 1) / 2) * height for i in range(len(rows))]
        vals = [r.peers.get(peer) for r in rows]
        right.barh([y for y, v in zip(ys, vals) if isinstance(v, float)],
                   [v for v in vals if isinstance(v, float)], height=height, label=peer)
    right.set_yticks(range(len(rows)), [r.kernel for r in rows])
    right.set_xscale("log")
    right.axvline(1, color="k", lw=1)
    right.invert_yaxis()
    right.set_xlabel("peer time / course kernel time (log; > 1: the course kernel is faster)")
    right.set_title("against the peers")
    right.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _markers(key):
    return (f"<!-- {key}: written by the run that measured it; not edited by hand -->",
            f"<!-- end of {key} -->")


def record(key, text, path=RESULTS):
    """Put ``text`` into RESULTS.md as the section ``key``: in place of the one there, else at
    the end under its own heading. Written atomically (a reader sees the old file or the new)."""
    path = Path(path)
    begin, end = _markers(key)
    block = f"{begin}\n{text.strip()}\n{end}"
    old = path.read_text() if path.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(old):
        new = pattern.sub(lambda m: block, old)
    else:
        new = old.rstrip("\n") + f"\n\n## {key}\n\n{block}\n"
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(new)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return path


class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self):
        for s in self.streams:
            s.flush()


@contextlib.contextmanager
def copy_of_stdout():
    """Print as usual, and keep a copy: ``with copy_of_stdout() as out: ...; out.getvalue()``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, out)):
        yield out


def run_and_record(run, key, script, argv, record):
    """``run()``, printing as usual, and its result; with ``record``, what it printed is written
    under ``key``, with the command (``python <script>`` and ``argv`` but --record) that printed
    it."""
    with copy_of_stdout() as printed:
        result = run()
    if record:
        command = " ".join(["python", script, *(x for x in argv if x != "--record")])
        print(f"wrote {record_printed(key, command, printed.getvalue())}")
    return result


def record_printed(key, command, printed, fenced=True, path=RESULTS):
    """Record what a benchmark printed under the date and the command that printed it: as it
    printed it (``fenced``), or as Markdown."""
    import datetime

    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = f"```text\n{printed.rstrip()}\n```" if fenced else printed.strip()
    return record(key, f"{date}, from the repository root: `{command}`\n\n{body}", path)
