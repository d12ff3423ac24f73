"""Copies and fills of device memory (machine/copies.py)."""

import numpy as np
import pytest

from helpers.sim import driver as drv


def test_copies_larger_than_the_allocation_are_refused():
    d = drv.mem_alloc(16)
    with pytest.raises(drv.LogicError, match="do not fit"):
        drv.memcpy_htod(d, np.zeros(5, np.float32))


def test_every_copy_to_the_host_is_noted_as_it_runs():
    """copies.to_host: each way to copy device memory into host memory is noted once, with the
    device whose memory it read and the device whose work it followed; a queued copy when its
    stream reaches it; copies the other way are not."""
    from helpers.sim import gpuarray
    from helpers.sim.machine.copies import ToHost, recording_to_host
    from helpers.sim.settings import settings

    with settings.changed(devices=2):
        one = drv.Device(1).make_context()
        try:
            a = gpuarray.to_gpu(np.arange(64, dtype=np.float32))   # on device 1
            stream = drv.Stream()
            host = drv.pagelocked_empty(64, np.float32)
            with recording_to_host() as copies:
                a.get()
                drv.memcpy_dtoh(host, a.gpudata)
                copy = drv.Memcpy2D()
                copy.set_src_device(a.gpudata)
                copy.set_dst_host(host)
                copy.width_in_bytes = copy.src_pitch = copy.dst_pitch = 256
                copy.height = 1
                copy()
                drv.memcpy_htod(a.gpudata, host)                  # to the device: not noted
                a.get_async(stream, drv.pagelocked_empty(64, np.float32))
                drv.memcpy_dtoh_async(host, a.gpudata, stream)
                assert len(copies) == 3, "a queued copy was noted before it ran"
                drv.Context.pop()                                 # device 0 current
                a.get()                                           # in device 0's order
                one.push()
                stream.synchronize()
            assert copies == [ToHost(1, 1)] * 3 + [ToHost(1, 0)] + [ToHost(1, 1)] * 2
        finally:
            one.pop()
            one.detach()
