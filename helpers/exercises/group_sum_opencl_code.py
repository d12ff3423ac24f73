"""Mistakes of the OpenCL sum per work-group that its code shows (``kernel_code``'s text, comments
blanked, lines kept), for helpers/exercises/group_sum_opencl.py: a loop over the whole tile that
every work-item runs in place of the fold (``every_item_adds_the_tile``)."""

from __future__ import annotations

import re

from helpers.exercises.group_sum_opencl_models import GROUP
from helpers.exercises.opencl_kernel import code_line

FOLD_HINT = ("fold the tile, the work-items sharing the adds: for (int stride = GROUP / 2; stride "
             "> 0; stride /= 2) { if (t < stride) tile[t] += tile[t + stride]; "
             "barrier(CLK_LOCAL_MEM_FENCE); } then if (t == 0) partial[get_group_id(0)] = "
             "tile[0];")


def _runs_in_every_work_item(code, pos):
    """Whether the statement at ``pos`` stands in the kernel's body itself (no block around it
    but the body's, no if, else or loop header just before it)."""
    depth = code.count("{", 0, pos) - code.count("}", 0, pos)
    before = code[:pos].rstrip()
    return depth == 1 and not before.endswith(")") and not re.search(r"\belse$", before)


def every_item_adds_the_tile(code):
    """A loop over the whole tile (up to GROUP or get_local_size(0)) that adds tile[j], in the
    kernel's body under no if: every work-item adds all the group's elements, where the fold
    shares the adds; named with the store to partial where every work-item makes it too."""
    tile = re.search(r"__local\s+\w+\s+(\w+)\s*\[", code)
    loops = re.finditer(r"\bfor\s*\(\s*(?:int\s+)?(\w+)\s*=[^;]*;\s*\1\s*<\s*(?:GROUP|"
                        r"get_local_size\s*\(\s*0\s*\))\s*;[^)]*\)", code)
    loop = tile and next((m for m in loops if _runs_in_every_work_item(code, m.start())
                          and re.compile(rf"[^;]*\+=?\s*{tile.group(1)}\s*\[\s*{m.group(1)}\s*\]")
                          .match(code, m.end())), None)
    if not loop:
        return
    store = re.search(r"\bpartial\s*\[[^\]]*\]\s*=[^;]*;", code)
    stores = (f", and all {GROUP} work-items of a group store the same sum (line "
              f"{code_line(code, store.start())}: {' '.join(store.group().split())}), where one "
              "store a group belongs" if store and _runs_in_every_work_item(code, store.start())
              else "")
    yield (f"every work-item adds the whole tile: the loop at line {code_line(code, loop.start())}, "
           f"{' '.join(loop.group().split())}, stands under no if, so each of the {GROUP} "
           f"work-items of a group adds all {GROUP} elements (the sums are right, but that is "
           f"{GROUP} times the work of one sum, where the fold shares the adds out in "
           f"{GROUP.bit_length() - 1} steps){stores}", FOLD_HINT)
