"""The functions of pycuda.gpuarray that take GPUArrays (helpers/sim/arrays/functions.py):
conditionals, minimum and maximum, reductions and their subset_ forms, logical operations,
concatenate, stack and multi_put. These run on whichever backend helpers.backend chose, so on a
GPU they hold PyCUDA itself to the same results."""

import numpy as np
import pytest

from helpers.backend import gpuarray


@pytest.fixture(scope="module")
def ab():
    return (gpuarray.to_gpu(np.array([1.0, -2.0, 3.0])),
            gpuarray.to_gpu(np.array([0.5, 5.0, -1.0])))


def test_conditionals_and_elementwise_extremes(ab):
    a, b = ab
    assert np.array_equal(gpuarray.maximum(a, b).get(), [1, 5, 3])
    assert np.array_equal(gpuarray.minimum(a, 0).get(), [0, -2, 0])
    assert np.array_equal(gpuarray.if_positive(a, a, b).get(), [1, 5, 3])
    assert np.array_equal(gpuarray.where(a > 0, a, b).get(), [1, 5, 3])


def test_reductions_are_0d():
    a = gpuarray.to_gpu(np.arange(1, 5, dtype=np.float32))
    for result, want in [(gpuarray.sum(a), 10), (gpuarray.dot(a, a), 30),
                         (gpuarray.max(a), 4), (gpuarray.min(a), 1)]:
        host = result.get()
        assert result.shape == () and host.shape == () and float(host) == want
    small = gpuarray.to_gpu(np.full(300, 100, np.int8))
    assert int(gpuarray.sum(small, dtype=np.int32).get()) == 30000  # would wrap in int8


def test_subset_reductions_take_only_the_elements_indexed():
    a = gpuarray.to_gpu(np.array([4.0, -1.0, 7.0, 2.0, 9.0], np.float32))
    subset = gpuarray.to_gpu(np.array([0, 1, 3], np.int32))
    assert float(gpuarray.subset_max(subset, a).get()) == 4
    assert float(gpuarray.subset_min(subset, a).get()) == -1
    assert float(gpuarray.subset_dot(subset, a, a).get()) == 16 + 1 + 4


def test_logical_operations_give_bools(ab):
    a, b = ab
    positive_a, positive_b = a > 0, b > 0
    for got, want in [(gpuarray.logical_and(positive_a, positive_b), [1, 0, 0]),
                      (gpuarray.logical_or(positive_a, positive_b), [1, 1, 1]),
                      (gpuarray.logical_not(positive_a), [0, 1, 0])]:
        assert got.dtype == np.bool_ and np.array_equal(got.get(), want)


def test_concatenate_and_stack_join_along_an_axis(ab):
    a, b = ab
    assert np.array_equal(gpuarray.concatenate((a, b)).get(), np.r_[a.get(), b.get()])
    m = gpuarray.to_gpu(np.arange(6, dtype=np.float32).reshape(2, 3))
    joined = gpuarray.concatenate((m, m), axis=1)
    assert np.array_equal(joined.get(), np.hstack([m.get(), m.get()]))
    assert gpuarray.stack((a, b)).shape == (2, 3)
    assert np.array_equal(gpuarray.stack((a, b), axis=1).get(), np.stack([a.get(), b.get()], 1))


def test_multi_put_scatters_each_array_to_the_indices():
    values = [gpuarray.to_gpu(np.array([1.0, 2.0], np.float32)),
              gpuarray.to_gpu(np.array([10.0, 20.0], np.float32))]
    out = [gpuarray.zeros(4, np.float32) for _ in values]
    gpuarray.multi_put(values, gpuarray.to_gpu(np.array([3, 0], np.int32)), out=out)
    assert [o.get().tolist() for o in out] == [[2, 0, 0, 1], [20, 0, 0, 10]]
