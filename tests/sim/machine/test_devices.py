"""The simulator's several devices (CUDA_SIM_DEVICES, helpers/sim/machine/devices.py): numbering,
contexts current per thread, memory and modules that belong to a device, peer access, copies
between devices. Simulator only: a GPU machine has the devices it has."""

import contextlib
import gc
import threading

import numpy as np
import pytest

from helpers.backend import BACKEND

pytestmark = pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own devices")

SOURCE = """
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}
"""


@pytest.fixture
def two_devices():
    from helpers.sim import driver as drv
    from helpers.sim.settings import settings

    # Arrays of earlier tests held only by reference cycles (a traceback kept by pytest.raises)
    # still count against device 0 until the garbage collector runs: run it now.
    gc.collect()
    with settings.changed(devices=2):
        contexts = [drv.Device(k).retain_primary_context() for k in range(2)]
        yield drv, contexts
        for context in contexts:   # let go of the holds, or a later test finds them still held
            with contextlib.suppress(drv.LogicError):   # a test detached it itself
                context.detach()


def on(drv, context, work):
    """work() with context pushed on this thread, popped after."""
    context.push()
    try:
        return work()
    finally:
        drv.Context.pop()


def test_the_number_of_devices_is_a_setting(monkeypatch):
    from helpers.sim import driver as drv
    from helpers.sim.settings import Settings, settings

    assert drv.Device.count() == 1
    with pytest.raises(drv.LogicError, match="invalid device ordinal 1 .*one device, number 0"):
        drv.Device(1)
    with settings.changed(devices=3):
        assert drv.Device.count() == 3
        assert [drv.Device(k).pci_bus_id() for k in range(3)] == [
            "0000:00:00.0", "0000:01:00.0", "0000:02:00.0"]
        with pytest.raises(drv.LogicError, match="devices 0 to 2; CUDA_SIM_DEVICES=N"):
            drv.Device(3)
    assert Settings.from_environ({"CUDA_SIM_DEVICES": "2"}).devices == 2
    with pytest.raises(ValueError, match="CUDA_SIM_DEVICES='0': give a number of at least 1"):
        Settings.from_environ({"CUDA_SIM_DEVICES": "0"})


def test_contexts_are_current_per_thread(two_devices):
    drv, (ctx0, ctx1) = two_devices
    assert drv.Context.get_device() == drv.Device(0)     # no context pushed: device 0
    seen = {}

    def worker():
        seen["before"] = drv.Context.get_current()
        ctx1.push()
        seen["inside"] = drv.Context.get_device()
        drv.Context.pop()

    ctx0.push()
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert drv.Context.get_current() is ctx0 and drv.Context.get_device() == drv.Device(0)
    drv.Context.pop()
    assert seen == {"before": None, "inside": drv.Device(1)}
    again = drv.Device(1).retain_primary_context()   # PyCUDA's: a new wrapper of the same context
    assert again == ctx1 and again is not ctx1 and again != ctx0
    with pytest.raises(drv.LogicError, match="no context is current"):
        drv.Context.pop()


def test_make_context_pushes_a_new_context(two_devices):
    drv, _ = two_devices
    context = drv.Device(1).make_context()
    try:
        assert drv.Context.get_current() is context
        assert drv.Context.get_device() == drv.Device(1)
    finally:
        drv.Context.pop()
    assert drv.Context.get_current() is None


def test_a_module_runs_only_in_the_context_it_was_compiled_in(two_devices):
    from helpers.sim.compiler import SourceModule

    drv, (ctx0, ctx1) = two_devices
    add0 = on(drv, ctx0, lambda: SourceModule(SOURCE).get_function("add_one"))
    x1 = on(drv, ctx1, lambda: drv.mem_alloc(16))
    with pytest.raises(drv.LogicError, match=r"invalid resource handle \(kernel 'add_one' comes "
                       r"from a module compiled while device 0's context was current, and "
                       r"device 1's context is current now"):
        on(drv, ctx1, lambda: add0(x1, np.int32(4), block=(4, 1, 1), grid=(1, 1)))
    add1 = on(drv, ctx1, lambda: SourceModule(SOURCE).get_function("add_one"))
    on(drv, ctx1, lambda: add1(x1, np.int32(4), block=(4, 1, 1), grid=(1, 1)))
    out = np.empty(4, np.float32)
    drv.memcpy_dtoh(out, x1)
    assert out.tolist() == [1, 1, 1, 1]


def test_a_kernel_may_use_another_devices_memory_only_with_peer_access(two_devices):
    from helpers.sim.compiler import SourceModule

    drv, (ctx0, ctx1) = two_devices
    x0 = on(drv, ctx0, lambda: drv.mem_alloc(16))
    drv.memcpy_htod(x0, np.zeros(4, np.float32))
    add1 = on(drv, ctx1, lambda: SourceModule(SOURCE).get_function("add_one"))
    launch = lambda: add1(x0, np.int32(4), block=(4, 1, 1), grid=(1, 1))  # noqa: E731
    with pytest.raises(drv.LaunchError) as refused:
        on(drv, ctx1, launch)
    assert (refused.value.kind, refused.value.kernel, refused.value.address) == (
        "no peer access", "add_one", int(x0))
    assert "enable_peer_access" in str(refused.value)  # the cure, which has no field
    assert drv.Device(1).can_access_peer(drv.Device(0))
    assert not drv.Device(1).can_access_peer(drv.Device(1))
    on(drv, ctx1, lambda: drv.Context.enable_peer_access(ctx0))
    try:
        with pytest.raises(drv.LogicError, match="peer access is already enabled"):
            on(drv, ctx1, lambda: drv.Context.enable_peer_access(ctx0))
        on(drv, ctx1, launch)
        out = np.empty(4, np.float32)
        drv.memcpy_dtoh(out, x0)
        assert out.tolist() == [1, 1, 1, 1]
    finally:
        on(drv, ctx1, lambda: drv.Context.disable_peer_access(ctx0))
    with pytest.raises(drv.LaunchError) as refused:
        on(drv, ctx1, launch)
    assert (refused.value.kind, refused.value.address) == ("no peer access", int(x0))


def test_copies_between_devices(two_devices):
    drv, (ctx0, ctx1) = two_devices
    data = np.arange(1000, dtype=np.float32)
    a = on(drv, ctx0, lambda: drv.mem_alloc(data.nbytes))
    b = on(drv, ctx1, lambda: drv.mem_alloc(data.nbytes))
    c = on(drv, ctx1, lambda: drv.mem_alloc(data.nbytes))
    drv.memcpy_htod(a, data)
    on(drv, ctx1, lambda: drv.memcpy_peer(b, a, data.nbytes, dest_context=ctx1, src_context=ctx0))
    on(drv, ctx0, lambda: drv.memcpy_dtod(c, b, data.nbytes))
    out = np.empty_like(data)
    drv.memcpy_dtoh(out, c)
    assert np.array_equal(out, data)


def test_each_device_has_its_share_of_the_memory(two_devices):
    from helpers.sim.settings import settings

    drv, (ctx0, ctx1) = two_devices
    gc.collect()  # arrays of earlier tests held only by garbage cycles still count until then
    with settings.changed(device_memory=8 * 2**20):            # 4 MiB a device
        assert drv.Device(1).total_memory() == 4 * 2**20
        # Modules that tests before this one loaded on device 0 hold some of its memory.
        held = 4 * 2**20 - on(drv, ctx0, drv.mem_get_info)[0]
        a = on(drv, ctx0, lambda: drv.mem_alloc(2 * 2**20))
        b = on(drv, ctx1, lambda: drv.mem_alloc(3 * 2**20))
        free0, total0 = on(drv, ctx0, drv.mem_get_info)
        assert total0 == 4 * 2**20 and free0 == 2 * 2**20 - held
        with pytest.raises(drv.MemoryError, match="device 1, which has 1,048,576 of its "
                           "4,194,304 bytes free"):
            on(drv, ctx1, lambda: drv.mem_alloc(2 * 2**20))
        b.free()
        c = on(drv, ctx1, lambda: drv.mem_alloc(2 * 2**20))    # room again on device 1
        a.free()
        c.free()


def test_gpuarray_arithmetic_is_checked_for_peer_access_as_a_kernel(two_devices):
    from helpers.sim import gpuarray

    drv, (ctx0, ctx1) = two_devices
    a = on(drv, ctx0, lambda: gpuarray.to_gpu(np.arange(4, dtype=np.float32)))
    b = on(drv, ctx1, lambda: gpuarray.to_gpu(np.ones(4, np.float32)))
    for mistake in (lambda: a + b, lambda: b * 2, lambda: b.fill(np.float32(3)), abs):
        with pytest.raises(drv.LaunchError) as refused:
            mistake(b) if mistake is abs else mistake()
        assert (refused.value.kind, refused.value.address) == ("no peer access", int(b.gpudata))
    assert b.get().tolist() == [1, 1, 1, 1] and a.get().tolist() == [0, 1, 2, 3]   # copies cross
    assert on(drv, ctx1, lambda: (b + b).get().tolist()) == [2, 2, 2, 2]
    on(drv, ctx0, lambda: drv.Context.enable_peer_access(ctx1))
    try:
        assert (a + b).get().tolist() == [1, 2, 3, 4]
    finally:
        on(drv, ctx0, lambda: drv.Context.disable_peer_access(ctx1))


def test_a_finalizer_may_free_an_allocation_while_the_owners_are_read(two_devices, monkeypatch):
    """The garbage collector runs finalizers at whatever line makes an object, and an
    allocation's finalizer takes the devices' lock: here one runs inside mem_get_info, which holds
    it (this hung a run of the gray_split checker's tests). The collection is made where a
    finalizer could run, when this thread can take the lock again, so that a lock that cannot
    be taken twice fails the test instead of hanging it."""
    from helpers.sim.machine import devices

    drv, (ctx0, _) = two_devices
    collected = []

    class Owners(dict):
        def values(self):
            if devices._lock.acquire(blocking=False):
                devices._lock.release()
                collected.append(gc.collect())
            return super().values()

    gc.disable()
    try:
        garbage = on(drv, ctx0, lambda: drv.mem_alloc(1024))
        address = int(garbage)
        cycle = [garbage]
        cycle.append(cycle)             # freed by the collector only
        del garbage, cycle
        monkeypatch.setattr(devices, "_owner", Owners(devices._owner))
        assert address in devices._owner
        on(drv, ctx0, drv.mem_get_info)
    finally:
        gc.enable()
    assert collected and collected[0] > 0, "mem_get_info held a lock its finalizers cannot take"
    assert address not in devices._owner

