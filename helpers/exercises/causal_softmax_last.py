"""The causal_softmax checker's (helpers.exercises.causal_softmax) reading of a row's last visible
column that came out cols - 1 in every row: nothing masked, as max(row, cols - 1) gives."""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises.causal_softmax_models import _near, softmax


def nothing_masked(x, got, kernels):
    """Every row's softmax over all its columns, as a last column of cols - 1 in every row gives
    (a case with more columns than rows): named as max(row, cols - 1), the larger of the two,
    where the kernel's body (its simulated twin's words) has it."""
    from helpers.exercises.microscope import body_words

    rows, cols = x.shape
    if rows >= cols or not _near(got, softmax(x, seen=np.ones(x.shape, bool))):
        return
    problem = (f"no column was masked: each row's softmax is over all its {cols} columns, as if "
               f"its last visible column came out cols - 1 = {cols - 1} in every row")
    taken = re.search(r"(\w+) = max \( (?:row , cols - 1|cols - 1 , row) \)",
                      " ".join(body_words(kernels)))
    if taken is None:
        yield (problem, "row r sees columns 0 to r, at most cols - 1: last = min(row, cols - 1), "
               "and the max's and the sum's loops stop at c <= last")
        return
    name = taken[1]
    yield (f"{problem}: {name} = max(row, cols - 1) takes the larger of the two, and cols - 1 = "
           f"{cols - 1} is above every row here (rows = {rows}), so {name} = {cols - 1} on every "
           "row and nothing past the row's own column was masked",
           f"the last column row r may see is the smaller of the two: {name} = min(row, cols - 1)")
