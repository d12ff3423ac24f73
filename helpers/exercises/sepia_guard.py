"""An image kernel's input read above its bounds guard, found in the kernel's text: CUDA's sepia
exercise (``helpers.exercises.sepia``), OpenCL's port (``helpers.exercises.sepia_opencl``), the
back-projection (``helpers.exercises.backproject_range``) and gray_coalesced share it; scale_slices
finds its volume's reads with ``read_above_the_guard``.

The threads outside the image read their pixel's elements before the guard sends them away, past
the end of the input; the values read go nowhere, so the output cannot show it (the compiler may
even move the read below the guard), and the checkers' inputs have room after them, so no launch
faults: the kernel's text tells it.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Layout(NamedTuple):
    """How the input holds the image: ``per_pixel`` elements a pixel (``unit``: what they are),
    the pixel's column and row named ``col`` and ``row``, the output ``out``; ``guard``, the
    bounds guard's test where the image is flat (``col`` its pixel's number, ``row`` empty)."""

    per_pixel: int = 3
    unit: str = "bytes"
    col: str = "x"
    row: str = "y"
    out: str = "out"
    guard: str = ""



class Above(NamedTuple):
    """A read above a kernel's bounds guard: the ``array`` read, its ``index`` as written (its
    spaces made single) at offset ``read_at`` of the code, and the guard's ``test`` (inside its
    parentheses, the same) at offset ``guard_at``."""

    array: str
    index: str
    read_at: int
    test: str
    guard_at: int


def _own_if_test(code, read) -> str:
    """The test of the if whose body is the statement of ``read`` (a match: array, index), its
    spaces made single: if (base + k < total) s[k] = rgb[base + k]; (or { ... }), "" where there
    is none."""
    start = max(code.rfind(c, 0, read.start()) for c in ";}") + 1
    ifs = list(re.finditer(r"\bif\s*\(", code[start:read.start()]))
    if not ifs:
        return ""
    end, depth = start + ifs[-1].end(), 1
    while depth and end < read.start():
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        end += 1
    return " ".join(code[start + ifs[-1].end():end - 1].split())


def _guarded_by_its_if(code, read) -> bool:
    """Whether ``read``'s own if (``_own_if_test``) tests its index, as a whole."""
    index = re.escape(" ".join(read[2].split()))
    return bool(re.search(rf"(?<![\w.]){index}(?![\w.])", _own_if_test(code, read)))


def read_above_the_guard(code, kernel, bounds, arrays=()):
    """The first read of one of ``arrays`` (none given: the kernel's first parameter, as the code
    names it) in kernel ``kernel``'s text in ``code`` (comments blanked here, every offset kept)
    above its bounds guard, the first if that tests one of the names ``bounds``; a read whose
    index is clamped (min, ?:), or whose own if tests its index (``_guarded_by_its_if``), is safe
    and not one. An Above, or None."""
    from helpers.sim.compile.source import without_comments

    code = without_comments(code)
    name = re.search(rf"\b{re.escape(kernel)}\s*\(\s*[^,)]*?(\w+)\s*,", code)
    guard = name and re.compile(rf"\bif\s*\(([^;{{]*\b(?:{'|'.join(bounds)})\b[^;{{]*)\)").search(
        code, name.end())
    if not guard:
        return None
    reads = re.compile(rf"\b({'|'.join(arrays or [name[1]])})\s*\[([^\]]*)\]")
    for read in reads.finditer(code, name.end(), guard.start()):
        if not re.search(r"\bmin\b|\?", read[2]) and not _guarded_by_its_if(code, read):
            return Above(read[1], " ".join(read[2].split()), read.start(), " ".join(guard[1].split()),
                         guard.start())
    return None


def read_before_the_guard(case, code, kernel, line, thread="thread",
                          launch="the grid has {} x {} threads", memory="an array",
                          layout=Layout()):
    """(problem, hint) where kernel ``kernel``'s text in ``code`` reads its first parameter (as
    the code writes it: its name with an index) above its bounds guard, the first if that tests
    width or height (``read_above_the_guard``), while ``case``'s launch reaches past the image's
    last row (or past the last column of the last row): its threads outside the image read past
    the end of the input (pixel i = y * width + x, from element ``layout.per_pixel`` * i on).
    ``line(offset)``: the line of ``code`` at an offset, as the compiler names it; ``thread``,
    ``launch`` (its threads along x and y in its braces) and ``memory``: the chapter's words for
    a thread, the launch and an array."""
    read = read_above_the_guard(code, kernel, ("width", "height"))
    (tx, ty), width, height = case.threads, case.width, case.height
    k, col, row = layout.per_pixel, layout.col, layout.row
    last, size = k * ((ty - 1) * width + tx - 1) + k - 1, k * width * height
    if read and last >= size:
        rgb = read.array
        yield (f"the kernel reads {rgb}[{read.index}] (line {line(read.read_at)}) before its "
               f"bounds guard, if ({read.test}) (line {line(read.guard_at)}): the "
               f"{thread}s outside the {width} x {height} image ({launch.format(tx, ty)}) read "
               f"before they return, past the end of {rgb}, as far as {rgb}[{last}] ({rgb} holds "
               f"{size} {layout.unit}: a read outside {memory} is undefined, even when, as "
               f"here, its value goes nowhere and {layout.out} does not show it)",
               f"the guard must come before any access to memory: move if ("
               f"{layout.guard or f'{col} >= width || {row} >= height'}) return; up, to right "
               f"after {f'{col} and {row} are' if row else f'{col} is'} computed, above the "
               f"reads of {rgb}")
