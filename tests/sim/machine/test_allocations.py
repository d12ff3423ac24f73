"""Device memory as PyCUDA hands it out (helpers/sim/machine/allocations.py): mem_alloc's
DeviceAllocation, memory a program hands PyCUDA through a PointerHolderBase, and what stands for
a device address. The copies through them run on whichever backend helpers.backend chose; what
a freed allocation says of itself is the simulator's."""

import inspect

import numpy as np
import pytest

from helpers.backend import BACKEND, drv

simulator_only = pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's allocations")


class Holder(drv.PointerHolderBase):
    def __init__(self, allocation):
        super().__init__()
        self.allocation = allocation

    def get_pointer(self):
        return int(self.allocation)


def test_memory_handed_over_through_a_pointer_holder_is_device_memory():
    host = np.arange(64, dtype=np.float32)
    allocation = drv.mem_alloc_like(host)
    holder = Holder(allocation)
    assert int(holder) == int(allocation)
    drv.memcpy_htod(holder, host)
    back = np.zeros_like(host)
    drv.memcpy_dtoh(back, allocation)
    assert np.array_equal(back, host)
    allocation.free()


def test_allocations_are_distinct_and_a_second_free_is_an_error():
    a, b = drv.mem_alloc(256), drv.mem_alloc(256)
    assert int(a) != int(b) and int(a) % 256 == 0 and int(b) % 256 == 0
    a.free()
    with pytest.raises(drv.LogicError):  # PyCUDA: "device_allocation::free failed"
        a.free()
    b.free()


@simulator_only
def test_a_freed_allocation_says_where_the_program_freed_it():
    from helpers.sim.machine import allocations

    a = allocations.mem_alloc(4096)
    address = int(a)
    assert repr(a) == f"<DeviceAllocation of 4096 bytes at 0x{address:x} (simulated)>"
    block = a._block
    a.free()
    assert block.freed_at == f"test_allocations.py:{inspect.currentframe().f_lineno - 1}"
    assert allocations.program_line() == f"test_allocations.py:{inspect.currentframe().f_lineno}"
    assert repr(a) == "<DeviceAllocation (freed)>"
    with pytest.raises(drv.LogicError):
        int(a)


@simulator_only
def test_what_stands_for_a_device_address():
    from helpers.sim import gpuarray
    from helpers.sim.machine import allocations

    allocation = allocations.mem_alloc(64)
    array = gpuarray.zeros(4, np.float32)
    assert allocations.address(allocation) == int(allocation)
    assert allocations.address(Holder(allocation)) == int(allocation)
    assert allocations.address(array) == int(array.gpudata)
    assert allocations.address(np.uintp(int(allocation))) == int(allocation)
    with pytest.raises(TypeError, match="float"):
        allocations.address(1.5)
