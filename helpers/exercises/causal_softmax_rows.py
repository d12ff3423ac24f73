"""Models of the causal softmax's rows read from the wrong place of x
(``helpers.exercises.causal_softmax``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.causal_softmax_models import _near, softmax


def row_start_without_cols(x, got):
    """Row r read from element r of x (in = x + row, the row's length left out): its columns are
    x's flat elements r to r + cols - 1, the next rows' scores for most of them."""
    rows, cols = x.shape
    flat = x.ravel()
    if rows < 2 or cols < 2:
        return
    shifted = np.stack([flat[r:r + cols] for r in range(rows)])
    if not _near(got, softmax(shifted)):
        return
    yield (f"row r read its scores from x[r] on, not row r's start x[r * cols]: in = x + row "
           f"leaves out the row's length, so row 1 took x[1] to x[{cols}], columns 1 to "
           f"{cols - 1} of row 0 and column 0 of row 1 (cols = {cols}); only row 0 came out right",
           "row r starts r whole rows into x: in = x + (size_t)row * cols")
