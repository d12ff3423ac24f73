"""The simulated device (helpers/sim/machine/device.py): what a device says it is (compute
capability, attributes, memory), its contexts and their malloc heaps. The questions PyCUDA code
asks run on whichever backend helpers.backend chose, and on a GPU the simulator's table of
attributes is compared with the device's own; how the answers follow the simulator's settings
is checked on the simulator."""

import re

import numpy as np
import pytest

from helpers.backend import BACKEND, drv

simulator_only = pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own device")


def test_the_device_has_a_compute_capability_and_its_limits():
    dev = drv.Context.get_device()
    major, minor = dev.compute_capability()
    assert (major, minor) >= (7, 0)
    attrs = dev.get_attributes()
    assert attrs[drv.device_attribute.COMPUTE_CAPABILITY_MAJOR] == major
    assert attrs[drv.device_attribute.MAX_THREADS_PER_BLOCK] == 1024
    assert dev.get_attribute(drv.device_attribute.WARP_SIZE) == 32
    assert dev.max_threads_per_block == 1024
    with pytest.raises(AttributeError):
        dev.no_such_attribute


def test_a_device_is_equal_to_itself_and_knows_its_memory_and_bus():
    dev = drv.Device(0)
    assert dev == drv.Device(0) and hash(dev) == hash(drv.Device(0))
    assert re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9]", dev.pci_bus_id().lower())
    free, total = drv.mem_get_info()
    assert 0 < free <= total == dev.total_memory()
    assert drv.Context.get_device() == dev


@pytest.mark.skipif(BACKEND != "pycuda", reason="compares the simulator's table with a real GPU")
def test_the_simulators_attribute_table_matches_this_gpu():
    from helpers.sim.machine import device as simulated
    dev = drv.Context.get_device()
    real = {str(name).rsplit(".", 1)[-1]: value for name, value in dev.get_attributes().items()}
    table = simulated.attributes(dev.compute_capability())
    board = {"MULTIPROCESSOR_COUNT", "ASYNC_ENGINE_COUNT", "CONCURRENT_KERNELS", "GPU_OVERLAP",
             "CLOCK_RATE", "MEMORY_CLOCK_RATE", "GLOBAL_MEMORY_BUS_WIDTH", "L2_CACHE_SIZE",
             "PCI_BUS_ID", "PCI_DEVICE_ID", "PCI_DOMAIN_ID", "ECC_ENABLED", "TCC_DRIVER",
             "KERNEL_EXEC_TIMEOUT", "INTEGRATED", "COMPUTE_MODE"}
    print({k: (table[k], real.get(k)) for k in sorted(board & set(table))})
    differ = {k: (table[k], real[k]) for k in set(table) - board if k in real and
              real[k] != table[k]}
    assert not differ, f"simulated vs this GPU: {differ}"
    assert len(set(table) & set(real)) > 20


@simulator_only
def test_the_attributes_follow_the_compute_capability():
    from helpers.sim.settings import settings

    dev = drv.Device(0)
    with settings.changed(compute_capability="8.6"):
        assert dev.compute_capability() == (8, 6)
        assert dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR) == 1536
        assert dev.max_shared_memory_per_block_optin == 99 * 1024
    assert dev.compute_capability() == (9, 0)
    assert dev.get_attribute("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN") == 227 * 1024
    with settings.changed(workers=5):  # the workers that run blocks are its multiprocessors
        assert dev.multiprocessor_count == 5
    with settings.changed(compute_capability="1.3"), pytest.raises(ValueError, match="9.0"):
        dev.get_attributes()
    with pytest.raises(drv.LogicError, match="NO_SUCH_ATTRIBUTE"):
        dev.get_attribute("NO_SUCH_ATTRIBUTE")


@simulator_only
def test_the_simulator_stands_in_for_cuda_13():
    assert drv.get_version() == (13, 0, 0) and drv.get_driver_version() == 13000
    assert drv.Context.get_api_version(drv.Context()) == 13000


@simulator_only
def test_the_malloc_heap_is_the_contexts_and_set_limit_sizes_it():
    """Context.set_limit(limit.MALLOC_HEAP_SIZE, n) as in CUDA; what a kernel keeps counts
    until it is freed (PyCUDA refused the change on the H200 once a kernel had used the heap,
    the simulator allows it)."""
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule

    mod = SourceModule("__global__ void keep(unsigned long long bytes, int *ok) {\n"
                       "    ok[threadIdx.x] = malloc(bytes) != 0;\n}\n")
    ctx = drv.Device(0).make_context()
    try:
        ok = gpuarray.zeros(4, np.int32)
        drv.Context.set_limit(drv.limit.MALLOC_HEAP_SIZE, 64 << 20)
        assert drv.Context.get_limit(drv.limit.MALLOC_HEAP_SIZE) == 64 << 20
        mod.get_function("keep")(np.uint64(30 << 20), ok, block=(4, 1, 1))
        assert ok.get().tolist() == [1, 1, 0, 0]   # two of 30 MiB fit in 64 MiB, then NULL
    finally:
        ctx.pop()
    assert drv.Context.get_limit(drv.limit.MALLOC_HEAP_SIZE) == 8 << 20   # another heap
