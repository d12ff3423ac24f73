"""A sepia kernel's input read above its bounds guard, found in the kernel's text: CUDA's exercise
(``helpers.exercises.sepia``) and OpenCL's port (``helpers.exercises.sepia_opencl``) share it.

The threads outside the image read their pixel's bytes before the guard sends them away, past
the end of the input; the values read go nowhere, so the output cannot show it, and the
checkers' inputs have room after them, so no launch faults: the kernel's text tells it.
"""

from __future__ import annotations

import re

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def read_before_the_guard(case, code, kernel, line, thread="thread",
                          launch="the grid has {} x {} threads", memory="an array"):
    """(problem, hint) where kernel ``kernel``'s text in ``code`` (comments blanked here, every
    offset kept) reads its first parameter (as the code writes it: its name with an index) above
    its bounds guard, the first if that tests width or height, while ``case``'s launch reaches
    past the image's last row (or past the last column of the last row): its threads outside
    the image read past the end of the input (with i = y * width + x). ``line(offset)``: the
    line of ``code`` at an offset, as the compiler names it; ``thread``, ``launch`` (its
    threads along x and y in its braces) and ``memory``: the chapter's words for a thread, the
    launch and an array."""
    code = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), code)
    name = re.search(rf"\b{re.escape(kernel)}\s*\(\s*[^,)]*?(\w+)\s*,", code)
    guard = name and re.compile(r"\bif\s*\(([^;{]*\b(?:width|height)\b[^;{]*)\)").search(
        code, name.end())
    read = guard and re.compile(rf"\b{name[1]}\s*\[([^\]]*)\]").search(
        code, name.end(), guard.start())
    (tx, ty), width, height = case.threads, case.width, case.height
    last, size = 3 * ((ty - 1) * width + tx - 1) + 2, 3 * width * height
    if read and last >= size:
        rgb = name[1]
        yield (f"the kernel reads {rgb}[{' '.join(read[1].split())}] (line "
               f"{line(read.start())}) before its bounds guard, if ("
               f"{' '.join(guard[1].split())}) (line {line(guard.start())}): the "
               f"{thread}s outside the {width} x {height} image ({launch.format(tx, ty)}) read "
               f"before they return, past the end of {rgb}, as far as {rgb}[{last}] ({rgb} holds "
               f"{size} bytes: a read outside {memory} is undefined, even when, as here, its "
               "value goes nowhere and out does not show it)",
               "the guard must come before any access to memory: move if (x >= width || y >= "
               "height) return; up, to right after x and y are computed, above the reads of "
               f"{rgb}")
