"""Copies between GPUArrays and NumPy arrays (helpers/sim/arrays/copying.py): views with gaps on
up to two axes copied both ways, and what PyCUDA's copy refuses. These run on whichever backend
helpers.backend chose, so on a GPU they hold PyCUDA itself to the same results; copies PyCUDA
makes without an error but wrongly (C order against Fortran order) are refused on the
simulator."""

import numpy as np
import pytest

from helpers.backend import BACKEND, gpuarray

HOST = np.arange(4 * 6 * 8, dtype=np.float32).reshape(4, 6, 8)


def test_views_with_gaps_on_two_axes_are_copied_both_ways():
    a = gpuarray.to_gpu(HOST)
    assert np.array_equal(a[:, ::2, 1:5].get(), HOST[:, ::2, 1:5])
    b = gpuarray.zeros((4, 3, 4), np.float32)
    b.set(HOST[:, ::2, ::2])  # a host view with gaps into a packed device array
    assert np.array_equal(b.get(), HOST[:, ::2, ::2])
    c = gpuarray.zeros_like(a)
    c[:, 1:4] = a[:, :3]  # device to device, both with gaps
    expected = np.zeros_like(HOST)
    expected[:, 1:4] = HOST[:, :3]
    assert np.array_equal(c.get(), expected)


def test_what_pycudas_copy_refuses():
    a = gpuarray.to_gpu(HOST)
    # More than two axes with gaps: the simulator says so (ValueError); PyCUDA 2026.1 stops with a
    # TypeError from inside _memcpy_discontig (comparing None with an int) before it can.
    with pytest.raises((ValueError, TypeError)):
        a[::2, ::2, ::2].get()
    with pytest.raises(TypeError):  # "src and dst must have same dtype"
        a[0] = gpuarray.zeros((6, 8), np.float64)
    with pytest.raises(ValueError):  # "src and dst must be same shape"
        a[0] = gpuarray.zeros((8, 6), np.float32)


@pytest.mark.skipif(BACKEND != "simulator", reason="PyCUDA copies the bytes: a silent transpose")
def test_a_copy_between_c_and_fortran_order_is_refused():
    c = gpuarray.to_gpu(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(ValueError, match="order"):
        c.set(np.asfortranarray(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="order"):
        c.get(np.asfortranarray(np.ones((2, 3), np.float32)))
    vector = gpuarray.zeros(3, np.float32)
    vector.set(np.ones((3, 2), np.float32)[:, 0])  # one axis: no order to get wrong
    assert vector.get().tolist() == [1, 1, 1]
