"""GPUArray's operators (helpers/sim/arrays/arithmetic.py): PyCUDA's dtypes and results for
arithmetic, in-place operators, comparisons, abs, powers, casts, complex parts and any/all. These
run on whichever backend helpers.backend chose, so on a GPU they hold PyCUDA itself to the same
results; what the simulator refuses where PyCUDA would be silently wrong is checked on the
simulator."""

import numpy as np
import pytest

from helpers.backend import BACKEND, gpuarray

simulator_only = pytest.mark.skipif(BACKEND != "simulator",
                                    reason="PyCUDA gives a wrong result where the simulator refuses")


def test_in_place_operators_write_into_the_arrays_own_memory():
    a = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    gpudata, view = a.gpudata, a.reshape(2, 4)
    expected = np.arange(8, dtype=np.float32)
    a += 1
    expected += 1
    assert a.gpudata is gpudata
    assert np.array_equal(view.get(), expected.reshape(2, 4))
    a *= 2
    a -= 1
    a /= 2
    a **= 2
    a += gpuarray.to_gpu(np.ones(8, np.float32))
    expected = ((expected * 2 - 1) / 2) ** 2 + 1
    assert a.gpudata is gpudata
    assert np.array_equal(view.get(), expected.reshape(2, 4))


def test_arithmetic_follows_numpys_dtype_promotion():
    ints = gpuarray.to_gpu(np.arange(4, dtype=np.int32))
    for result in (ints * 2.5, 2.5 * ints, ints / 2.5):
        assert result.dtype == np.float64
    assert np.array_equal((ints * 2.5).get(), [0, 2.5, 5, 7.5])
    assert np.array_equal((ints / 2.5).get(), np.arange(4) * (1 / 2.5))
    floats = gpuarray.to_gpu(np.arange(4, dtype=np.float32))
    assert (floats * 2.5).dtype == np.float32           # a Python float does not widen float32
    assert (floats * np.float64(2.5)).dtype == np.float64  # a NumPy float64 does
    assert (ints + floats).dtype == np.float64
    assert (ints * 2).dtype == np.int32


def test_reflected_operators_negation_and_mul_add():
    x = gpuarray.to_gpu(np.array([1.0, 2.0, 4.0], np.float32))
    y = gpuarray.to_gpu(np.array([3.0, 5.0, 7.0], np.float32))
    assert np.array_equal((10 - x).get(), [9, 8, 6]) and np.array_equal((8 / x).get(), [8, 4, 2])
    assert np.array_equal((2 ** x).get(), [2, 4, 16]) and np.array_equal((-x).get(), [-1, -2, -4])
    assert np.array_equal(x.mul_add(2, y, -1).get(), [-1, -1, 1])
    assert (+x) is x


def test_comparisons_are_elementwise():
    a = gpuarray.to_gpu(np.array([5, 10, 1], np.float32))
    b = gpuarray.to_gpu(np.array([2, 10, 2], np.float32))
    for got, want in [(a == b, [0, 1, 0]), (a != b, [1, 0, 1]), (a < b, [0, 0, 1]),
                      (a <= b, [0, 1, 1]), (a > b, [1, 0, 0]), (a >= b, [1, 1, 0])]:
        assert isinstance(got, gpuarray.GPUArray)
        assert got.dtype == np.float32 and np.array_equal(got.get(), want)
    x = gpuarray.to_gpu(np.array([1.0, 0.25, 0.1, -0.1]))
    assert np.array_equal((x > 0.25).get(), [1, 0, 0, 0])
    assert np.array_equal((x == 1).get(), [1, 0, 0, 0])


def test_abs_powers_casts_and_any_all():
    a = gpuarray.to_gpu(np.array([1.0, -2.0, 3.0]))
    assert np.array_equal(abs(a).get(), [1, 2, 3])
    assert np.array_equal((a ** 2).get(), [1, 4, 9])
    cast = a.astype(np.float32)
    assert cast.dtype == np.float32 and np.array_equal(cast.get(), [1, -2, 3])
    assert bool(a.any().get()) and not bool((a > 5).all().get()) and bool((a < 5).all().get())
    assert a.any().shape == ()


def test_complex_parts_and_reversal():
    z = np.array([1 + 2j, 3 - 4j, -5j], np.complex64)
    z_gpu = gpuarray.to_gpu(z)
    assert z_gpu.real.dtype == np.float32 and np.array_equal(z_gpu.real.get(), z.real)
    assert np.array_equal(z_gpu.imag.get(), z.imag) and np.array_equal(z_gpu.conj().get(), z.conj())
    assert abs(z_gpu).dtype == np.float32 and np.allclose(abs(z_gpu).get(), abs(z))
    x = gpuarray.to_gpu(np.arange(5, dtype=np.int32))
    assert x.real is x and x.conj() is x and not x.imag.get().any()
    assert np.array_equal(x.reverse().get(), [4, 3, 2, 1, 0])


@simulator_only
def test_arrays_of_different_memory_order_are_refused():
    c = gpuarray.to_gpu(np.arange(6, dtype=np.float32).reshape(2, 3))
    f = gpuarray.to_gpu(np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    for operation in (lambda: c + f, lambda: c == f, lambda: f.astype(np.float64),
                      lambda: gpuarray.to_gpu(np.asfortranarray(np.ones((2, 3), np.int32))) * 2.5):
        with pytest.raises(ValueError, match="order"):
            operation()
    assert np.array_equal((f + f).get(), 2 * f.get())  # the same order is fine


@simulator_only
def test_integer_division_and_inexact_scalars_are_refused():
    ints = gpuarray.to_gpu(np.arange(1, 5, dtype=np.int32))
    for operation in (lambda: ints / ints, lambda: ints / 2, lambda: 2 / ints):
        with pytest.raises(TypeError, match="integer"):
            operation()
    with pytest.raises(TypeError, match="whole number"):
        ints += 2.5
    with pytest.raises(TypeError, match="whole number"):
        ints.fill(0.5)
