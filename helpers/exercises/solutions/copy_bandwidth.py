"""Reference solution of notebook 05's event-timing exercise: one copy's bandwidth from two CUDA
events.

    from helpers.exercises.copy_bandwidth import check_copy_bandwidth
    from helpers.exercises.solutions.copy_bandwidth import my_copy_gbs
    check_copy_bandwidth(my_copy_gbs)
"""

from __future__ import annotations


def my_copy_gbs(h, d, stream):
    """The GB/s of one copy of ``h`` into ``d`` on ``stream``, timed on the GPU's clock.

    The events are recorded in the stream on both sides of the copy, so the GPU stamps them when
    its work reaches them: the time between them is the copy's, whatever the host did meanwhile.
    The host must wait for the second event before reading the time (the copy runs on after
    memcpy_htod_async returns).
    """
    from helpers.backend import drv

    start, end = drv.Event(), drv.Event()
    start.record(stream)
    drv.memcpy_htod_async(d, h, stream)
    end.record(stream)
    end.synchronize()
    ms = start.time_till(end)
    return h.nbytes / (ms * 1e-3) / 1e9
