"""Shares of the multi-GPU exercise (notebook 11) that give the right result but leave devices
idle, for helpers/exercises/gray_split.py: bounds that divide before they multiply
(``divided_first``), read from what each device converted and from the learner's code."""

from __future__ import annotations

import ast

from helpers.exercises.learner_code import code_of


def divided_first(fn, shares, count, n):
    """(what it shows, hint) where device k converted ((k + 1) // n - k // n) * count images, as
    bounds lo = k // n * count, hi = (k + 1) // n * count give (every share empty but the last,
    which is the whole batch), with no fewer images than devices (fewer may share alike), and
    ``fn``'s code holds such a product: a floor division times something."""
    found = _floor_division_first(fn)
    model = [((k + 1) // n - k // n) * count for k in range(n)]
    if n < 2 or count < n or not found or list(shares) != model:
        return
    idle = "device 0" if n == 2 else f"devices 0 to {n - 2}"
    bounds = [f"[{k // n * count}, {(k + 1) // n * count})" for k in range(n)]
    listed = " and ".join(bounds) if n == 2 else ", ".join(bounds)
    yield (f"the result is right, but {idle} did no work and device {n - 1} converted all "
           f"{count} images: the shares were {listed}, as {found} divides first: k // n is 0 "
           f"for every device k < n = {n} (// drops the fraction), so every share but the last "
           "is empty, and the last is the whole batch",
           "multiply first, then divide: lo = k * count // n, hi = (k + 1) * count // n, so that "
           "the shares differ by one image at most")


def _floor_division_first(fn):
    """``'expression (line L of place: text)'`` of the first product in ``fn``'s code whose left
    factor is a floor division (``k // n * count``); or None."""
    if (code := code_of(fn)) is None:
        return None
    products = sorted((node for node in ast.walk(code.tree) if isinstance(node, ast.BinOp)
                       and isinstance(node.op, ast.Mult) and isinstance(node.left, ast.BinOp)
                       and isinstance(node.left.op, ast.FloorDiv)),
                      key=lambda node: (node.lineno, node.col_offset))
    for node in products[:1]:
        return f"{ast.unparse(node)} ({code.at(node)}: {code.text(node)})"
    return None
