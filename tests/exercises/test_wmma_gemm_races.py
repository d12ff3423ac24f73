"""The wmma_gemm checker's model of racing warps (helpers.exercises.wmma_gemm_models.product and
the checker's ``_either``): a C whose racing warps landed in any order is named the mistake that
races so, and a C no order gives is not."""

import numpy as np
import pytest

from helpers.exercises import wmma_gemm as checker
from helpers.exercises.wmma_gemm_models import product


@pytest.mark.parametrize("case", checker.CASES[:-1])   # the last: the first on the simulator
def test_warps_racing_on_one_element_are_named_whichever_store_landed_last(case):
    """Warps whose tiles overlap race there, three on one element where tile_col runs to K / 16:
    a GPU may let any of them land last, not only the first or the last warp (the C built here
    lands tile_col 2's warps last, between those of tile_col 0 and 4 that store there too)."""
    m, k, n = case
    rng = np.random.default_rng(1)   # A's and B's memory, what lies past them not zeros
    model = [rng.uniform(-1, 1, size * k + checker.PAD) for size in (m, n)]
    tile_of = lambda w: divmod(w, k // 16)   # noqa: E731  (the K / 16 lookalike)
    warps = -(-(m // 16) * (n // 16) // 4) * 4
    order = sorted(range(warps), key=lambda w: tile_of(w)[1] == 2)   # tile_col 2's warps last
    landed = product(model, case, tile_of=lambda w: tile_of(order[w]))[0]
    stored = ~np.isnan(landed)   # (a kernel that leaves elements unwritten is named before)
    want = product(model, case, tile_of=tile_of)[:, stored]
    assert checker._either(landed[stored], want)
    landed[np.unravel_index(np.nanargmax(landed), landed.shape)] += 1
    assert not checker._either(landed[stored], want)
