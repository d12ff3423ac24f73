"""Page-locked and aligned host memory (helpers/sim/machine/hostmem.py): pycuda.driver's
pagelocked_* and aligned_* arrays. These run on whichever backend helpers.backend chose, so on
a GPU they hold PyCUDA itself to the same results; which arrays the simulator counts as
page-locked (what its streams go by) is checked on the simulator."""

import numpy as np
import pytest

from helpers.backend import BACKEND, drv

simulator_only = pytest.mark.skipif(BACKEND != "simulator",
                                    reason="which arrays the simulator counts as page-locked")


def test_a_page_locked_array_s_base_is_its_allocation_which_can_be_freed():
    for make in (drv.pagelocked_empty, drv.pagelocked_zeros):
        a = make((4, 3), np.float32)
        assert type(a.base).__name__ == "PagelockedHostAllocation"
        a.base.free()   # PyCUDA's HostAllocation.free(); the simulator's once had no base


def test_page_locked_arrays_have_the_shape_order_and_flags_asked_for():
    a = drv.pagelocked_zeros((5, 7), np.int16, order="F", mem_flags=drv.host_alloc_flags.PORTABLE)
    assert (a.shape, a.dtype, a.flags.f_contiguous) == ((5, 7), np.int16, True)
    flags = drv.host_alloc_flags   # DEVICEMAP too: with unified addressing it is always mapped
    assert not a.any() and a.base.get_flags() == flags.PORTABLE | flags.DEVICEMAP
    for like in (drv.pagelocked_empty_like(a), drv.pagelocked_zeros_like(a)):
        assert (like.shape, like.dtype, like.flags.f_contiguous) == ((5, 7), np.int16, True)
        assert type(like.base).__name__ == "PagelockedHostAllocation"
    assert not drv.pagelocked_zeros_like(a).any()
    a[:] = 3  # the memory is the program's to write
    assert a.sum() == 3 * 35


@pytest.mark.parametrize("alignment", [64, 4096])
def test_aligned_arrays_start_at_a_multiple_of_the_alignment(alignment):
    a = drv.aligned_empty((3, 5), np.float64, alignment=alignment)
    z = drv.aligned_zeros((3, 5), np.float64, order="F", alignment=alignment)
    for array in (a, z, drv.aligned_empty_like(z, alignment), drv.aligned_zeros_like(z, alignment)):
        assert array.ctypes.data % alignment == 0 and array.shape == (3, 5)
    assert not z.any() and z.flags.f_contiguous and drv.aligned_zeros_like(z).flags.f_contiguous
    assert not drv.aligned_zeros_like(a, alignment).any()


@simulator_only
def test_slices_and_views_of_page_locked_memory_are_page_locked_too():
    from helpers.sim.machine import hostmem

    a = drv.pagelocked_empty(1000, np.float32)
    assert hostmem.is_pinned(a) and hostmem.is_pinned(a[10:20]) and hostmem.is_pinned(a.view(np.uint8))
    assert not hostmem.is_pinned(np.empty(1000, np.float32))
    assert not hostmem.is_pinned(drv.aligned_empty(1000, np.float32))
    a.base.free()  # the bytes stay while the array lives, no longer page-locked
    assert not hostmem.is_pinned(a) and a.base.freed


@simulator_only
def test_a_collected_page_locked_array_is_forgotten():
    import gc

    from helpers.sim.machine import hostmem

    gc.collect()
    count = len(hostmem._starts)
    a = drv.pagelocked_zeros(256, np.uint8)
    assert len(hostmem._starts) == count + 1
    del a
    gc.collect()
    assert len(hostmem._starts) == count
