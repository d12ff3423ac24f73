"""The models of the double-buffering exercise (helpers.exercises.staging_upload_models) on
made-up copies: chunks misplaced in d are the same mistake whichever stream's copy landed last."""

import pytest


@pytest.mark.parametrize("in_order", [True, False])
def test_chunks_at_element_offsets_are_seen_whichever_stream_landed_last(in_order):
    """With offsets in elements the chunks' destinations overlap, and the two streams' copies race
    there (a loaded GPU let stream 1's land first): either order is the same mistake."""
    import numpy as np

    from helpers.exercises.staging_upload_models import at_element_offsets
    h = np.arange(1, 1001, dtype=np.float32)
    bounds = [(lo, min(1000, lo + 256)) for lo in range(0, 1000, 256)]
    got = np.full(1000, np.nan, np.float32)
    for lo, hi in bounds if in_order else bounds[::-1]:
        got[lo // 4:lo // 4 + hi - lo] = h[lo:hi]
    assert at_element_offsets(got, h, bounds)
    got[0] += 1
    assert not at_element_offsets(got, h, bounds)


@pytest.mark.parametrize("in_order", [True, False])
def test_chunks_all_at_the_start_of_d_are_seen_whichever_stream_landed_last(in_order):
    """Every chunk copied to d itself: the two streams' copies race on d's first chunk, and
    either order is the same mistake; d's start holding anything else is not it."""
    import numpy as np

    from helpers.exercises.staging_upload_models import at_the_start_of_d
    h = np.arange(1, 1001, dtype=np.float32)
    bounds = [(lo, min(1000, lo + 256)) for lo in range(0, 1000, 256)]
    got = np.full(1000, np.nan, np.float32)
    for lo, hi in bounds if in_order else bounds[::-1]:
        got[:hi - lo] = h[lo:hi]
    assert at_the_start_of_d(got, h, bounds)
    got[0] += 1
    assert not at_the_start_of_d(got, h, bounds)
