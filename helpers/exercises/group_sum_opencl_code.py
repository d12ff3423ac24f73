"""Mistakes of the OpenCL sum per work-group that its code shows (``kernel_code``'s text, comments
blanked, lines kept), for helpers/exercises/group_sum_opencl.py: barriers that fence global memory
only (``global_fences``, of the models) or an ``if`` whose body is a lone semicolon (``empty_if``),
named before the kernel runs (``code_mistake``), as CUDA's -Wempty-body is; and a loop over the
whole tile that every work-item runs in place of the fold (``every_item_adds_the_tile``)."""

from __future__ import annotations

import re

from helpers.exercises.group_sum_opencl_models import GROUP, global_fences
from helpers.exercises.opencl_kernel import code_line

FOLD_HINT = ("fold the tile, the work-items sharing the adds: for (int stride = GROUP / 2; stride "
             "> 0; stride /= 2) { if (t < stride) tile[t] += tile[t + stride]; "
             "barrier(CLK_LOCAL_MEM_FENCE); } then if (t == 0) partial[get_group_id(0)] = "
             "tile[0];")


def code_mistake(code):
    """(problem, hint) of a mistake the code shows before it runs, or None: barriers that fence
    global memory only, an if whose body is a lone semicolon."""
    return global_fences(code) or empty_if(code)


def _closing(code, start):
    """The offset of the parenthesis that closes the one at ``start``, or None."""
    depth = 0
    for pos in range(start, len(code)):
        depth += {"(": 1, ")": -1}.get(code[pos], 0)
        if depth == 0:
            return pos
    return None


def empty_if(code):
    """(problem, hint) for the first ``if (...);``: the statement after it, which it should
    guard, runs in every work-item, whatever the condition; or None."""
    for found in re.finditer(r"\bif\s*\(", code):
        close = _closing(code, found.end() - 1)
        empty = close and re.compile(r"\s*;").match(code, close + 1)
        guarded = empty and re.compile(r"\s*([^;{}]*;)").match(code, empty.end())
        if guarded:
            test = " ".join(code[found.start():close + 1].split())
            statement = " ".join(guarded.group(1).split())
            return (f"the if at line {code_line(code, found.start())}, {test};, does nothing: "
                    "its body is a lone semicolon, so the statement it should guard, "
                    f"{statement} (line {code_line(code, guarded.start(1))}), runs in every "
                    "work-item, whatever the condition says",
                    "put the statement right after the condition, with no semicolon between: "
                    f"{test} {statement}")
    return None


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
