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


ADD_ONE = """
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}
"""


def test_managed_memory_is_one_array_for_the_host_and_the_kernel():
    """managed_empty's array is read and written in place by both; a kernel given the array
    itself gets its pointer (PyCUDA passes an ndarray whose base is a ManagedAllocation so)."""
    from helpers.backend import SourceModule

    add_one = SourceModule(ADD_ONE).get_function("add_one")
    flags = drv.mem_attach_flags
    m = drv.managed_zeros((4, 16), np.float32, mem_flags=flags.GLOBAL)
    assert type(m.base).__name__ == "ManagedAllocation" and not m.any()
    assert m.base.get_device_pointer() == int(m.base) == m.ctypes.data
    m[:] = np.arange(64, dtype=np.float32).reshape(4, 16)
    add_one(m, np.int32(64), block=(64, 1, 1), grid=(1, 1))
    drv.Context.synchronize()
    assert m.ravel().tolist() == list(range(1, 65))
    f = drv.managed_empty_like(np.asfortranarray(m), mem_flags=flags.HOST)
    z = drv.managed_zeros_like(m, mem_flags=flags.GLOBAL)
    assert f.flags.f_contiguous and f.shape == (4, 16) and not z.any()
    out = np.empty_like(m)
    drv.memcpy_dtoh(out, m.base)           # a device pointer for copies too
    assert (out == m).all()
    m.base.attach(flags.HOST)
    m.base.attach(flags.SINGLE, drv.Stream())
    with pytest.raises(drv.LogicError):    # cuMemAllocManaged takes GLOBAL or HOST, not 0
        drv.managed_empty(4, np.float32)
    with pytest.raises(ValueError, match="could not detect array order"):
        drv.managed_empty_like(np.zeros((4, 4))[:, ::2], mem_flags=flags.GLOBAL)


@simulator_only
def test_freed_managed_memory_is_refused_to_kernels_and_still_read_by_the_host():
    """On a GPU the host's read is undefined (often a crash, which would end a learner's Jupyter
    kernel); the simulator keeps the pages until the array goes."""
    import gc

    from helpers.backend import SourceModule

    gc.collect()   # what earlier tests left for the collector is given back before counting
    free = drv.mem_get_info()[0]
    m = drv.managed_zeros(1024, np.float32, mem_flags=drv.mem_attach_flags.GLOBAL)
    assert drv.mem_get_info()[0] == free - 4096
    m.base.free()
    assert drv.mem_get_info()[0] == free and m.sum() == 0
    with pytest.raises(drv.LogicError, match="this allocation has been freed"):
        SourceModule(ADD_ONE).get_function("add_one")(m, np.int32(4), block=(4, 1, 1))


def test_the_address_range_of_an_allocation_from_any_address_inside_it():
    allocation = drv.mem_alloc(4096)
    start = int(allocation)
    assert drv.mem_get_address_range(start) == (start, 4096)
    assert drv.mem_get_address_range(start + 1000) == (start, 4096)
    assert drv.mem_get_address_range(allocation) == (start, 4096)
    allocation.free()
    with pytest.raises(drv.LogicError) as gone:
        drv.mem_get_address_range(start)
    if BACKEND == "simulator":
        assert str(gone.value).startswith("cuMemGetAddressRange failed: invalid argument")


@pytest.mark.parametrize("size, error", [
    (100.0, TypeError), (np.int64(100), TypeError), (np.int32(100), TypeError),
    (-1, OverflowError), (0, drv.LogicError)])
def test_mem_alloc_takes_a_python_int_of_bytes_as_pycuda_does(size, error):
    """PyCUDA's mem_alloc(unsigned long) refuses a float and NumPy's integers (Boost.Python's
    ArgumentError, a TypeError), a negative size, and 0 (cuMemAlloc's invalid argument): on an
    H100 with PyCUDA 2026.1, 2026-12-07. The simulator refuses them alike."""
    with pytest.raises(error):
        drv.mem_alloc(size)
    assert drv.mem_alloc(True) and drv.mem_alloc(int(np.int64(100)))
