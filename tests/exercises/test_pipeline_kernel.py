"""The pipeline exercise's kernel (notebook 05): iterate_sin agrees with the NumPy reference its
checker (helpers.exercises.pipeline) compares the learner's results with."""

import numpy as np
import pytest

from helpers.backend import drv
from helpers.exercises.pipeline import make_launch, reference

pytestmark = pytest.mark.gpu_timing  # as test_pipeline.py's, whose test this was


def test_kernel_matches_numpy():
    """iterate_sin on an awkward size, checked against the NumPy reference the checker uses."""
    from helpers.exercises.pipeline import load_kernel

    n, work = 10_001, 37
    x = np.random.default_rng(2).random(n, dtype=np.float32)
    d_in, d_out = drv.mem_alloc(x.nbytes), drv.mem_alloc(x.nbytes + 64 * 4)
    drv.memcpy_htod(d_in, x)
    guard = np.full(n + 64, np.nan, np.float32)
    drv.memcpy_htod(d_out, guard)
    make_launch(load_kernel(), work)(d_in, d_out, n)
    drv.Context.synchronize()
    drv.memcpy_dtoh(guard, d_out)
    assert np.allclose(guard[:n], reference(x, work), rtol=1e-4, atol=1e-5)
    assert np.isnan(guard[n:]).all(), "the kernel wrote past n"
