"""GPUArray's transfers on a stream (helpers/sim/arrays/array.py): set_async, get_async and
to_gpu_async queue their copies as PyCUDA's do. These run on whichever backend helpers.backend
chose; that a queued copy waits for the host to wait is checked on the simulator, whose streams
run their work only then."""

import numpy as np

from helpers.backend import BACKEND, drv, gpuarray

N = 4096


def test_transfers_queued_on_a_stream_arrive_when_it_is_synchronized():
    stream = drv.Stream()
    host = drv.pagelocked_empty(N, np.float32)
    host[:] = np.arange(N, dtype=np.float32)
    a = gpuarray.to_gpu_async(host, stream=stream)
    b = gpuarray.zeros(N, np.float32)
    b.set_async(host * 2, stream=stream)  # pageable: staged at once
    back = drv.pagelocked_zeros(N, np.float32)
    a.get_async(stream, back)
    if BACKEND == "simulator":
        assert (back == 0).all(), "a queued copy ran before the host waited for its stream"
    stream.synchronize()
    assert np.array_equal(back, host)
    assert np.array_equal(b.get_async(stream), 2 * host)  # into pageable memory: waited for


def test_a_page_locked_source_is_read_when_the_copy_runs():
    stream = drv.Stream()
    host = drv.pagelocked_zeros(N, np.int32)
    a = gpuarray.empty(N, np.int32)
    a.set_async(host, stream=stream)
    host[:] = 7  # before the stream runs the copy: on the simulator the copy reads 7s
    stream.synchronize()
    got = a.get()
    assert (got == 7).all() if BACKEND == "simulator" else set(np.unique(got)) <= {0, 7}


def test_get_can_give_page_locked_memory():
    out = gpuarray.to_gpu(np.arange(8, dtype=np.float64)).get(pagelocked=True)
    assert np.array_equal(out, np.arange(8))
    if BACKEND == "simulator":
        from helpers.sim.machine import hostmem
        assert hostmem.is_pinned(out)
