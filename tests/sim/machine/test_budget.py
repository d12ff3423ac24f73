"""The simulated device's size and what is charged against it (helpers/sim/machine/budget.py):
allocations and loaded modules' __device__ arrays, refused with drv.MemoryError, as a GPU refuses
them, when they do not fit. The simulator's own (a GPU has the size it has)."""

import gc

import pytest

from helpers.sim import driver as drv
from helpers.sim.machine import budget
from helpers.sim.settings import settings


@pytest.fixture(autouse=True)
def _collected():
    """Arrays an earlier test left to the collector are freed before a test reads the usage, and
    none during it: one freed in the middle (168 KiB, a collection the test's own allocations
    set off) made the usage 4,096 where the test expected what it had read plus 4,096."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def test_what_does_not_fit_is_refused_and_a_refund_gives_it_back():
    used, _ = budget.usage()
    with settings.changed(device_memory=used + 4096):
        budget.charge(4096, 4096)
        assert budget.usage() == (used + 4096, used + 4096)
        with pytest.raises(drv.MemoryError, match=r"^cuMemAlloc failed: out of memory: 1 bytes "
                           r"asked for, and the simulated device has 0 of its [\d,]+ bytes free. "
                           r"Free arrays you no longer need"):
            budget.charge(1, 1)
        budget.refund(4096)
        assert budget.usage()[0] == used


def test_a_modules_arrays_are_charged_and_the_largest_named():
    used, _ = budget.usage()
    with settings.changed(device_memory=used + (1 << 20)):
        give_back = budget.charge_module([("a", 512 << 10), ("b", 256 << 10)])
        assert budget.usage()[0] == used + (768 << 10)
        with pytest.raises(drv.MemoryError, match=r"^cuModuleLoadDataEx failed: out of memory: "
                           r"the module's __device__ array 'big' takes 327,680 bytes \(and 1 "
                           r"more, 393,216 bytes in all\), and the simulated device has 262,144 "
                           r".*Make it smaller"):
            budget.charge_module([("big", 320 << 10), ("small", 64 << 10)])
        give_back()
        assert budget.usage()[0] == used
        budget.charge_module([])()   # a module without variables takes nothing
        assert budget.usage()[0] == used
