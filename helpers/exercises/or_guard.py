"""A 2-D store guarded by two inside tests joined with || where && belongs, if (row < M || col <
N) out[...] = ...; and a return guard joined with && where || belongs, if (row >= M && col >=
N) return;, whose stores past the end are the same: each read from the kernel's words (its
simulated twin's source). From the stores alone ``coverage.past_the_end`` cannot tell them, nor
the return guard from one comparing the row with the row length."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import kernel_words, source_line


def _ifs(kernels, keep):
    """[(line, the condition's words)] of each if of the kernel's body (its simulated twin's
    source) that ``keep(the condition's top-level words, what the if runs: the words after it up
    to the ;, or inside its braces)`` accepts; [] where there is none or no text to read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return []
    source, tokens, words, body, end = text
    found = []
    try:
        for k in (k for k in range(body, end) if words[k] == "if" and words[k + 1] == "("):
            shut = closing(tokens, k + 1)
            cond, depth, top = words[k + 2:shut], 0, []
            for word in cond:
                depth += (word == "(") - (word == ")")
                top += [word] if depth == 0 else []
            braced = words[shut + 1] == "{"
            then = (words[shut + 2:closing(tokens, shut + 1)] if braced
                    else words[shut + 1:words.index(";", shut)])
            if keep(top, then):
                found.append((source_line(source, tokens[k].start), cond))
    except (Unreadable, ValueError, IndexError):
        return []
    return found


def or_store_guards(kernels, array: str) -> list:
    """(line, the condition's text) for each if in the kernel's body whose condition joins
    inside tests (< or <=) with || at its top level, and whose body stores into ``array``;
    [] where there is none or no text to read."""
    found = _ifs(kernels, lambda top, then: "||" in top and "&&" not in top and not {">", ">="} &
                 set(top) and array in then and "return" not in then)
    return [(line, " ".join(cond).replace(" . ", ".").replace("( ", "(").replace(" )", ")"))
            for line, cond in found]


def store_guard_with_or(past, grid, words, kernels):
    """The elements past the end that a guard letting through a thread inside in one of x and y
    gives (``grid.unguarded``), with the store's if joined by || (``or_store_guards``): the
    thread of the first row past the last (or of the first column past the last) stored
    element height * width, and one past the last column of a row inside wrote the next row."""
    width, height, ty = grid.width, grid.height, grid.threads[1]
    if not len(past) or set(past.ravel().tolist()) != grid.unguarded(
            through=lambda x, y: (x < width) | (y < height)):
        return
    if not (found := or_store_guards(kernels, words.array)):
        return
    (line, cond), col, row, cols, rows = found[0], words.col, words.row, words.cols, words.rows
    y, x = (height, 0) if ty > height else (height - 1, width)
    who = (f"{row} {y} (>= {rows} = {height}) and {col} 0 (< {cols})" if ty > height else
           f"{row} {y} (< {rows}) and {col} {x} (>= {cols} = {width})")
    yield (f"the store's condition if ({cond}) at line {line} lets a thread store where only "
           f"one of the two is inside the {words.whole}: the thread of {who} stored "
           f"{words.array}[{y} * {width} + {x}], past the end of {words.array} ({height} x "
           f"{width} = {height * width} elements), and a thread with {col} >= {cols} in a row "
           f"below {rows} stores into the next row's first elements",
           f"store only where both are inside: if ({row} < {rows} && {col} < {cols})")


def and_return_guards(kernels) -> list:
    """(line, the if's text) for each if of the kernel's body whose condition joins outside tests
    (> or >=) with && at its top level, and no ||, and whose body is return;: a thread returns
    only where every test holds. [] where there is none or no text to read."""
    found = _ifs(kernels, lambda top, then: "&&" in top and "||" not in top and {">", ">="} & set(
        top) and not {"<", "<="} & set(top) and then == ["return"])
    return [(line, "if ({}) return;".format(" ".join(cond).replace(" . ", ".").replace(
        "( ", "(").replace(" )", ")"))) for line, cond in found]


def return_guard_with_and(past, grid, words, kernels):
    """The elements past the end that a guard letting through a thread inside in one of x and y
    gives (``grid.unguarded``), with a return guard joined by && (``and_return_guards``): it
    stops only the threads outside in both, where a guard comparing the row with the row length
    may send the same stores past the end (``coverage.past_the_end`` hedges between the two)."""
    width, height = grid.width, grid.height
    if not len(past) or set(np.asarray(past).ravel().tolist()) != grid.unguarded(
            through=lambda x, y: (x < width) | (y < height)):
        return
    if not (found := and_return_guards(kernels)):
        return
    (line, said), col, row, cols, rows = found[0], words.col, words.row, words.cols, words.rows
    yield (f"the guard {said} at line {line} joins its tests with &&: it stops only the threads "
           f"outside in both {col} and {row}, so a thread outside in one alone went on and "
           f"wrote: those with {row} >= {rows} past the end of {words.array}, and those with "
           f"{col} >= {cols} in a row above the last into the next row's first {words.item}s",
           f"a thread outside in either must return: join the tests with ||, if ({col} >= {cols} "
           f"|| {row} >= {rows}) return;")
