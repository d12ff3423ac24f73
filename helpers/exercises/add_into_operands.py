"""The stores of notebook 02's grid-stride loop (``cuda_src/exercises/add_into.cu``) whose
statement reads or writes the wrong thing, each element visited once: y[i] = x[i], which replaces
y, and y[i] += y[i], which adds y into itself and never reads x; each told by y after the launch
(``got``) compared with y before it and x."""

from __future__ import annotations

import numpy as np


def wrong_operands(got, x, y):
    """(problem, hint) for y replaced by x, or y doubled, where y + x is right."""
    if np.allclose(got, x):
        yield "y holds x: y[i] = x[i] replaced y instead of adding to it", "y[i] += x[i]"
    if np.array_equal(got, 2 * y) and y.any():
        first = int(np.argmax(y != 0))
        yield (f"y came out doubled: each y[i] is 2 * y[i] (y[{first}] = {got[first]}, where "
               f"{y[first]} + x[{first}] = {y[first] + x[first]} is right): the statement adds "
               "y into itself, y[i] += y[i], and never reads x",
               "add x into y: y[i] += x[i], with x[i] on the right")
