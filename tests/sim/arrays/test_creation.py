"""Making GPUArrays (helpers/sim/arrays/creation.py): to_gpu, zeros, ones, the *_like functions
with NumPy's choice of order, and arange with PyCUDA's dtype guess. These run on whichever
backend helpers.backend chose, so on a GPU they hold PyCUDA itself to the same results."""

import warnings

import numpy as np
import pytest

from helpers.backend import gpuarray


def test_to_gpu_keeps_the_memory_order_and_0d():
    host = np.arange(12, dtype=np.float64).reshape(3, 4).T
    a = gpuarray.to_gpu(host)
    assert a.strides == host.strides and a.flags.f_contiguous and not a.flags.c_contiguous
    assert np.array_equal(a.get(), host)
    assert a.copy().strides == host.strides
    assert gpuarray.to_gpu(np.array(3.0)).shape == ()
    assert gpuarray.to_gpu(np.array(3.0)).get() == 3.0


def test_zeros_and_ones_in_either_order():
    z = gpuarray.zeros((2, 3), np.int16, order="F")
    assert z.dtype == np.int16 and z.flags.f_contiguous and not z.get().any()
    o = gpuarray.ones(3)
    assert o.dtype == np.float64 and o.get().tolist() == [1, 1, 1]


@pytest.mark.parametrize("order, f_contiguous", [("K", True), ("A", True), ("C", False),
                                                 ("F", True)])
def test_like_functions_choose_the_order_as_numpy_does(order, f_contiguous):
    f = gpuarray.to_gpu(np.asfortranarray(np.ones((2, 3), np.float32)))
    for like in (gpuarray.empty_like(f, order=order), gpuarray.zeros_like(f, order=order),
                 gpuarray.ones_like(f, dtype=np.float64, order=order)):
        assert like.shape == (2, 3) and like.flags.f_contiguous == f_contiguous
    assert not gpuarray.zeros_like(f, order=order).get().any()
    ones = gpuarray.ones_like(f, dtype=np.float64, order=order)
    assert ones.dtype == np.float64 and (ones.get() == 1).all()


def test_arange_gives_numpys_values_and_warns_when_it_guesses_a_dtype_other_than_float32():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = gpuarray.arange(0, 1, 0.25, dtype=np.float32)
    assert np.array_equal(a.get(), np.arange(0, 1, 0.25, dtype=np.float32))
    with pytest.warns(UserWarning, match="behavior change"):
        b = gpuarray.arange(5)
    assert b.get().tolist() == [0, 1, 2, 3, 4]
    assert np.array_equal(gpuarray.arange(10, 0, -3, dtype=np.int32).get(), [10, 7, 4, 1])
