"""Figures quoted in a notebook's prose match the stored outputs they quote.

The convention. A figure in a markdown cell that comes from a measurement is written as

    <span data-out="copy-ceiling">4,100 GB/s</span>

naming the code cell whose stored output it quotes (the cell's id in the .ipynb; the cells that
are quoted get readable ids). Every number in the span must be one that cell printed, as printed
or rounded to fewer digits: "55 GB/s" quotes 55.3, "33%" quotes 32.6, "0.08 ms" quotes 0.081. A
figure with a unit of time or rate that is not a measurement of this run (a datasheet's, an
example's) is written as ``<span data-paper>4.8 TB/s</span>``; any other number with such a unit
in the prose is an untagged figure, and fails.

A comparison is a claim too: "faster", "slower", a ratio ("1.5x", "16 times fewer", "twice as
long"). In the chapters of the second edition (``COMPARED``) each one is tied to what measured it:
the number of a ratio is itself a tagged figure (``<span data-out="microscope-check">16</span>
times fewer``), and a "faster" or "slower" shares its sentence with a tagged figure, the
measurement it rests on (or, for a datasheet's claim, ``data-paper``). A comparison that is
arithmetic, not measurement ("twice the steps"), is written without those words.

Stored outputs come from one GPU run (tools/store_outputs.py), after which the prose must still
agree with them: a notebook without stored outputs is skipped by the comparison, one with outputs
must pass it. The tags themselves (each names a code cell of its notebook) are checked always.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

QUOTE = re.compile(r'<span data-out="([^"]+)">(.*?)</span>', re.S)
PAPER = re.compile(r"<span data-paper>(.*?)</span>", re.S)
NUMBER = re.compile(r"(?<![\w.^])\d[\d,]*(?:\.\d+)?")
UNIT = re.compile(r"(?<![\w.^])\d[\d,]*(?:\.\d+)?\s*(?:ms|µs|ns|[GTM]B/s|[GT]FLOP/s|x faster|"
                  r"x slower|times faster|times slower)(?!\w)")
CODE = re.compile(r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$", re.S)
TAGGED = "TAGGEDFIGURE"        # what a tag's span becomes when comparisons are read
_AMOUNT = (rf"(?P<amount>{TAGGED}|\d[\d,]*(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|"
           r"a few|several|many|hundreds of|thousands of)")
COMPARISON = re.compile(
    r"(?i)(?<![\w.])(?:faster|slower|quicker|speed-?ups?|(?P<twice>twice|half) (?:as|the)\b"
    rf"|{_AMOUNT}(?:x(?![\w-])| times (?:as|more|fewer|less|faster|slower|larger|smaller|"
    r"higher|lower|longer|shorter|greater|that|the|what)\b))")
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n\s*[-*] |\n\s*\d+\. |\n\|")
COMPARED = ("06", "07", "08", "09", "10", "12", "14")
"""The chapters whose comparisons are tied to measurements: the second edition's (issue 29)."""


def read(path):
    return nbformat.read(path, as_version=4)


def has_outputs(nb) -> bool:
    return any(c.get("outputs") for c in nb.cells if c.cell_type == "code")


def printed(cell) -> str:
    """What a code cell printed: its stream text and the plain text of its results."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "text/plain" in out.get("data", {}):
            parts.append(out.data["text/plain"])
    return "".join(parts)


def numbers(text):
    return [n.replace(",", "") for n in NUMBER.findall(text)]


def quotes(quoted: str, value: str) -> bool:
    """Whether the figure ``quoted`` ("55", "0.08") is ``value`` rounded to its digits."""
    q, v = Decimal(quoted), Decimal(value)
    half = Decimal(1).scaleb(q.as_tuple().exponent) / 2
    return abs(v - q) <= half


def tags(nb):
    """(markdown cell index, cell id quoted, text of the span) of every quote in ``nb``."""
    return [(i, m.group(1), m.group(2)) for i, c in enumerate(nb.cells)
            if c.cell_type == "markdown" for m in QUOTE.finditer(c.source)]


def mismatches(nb):
    """What is wrong with each quote of ``nb`` against its stored outputs (empty: all agree)."""
    cells = {c.get("id"): c for c in nb.cells}
    problems = []
    for index, cell_id, text in tags(nb):
        cell = cells.get(cell_id)
        where = f"markdown cell {index} quotes {text!r} from cell {cell_id!r}"
        if cell is None or cell.cell_type != "code":
            problems.append(f"{where}, which is not a code cell of this notebook")
            continue
        shown = numbers(printed(cell))
        if not numbers(text):
            problems.append(f"{where}: the span holds no number")
        for figure in numbers(text):
            if not any(quotes(figure, value) for value in shown):
                problems.append(f"{where}: {figure} is not among the numbers that cell printed "
                                f"({', '.join(shown[:40]) or 'nothing'}): update the prose")
    return problems


def untagged(nb):
    """Figures with a unit of time or rate in the prose, outside any tag."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        text = PAPER.sub(" ", QUOTE.sub(" ", CODE.sub(" ", cell.source)))
        found += [f"markdown cell {i}: {m.group(0)!r}" for m in UNIT.finditer(text)]
    return found


def untied(nb):
    """Comparisons in the prose that no tagged figure backs: a ratio whose number is not a tagged
    figure, or a "faster", "slower", "twice as" in a sentence that quotes none."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        text = PAPER.sub(f" {TAGGED} ", QUOTE.sub(f" {TAGGED} ", CODE.sub(" ", cell.source)))
        for sentence in SENTENCE.split(text):
            for m in COMPARISON.finditer(sentence):
                amount = m.group("amount")
                if amount and amount != TAGGED:
                    found.append(f"markdown cell {i}: {m.group(0)!r}, a ratio whose number is "
                                 "not a tagged figure")
                elif not amount and TAGGED not in sentence:
                    found.append(f"markdown cell {i}: {m.group(0)!r}, in a sentence that quotes "
                                 "no measurement")
    return found


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name[:2] in COMPARED],
                         ids=lambda p: p.name)
def test_every_comparison_is_tied_to_a_measurement(path):
    found = untied(read(path))
    assert not found, (f"{path.name}: comparisons no measurement backs (put a ratio's number in "
                       "a <span data-out=\"CELL-ID\">, and quote the figures a \"faster\" rests "
                       "on in its sentence):\n" + "\n".join(found))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_quoted_figures_match_the_stored_outputs(path):
    nb = read(path)
    if not has_outputs(nb):
        pytest.skip(f"{path.name} has no stored outputs to compare with (stripped)")
    problems = mismatches(nb)
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_tag_names_a_code_cell_of_its_notebook(path):
    nb = read(path)
    code = {c.get("id") for c in nb.cells if c.cell_type == "code"}
    wrong = [(i, cell_id) for i, cell_id, _ in tags(nb) if cell_id not in code]
    assert not wrong, f"{path.name}: tags name no code cell of the notebook: {wrong}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_untagged_figure_of_time_or_rate_in_the_prose(path):
    found = untagged(read(path))
    assert not found, (f"{path.name}: figures with a unit of time or rate outside a tag (quote a "
                       "measurement with <span data-out=\"CELL-ID\">, a datasheet's with "
                       "<span data-paper>):\n" + "\n".join(found))


# ---- the checker itself, on a made-up notebook ---------------------------------------------

def made_up(printed_text, prose):
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("print(...)")
    code.id = "timing"
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed_text)]
    nb.cells = [nbformat.v4.new_markdown_cell(prose), code]
    return nb


@pytest.mark.parametrize("figure, value, ok", [
    ("55", "55.3", True), ("33", "32.6", True), ("0.08", "0.081", True), ("1,357.5", "1357.5", True),
    ("55", "54.4", False), ("0.08", "0.086", False), ("4.1", "4088.5", False)])
def test_a_quote_is_the_printed_number_rounded_to_its_digits(figure, value, ok):
    nb = made_up(f"copy: {value} GB/s\n", f'about <span data-out="timing">{figure} GB/s</span>')
    assert (mismatches(nb) == []) is ok


def test_a_quote_of_a_missing_cell_and_untagged_figures_are_reported():
    nb = made_up("0.5 ms\n", 'took <span data-out="nope">0.5 ms</span>, then 3.2 ms, '
                             'on paper <span data-paper>4.8 TB/s</span>, `12 ms` in code')
    assert "which is not a code cell" in mismatches(nb)[0]
    assert untagged(nb) == ["markdown cell 0: '3.2 ms'"]


@pytest.mark.parametrize("prose, found", [
    ('tiling made <span data-out="timing">16</span> times fewer requests', []),
    ("tiling made 16 times fewer requests", ["'16 times fewer', a ratio"]),
    ('it reached 1.33x the rate (<span data-out="timing">0.5 ms</span>)', ["'1.33x', a ratio"]),
    ('the prefix sum was faster: <span data-out="timing">0.5 ms</span>', []),
    ("the prefix sum was faster. It took <span data-out=\"timing\">0.5 ms</span>",
     ["'faster', in a sentence"]),
    ("the naive kernel takes about three times as long", ["'three times as', a ratio"]),
    ("twice as many floats", ["'twice as', in a sentence"]),
    ('TF32 is faster on paper (<span data-paper>495 TFLOP/s</span>)', []),
    ("a 16 x 16 tile, 256 × the registers, read 16 times", []),
    ("`x = 2x` in code is faster", ["'faster', in a sentence"])])
def test_a_comparison_is_tied_by_a_tag_in_its_sentence(prose, found):
    problems = [p.split(": ", 1)[1] for p in untied(made_up("0.5 ms 16\n", prose))]
    assert len(problems) == len(found), problems
    assert all(p.startswith(f) for p, f in zip(problems, found)), problems
