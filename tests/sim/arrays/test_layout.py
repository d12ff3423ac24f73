"""How a GPUArray lies in memory (helpers/sim/arrays/layout.py): strides for C and Fortran order,
its flags, PyCUDA's launch shape for its elements, and the view of device memory every host-side
operation goes through."""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.arrays import layout


def test_strides_flags_and_the_packed_strides_of_a_view_keep_numpys_rules():
    assert layout.c_strides(4, (3, 5)) == (20, 4)
    assert layout.f_strides(4, (3, 5)) == (4, 12)
    a = gpuarray.zeros((3, 5), np.float32, order="F")
    assert a.flags.f_contiguous and not a.flags.c_contiguous and a.flags.forc
    host = np.zeros((4, 6), np.float32)[:, ::2]   # a view with gaps
    assert layout.compact_strides(host) == [12, 4]
    assert layout.compact_strides(np.zeros((4, 6), np.float32, order="F")) == [4, 16]


def test_pycudas_launch_shape_for_n_elements():
    # 32 to 128 threads a block, at most 4 x 8 blocks a multiprocessor (132 on an H200)
    assert layout._splay(10, 132) == ((1, 1), (32, 1, 1))
    assert layout._splay(1000, 132) == ((32, 1), (32, 1, 1))
    assert layout._splay(10**8, 132) == ((4 * 8 * 132, 1), (128, 1, 1))


def test_a_view_of_device_memory_never_reaches_outside_its_allocation():
    allocation = drv.mem_alloc(64)
    view = layout.device_view(int(allocation), (16,), np.float32, (4,))
    view[:] = 1
    assert view.sum() == 16
    with pytest.raises(drv.LogicError, match="reaches outside its memory"):
        layout.device_view(int(allocation), (17,), np.float32, (4,))
