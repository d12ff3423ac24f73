"""An image kernel's input read above its bounds guard, found in the kernel's text: CUDA's sepia
exercise (``helpers.exercises.sepia``), OpenCL's port (``helpers.exercises.sepia_opencl``) and the
back-projection (``helpers.exercises.backproject_range``) share it.

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

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def read_before_the_guard(case, code, kernel, line, thread="thread",
                          launch="the grid has {} x {} threads", memory="an array",
                          layout=Layout()):
    """(problem, hint) where kernel ``kernel``'s text in ``code`` (comments blanked here, every
    offset kept) reads its first parameter (as the code writes it: its name with an index) above
    its bounds guard, the first if that tests width or height, while ``case``'s launch reaches
    past the image's last row (or past the last column of the last row): its threads outside
    the image read past the end of the input (pixel i = y * width + x, from element
    ``layout.per_pixel`` * i on). ``line(offset)``: the line of ``code`` at an offset, as the
    compiler names it; ``thread``, ``launch`` (its threads along x and y in its braces) and
    ``memory``: the chapter's words for a thread, the launch and an array."""
    code = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), code)
    name = re.search(rf"\b{re.escape(kernel)}\s*\(\s*[^,)]*?(\w+)\s*,", code)
    guard = name and re.compile(r"\bif\s*\(([^;{]*\b(?:width|height)\b[^;{]*)\)").search(
        code, name.end())
    read = guard and re.compile(rf"\b{name[1]}\s*\[([^\]]*)\]").search(
        code, name.end(), guard.start())
    (tx, ty), width, height = case.threads, case.width, case.height
    k, col, row = layout.per_pixel, layout.col, layout.row
    last, size = k * ((ty - 1) * width + tx - 1) + k - 1, k * width * height
    if read and last >= size:
        rgb = name[1]
        yield (f"the kernel reads {rgb}[{' '.join(read[1].split())}] (line "
               f"{line(read.start())}) before its bounds guard, if ("
               f"{' '.join(guard[1].split())}) (line {line(guard.start())}): the "
               f"{thread}s outside the {width} x {height} image ({launch.format(tx, ty)}) read "
               f"before they return, past the end of {rgb}, as far as {rgb}[{last}] ({rgb} holds "
               f"{size} {layout.unit}: a read outside {memory} is undefined, even when, as "
               f"here, its value goes nowhere and {layout.out} does not show it)",
               f"the guard must come before any access to memory: move if ("
               f"{layout.guard or f'{col} >= width || {row} >= height'}) return; up, to right "
               f"after {f'{col} and {row} are' if row else f'{col} is'} computed, above the "
               f"reads of {rgb}")
