"""The causal_softmax checker's (helpers.exercises.causal_softmax) case of long rows of small
terms beside one large one (``flat_scores``), and the mistake it shows: each lane's running sum
kept in half precision (``sum_in_half``), where the exercise computes in float."""

from __future__ import annotations

import numpy as np

from helpers.exercises.causal_softmax_models import _exps, _near, softmax, visible

SMALL = -7.7
"""The scores beside column 0's 0: exp(-7.7) is about 0.00045, below half a step of FP16 at 1
(2^-11, about 0.00049), so a 16-bit sum that holds the max's own term 1 never grows by one."""


def flat_scores(rows, cols):
    """FP16 scores of 0 in column 0, the max of every row, and ``SMALL`` in every other column:
    a row of about 1100 columns takes 34 small terms into lane 0's part of the sum beside the 1,
    1.5 % of the row's sum that a lane's sum kept in 16 bits loses."""
    x = np.full((rows, cols), SMALL)
    x[:, 0] = 0
    return x.astype(np.float16)


def _half_sums(x):
    """Each row's sum when every lane adds its columns' exp(x - m) (lane, lane + 32, ...) in
    FP16, each term and each partial sum rounded to 16 bits, and warp_sum adds the 32 parts in
    float."""
    e = _exps(x)
    part = np.zeros((x.shape[0], 32), np.float16)
    for first in range(0, x.shape[1], 32):
        terms = np.zeros((x.shape[0], 32))
        turn = e[:, first:first + 32]
        terms[:, :turn.shape[1]] = turn
        part = (part + terms.astype(np.float16)).astype(np.float16)
    return part.astype(np.float64).sum(axis=1)


def sum_in_half(x, got):
    """Every row's y is exp(x - m) over a sum whose lanes' parts were kept in half precision:
    named where that sum is not the float one's (``flat_scores``' long rows)."""
    e, halved = _exps(x), _half_sums(x)
    total = e.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        model = np.where(visible(*x.shape), e / halved[:, None], 0)
    want = softmax(x)
    if _near(model, want) or not _near(got, model):
        return
    r, c = np.argwhere(~np.isclose(got, want, rtol=4e-3, atol=1e-4))[-1]
    yield (f"each lane's sum was kept in half precision (__half), where the exercise adds in "
           f"float: a sum kept in 16 bits stops growing once each term is below half a step of "
           f"it, so row {r}'s sum came out {halved[r]:.4g}, not {total[r]:.4g}, and y[{r}][{c}] "
           f"= {got[r, c]:.4g} where {want[r, c]:.4g} is right",
           "keep the sum a float: float sum = 0.0f; sum += __expf(__half2float(in[c]) - m); "
           "half precision is only how x and y are stored")
