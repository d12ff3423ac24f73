"""The init check's shadow (helpers/sim/machine/written.py): which bytes of each allocation made
while the check is on have been written, marked by copies, memsets and gpuarray's own
operations; given up when the array is freed, and by every array when a launch runs unchecked.
No compile: what the launches mark is tested with the check (microscope/test_initcheck.py).
These run the simulator whatever backend is chosen."""

import numpy as np

from helpers.sim import driver as drv, gpuarray
from helpers.sim.machine import written
from helpers.sim.settings import settings


def _shadowed(n=64):
    with settings.changed(initcheck=True):
        a = gpuarray.empty(n, np.float32)
    return a, a.gpudata._block


def test_only_arrays_made_while_the_check_is_on_have_a_shadow():
    unchecked = gpuarray.empty(16, np.float32)
    assert unchecked.gpudata._block.written is None
    a, block = _shadowed()
    assert written.tracking() and block in written._tracked
    assert block.written.shape == (4 * 64,) and not block.written.any()


def test_copies_and_memsets_mark_the_bytes_they_write():
    a, block = _shadowed()
    drv.memcpy_htod(int(a.gpudata) + 16, np.ones(4, np.float32))  # elements 4 to 7
    assert np.flatnonzero(block.written).tolist() == list(range(16, 32))
    drv.memset_d8(int(a.gpudata), 0, 8)
    assert block.written[:8].all() and not block.written[8:16].any()
    a[32:].fill(1)  # through a NumPy view of device memory
    assert block.written[128:].all() and not block.written[32:128].any()


def test_marks_are_clipped_to_the_allocation():
    a, block = _shadowed(4)
    written.mark(block, block.address - 8, 12)   # reaches 4 bytes into it
    assert block.written.tolist() == [1] * 4 + [0] * 12
    written.mark(block, block.address + 12, 100)
    assert block.written[12:].all() and not block.written[4:12].any()
    written.mark(None, block.address, 4)  # an address in no allocation: nothing to mark


def test_each_allocation_gets_its_own_shadow_in_the_order_asked():
    a, block = _shadowed(8)
    plain = gpuarray.empty(8, np.float32)
    ranges = [(plain.gpudata._block.address, 32), (block.address, 32)]
    shadows = written.shadows(ranges)
    assert shadows[0] is None and shadows[1] is block.written


def test_forgetting_all_ends_every_shadow():  # what a launch without the check does
    a, block = _shadowed()
    written.forget_all()
    assert block.written is None and not written.tracking()


def test_a_freed_array_gives_its_shadow_up():
    a, block = _shadowed()
    assert block.written is not None and block in written._tracked
    a.gpudata.free()
    assert block.written is None and block not in written._tracked
