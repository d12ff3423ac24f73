"""The causal_softmax checker's (helpers.exercises.causal_softmax) model of a sum whose lanes do
not split the row between them: every lane adds the whole row's exp(x - m), and warp_sum then
adds the 32 lanes' copies (``sum_of_every_lane``)."""

from __future__ import annotations

from helpers.exercises.causal_softmax_models import _near, softmax


def sum_of_every_lane(x, got):
    """Every row's y 1/32 of its softmax: the sum 32 times the row's, as each lane's loop over
    every column (c from 0 in steps of 1) and warp_sum over the 32 lanes give it."""
    if not _near(got, softmax(x) / 32):
        return
    r = x.shape[0] - 1
    yield (f"every row adds up to 1/32, not 1 (row {r}: {got[r].sum():.4g}): the sum is 32 times "
           "the row's, since every lane added the whole row's exp(x - m) (its loop ran over every "
           "column, c from 0 in steps of 1), and warp_sum then added the 32 lanes' copies",
           "each lane adds only its own columns, then warp_sum adds the 32 parts: for (int c = "
           "lane; c <= last; c += 32) sum += __expf(__half2float(in[c]) - m); then sum = "
           "warp_sum(sum);")
