"""helpers.timing: CPU code timed like kernels (median of runs after a warm-up), the memory's
peak on paper, and the copy ceiling."""

import numpy as np
import pytest

from helpers.backend import BACKEND
from helpers.timing import copy_bandwidth_gbs, paper_bandwidth_gbs, time_cpu, time_kernel


def test_time_cpu_warms_up_then_times_each_run():
    calls = []
    t = time_cpu(lambda: calls.append(1), repeat=4, warmup=2)
    assert len(calls) == 6 and len(t.times_ms) == 4 and t.min_ms >= 0
    with pytest.raises(ValueError):
        time_cpu(lambda: None, repeat=0)


def test_time_cpu_times_the_work():
    a = np.ones(1 << 22)
    slow = time_cpu(lambda: np.sort(a), repeat=3)
    fast = time_cpu(lambda: None, repeat=3)
    assert slow.median_ms > fast.median_ms


def test_the_peak_on_paper_exists_on_a_gpu_only():
    peak = paper_bandwidth_gbs()
    if BACKEND == "simulator":
        assert peak is None
    else:
        assert peak > 100          # GB/s: any GPU of the last decade


def test_the_copy_ceiling_is_a_bandwidth():
    gbs = copy_bandwidth_gbs(1 << 22, repeat=2)
    assert np.isfinite(gbs) and gbs > 0


@pytest.mark.gpu_timing
@pytest.mark.skipif(BACKEND != "pycuda", reason="the FMA ceiling is a GPU's figure")
def test_the_fma_ceiling_is_near_the_datasheet():
    from helpers.timing import fma_gflops

    # notebook 08 measured 63,535 GFLOP/s on an H200 (67 TFLOP/s on its datasheet); any GPU of
    # the last decade does more than 1 TFLOP/s
    assert 1_000 < fma_gflops(repeat=3) < 200_000


def test_time_kernel_times_one_launch_of_a_batch():
    calls = []
    t = time_kernel(lambda: calls.append(1), repeat=3, warmup=1, batch=5)
    assert len(calls) == 1 + 3 * 5 and len(t.times_ms) == 3 and t.min_ms >= 0
    with pytest.raises(ValueError):
        time_kernel(lambda: None, batch=0)
