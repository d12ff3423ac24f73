"""Streams, events and asynchronous copies behave as on a GPU, on both backends: work queued on a
stream has not happened until the host waits for it, so a missing synchronize shows on a laptop
too; the legacy default stream waits for the other streams; events time the work between them.

On a GPU the kernel below spins for a while (SPIN_GPU clock cycles, tens of milliseconds), so
that the host's next lines run long before it ends; on the simulator, queued work waits for the
host anyway.
"""

import time
import weakref

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray
from multi_device import several_devices

SIM = BACKEND == "simulator"
SPIN = np.int64(10_000 if SIM else 100_000_000)  # ns on the simulator, clock cycles on a GPU

SLOW = r"""
__global__ void slow_fill(float *out, int n, float value, long long spin) {
    long long start = clock64();
    if (threadIdx.x == 0) while (clock64() - start < spin) { }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value + i;
}
"""
N = 4096


@pytest.fixture(scope="module")
def slow_fill():
    f = SourceModule(SLOW).get_function("slow_fill")

    def launch(out, value, stream=None):
        f(out, np.int32(N), np.float32(value), SPIN, block=(256, 1, 1), grid=(N // 256, 1),
          stream=stream)

    return launch


def test_a_pinned_buffer_read_before_synchronize_holds_old_data(slow_fill):
    stream = drv.Stream()
    d_out = drv.mem_alloc(4 * N)
    h_out = drv.pagelocked_empty(N, np.float32)
    h_out.fill(-1.0)
    slow_fill(d_out, 1.0, stream)
    drv.memcpy_dtoh_async(h_out, d_out, stream)
    early = h_out.copy()              # the mistake: no stream.synchronize() yet
    stream.synchronize()
    assert (early == -1.0).all()
    assert np.array_equal(h_out, 1.0 + np.arange(N, dtype=np.float32))


def test_a_stream_is_not_done_until_its_work_has_run(slow_fill):
    stream = drv.Stream()
    d_out = drv.mem_alloc(4 * N)
    slow_fill(d_out, 2.0, stream)
    assert not stream.is_done()
    while not stream.is_done():       # polling gets there, as on a GPU
        pass
    out = np.empty(N, np.float32)
    drv.memcpy_dtoh(out, d_out)
    assert out[0] == 2.0


def test_the_legacy_default_stream_waits_for_other_streams(slow_fill):
    stream = drv.Stream()
    d_out = drv.mem_alloc(4 * N)
    slow_fill(d_out, 3.0, stream)
    out = np.empty(N, np.float32)
    drv.memcpy_dtoh(out, d_out)       # a synchronous copy, in the default stream
    assert np.array_equal(out, 3.0 + np.arange(N, dtype=np.float32))


def test_a_non_blocking_stream_is_not_waited_for_by_the_default_stream(slow_fill):
    stream = drv.Stream(flags=1)      # CU_STREAM_NON_BLOCKING
    d_out = gpuarray.zeros(N, np.float32)
    slow_fill(d_out.gpudata, 4.0, stream)
    early = d_out.get()               # the default stream does not wait for it
    stream.synchronize()
    assert (early == 0).all()
    assert d_out.get()[5] == 9.0


def test_a_stream_waits_for_an_event_of_another(slow_fill):
    producer, consumer = drv.Stream(), drv.Stream()
    d_a, d_b = drv.mem_alloc(4 * N), drv.mem_alloc(4 * N)
    h_b = drv.pagelocked_zeros(N, np.float32)
    slow_fill(d_a, 5.0, producer)
    ready = drv.Event().record(producer)
    consumer.wait_for_event(ready)
    drv.memcpy_dtod_async(d_b, d_a, 4 * N, consumer)
    drv.memcpy_dtoh_async(h_b, d_b, consumer)
    consumer.synchronize()
    assert np.array_equal(h_b, 5.0 + np.arange(N, dtype=np.float32))


def test_events_time_the_work_between_them_not_the_hosts_wait(slow_fill):
    stream = drv.Stream()
    d_out = drv.mem_alloc(4 * N)
    start, end = drv.Event(), drv.Event()
    start.record(stream)
    slow_fill(d_out, 6.0, stream)
    end.record(stream)
    with pytest.raises(drv.RuntimeError, match="not ready"):
        start.time_till(end)
    assert not end.query()
    time.sleep(0.3)                   # the host is busy elsewhere; the GPU is not waiting for it
    end.synchronize()
    assert 0 < start.time_till(end) < 250


def test_a_query_that_said_no_does_not_wait(slow_fill):
    """end.query() asks and returns at once: a time read right after its no fails, as on a GPU
    (the simulator's query lets the work run, but end is reached only at the host's next call);
    a loop that asks again gets there."""
    stream = drv.Stream()
    d_out = drv.mem_alloc(4 * N)
    start, end = drv.Event(), drv.Event()
    start.record(stream)
    slow_fill(d_out, 5.0, stream)
    end.record(stream)
    assert not end.query()
    with pytest.raises(drv.RuntimeError, match="not ready"):
        start.time_till(end)
    while not end.query():
        pass
    assert start.time_till(end) > 0


def test_asking_a_stream_does_not_run_its_copies(slow_fill):
    """stream.is_done() asks and returns at once: a page-locked buffer refilled after its no (two
    of them, here) is what the copy queued before reads, as on a GPU (the simulator's poll lets
    the work run, but only at the host's next call); the refill is safe only after a wait."""
    stream = drv.Stream()
    d_a, d_b = drv.mem_alloc(4 * N), drv.mem_alloc(4 * N)
    buf = drv.pagelocked_empty(N, np.float32)
    buf.fill(1.0)
    slow_fill(d_a, 7.0, stream)
    drv.memcpy_htod_async(d_b, buf, stream)
    assert not stream.is_done()
    assert not stream.is_done()
    buf.fill(2.0)                     # the mistake: the copy out of buf has not run yet
    stream.synchronize()
    out = np.empty(N, np.float32)
    drv.memcpy_dtoh(out, d_b)
    assert (out == 2.0).all()


def test_copies_from_pageable_memory_take_the_data_when_called(slow_fill):
    """CUDA copies pageable memory at once (host to device) or waits for the copy (device to
    host): only page-locked memory is read or written later."""
    stream = drv.Stream()
    d = drv.mem_alloc(4 * N)
    src = np.arange(N, dtype=np.float32)
    drv.memcpy_htod_async(d, src, stream)
    src[:] = -5                       # after the call: the copy already has the data
    back = np.zeros(N, np.float32)
    drv.memcpy_dtoh_async(back, d, stream)
    assert np.array_equal(back, np.arange(N, dtype=np.float32))   # no synchronize needed


@pytest.mark.skipif(not SIM, reason="on a GPU an illegal address ends the context")
def test_an_error_in_queued_work_is_raised_where_the_host_waits():
    # The lowest pages are never mapped: 400 KB past a small array may be some other mapping.
    bad = SourceModule("__global__ void bad(float *p) { ((volatile float *)4096)[threadIdx.x] = "
                       "p[0]; }")
    stream = drv.Stream()
    d = drv.mem_alloc(64)
    bad.get_function("bad")(d, block=(1, 1, 1), stream=stream)   # queued: no error yet
    later = drv.Event().record(stream)
    with pytest.raises(drv.LaunchError) as err:
        stream.synchronize()
    assert (err.value.kind, err.value.kernel) == ("wild pointer", "bad")
    assert "where the host waited" in str(err.value)  # a note, with no field: the text says it
    assert later.query()              # what was queued after it was dropped
    stream.synchronize()


@pytest.mark.parametrize("then_copied", [False, True], ids=["kernel", "kernel_and_copy"])
def test_an_array_let_go_of_while_its_work_is_queued_is_freed_then_after_the_work(slow_fill,
                                                                                  then_copied):
    """A launch or a copy keeps no reference to its arrays (PyCUDA's keep their addresses): a
    gpuarray the host lets go of while its kernel (and its copy back) is queued is freed at
    once, and the free waits for that work (cuMemFree waits for the device)."""
    stream, freed = drv.Stream(), []
    out, host = gpuarray.empty(N, np.float32), drv.pagelocked_zeros(N, np.float32)
    weakref.finalize(out, freed.append, "freed")
    slow_fill(out, 5.0, stream)
    if then_copied:
        out.get_async(stream, host)
    del out
    assert freed == ["freed"]
    assert stream.is_done()
    assert host[1] == (6.0 if then_copied else 0.0)


@pytest.mark.skipif(not SIM, reason="what the simulator promises about freeing memory")
def test_freeing_memory_runs_the_work_that_uses_it_first(slow_fill):
    stream = drv.Stream()
    d = drv.mem_alloc(4 * N)
    h = drv.pagelocked_zeros(N, np.float32)
    slow_fill(np.intp(int(d)), 7.0, stream)                     # a raw address: no reference
    drv.memcpy_dtoh_async(h, d, stream)
    d.free()                          # cuMemFree waits for the device
    assert h[1] == 8.0


@pytest.mark.skipif(not SIM, reason="what the simulator promises about freeing memory")
def test_memory_a_garbage_collection_frees_while_markers_settle_runs_its_work_once(
        slow_fill, monkeypatch):
    """A collection can free an array (running the work that uses it) at any allocation, even
    while a new event's record settles the queue's markers; the marker that work reached is
    settled once (CI's run of copy_bandwidth's checker met a KeyError here)."""
    from helpers.sim.machine import streams

    stream, d = drv.Stream(), drv.mem_alloc(4 * N)
    slow_fill(d, 3.0, stream)
    filled = drv.Event().record(stream)          # a marker: reached when the fill has run

    def all_after_a_collection(items, collected=[]):  # noqa: B006 - once a test
        if not collected:
            collected.append(d)
            d.free()                             # as a destructor would, mid-loop
        return all(items)

    monkeypatch.setattr(streams, "all", all_after_a_collection, raising=False)
    later = drv.Event().record()
    monkeypatch.undo()
    assert filled.query() and later.query()


@pytest.mark.skipif(not SIM, reason="the simulator's own question: where the host waited")
def test_reached_says_whether_the_host_waited_for_the_work_without_running_it(slow_fill):
    from helpers.sim.machine.streams import reached

    out, stream = gpuarray.empty(N, np.float32), drv.Stream()
    slow_fill(out, 1.0, stream)
    after = drv.Event().record(stream)
    assert not reached(after) and not reached(after), "reached() ran the queued work"
    assert not reached(drv.Event()), "an event never recorded"
    drv.memcpy_htod(gpuarray.empty(1, np.float32).gpudata, np.ones(1, np.float32))  # waits
    assert reached(after)


def test_a_synchronous_copy_waits_for_its_own_devices_work_only(slow_fill):
    """CUDA's legacy default stream is its context's: with device 1 current, a synchronous copy
    and Context.synchronize() do not wait for device 0's kernel, which is what lets one host
    thread keep several devices busy (notebook 11); with device 0 current they do. (A context
    of its own for device 1, destroyed after: the primary ones are held for the session.)"""
    with several_devices():
        one = drv.Device(1).make_context()
        try:
            d_1, h_1 = drv.mem_alloc(4 * N), np.ones(N, np.float32)
            drv.Context.pop()                 # device 0's context is current again
            d_0, stream = drv.mem_alloc(4 * N), drv.Stream()
            slow_fill(d_0, 2.0, stream)
            done = drv.Event().record(stream)
            one.push()
            drv.memcpy_htod(d_1, h_1)
            drv.memcpy_dtoh(h_1, d_1)
            drv.Context.synchronize()
            d_1.free()                        # before its context goes
            drv.Context.pop()
            assert not done.query(), "device 1's copies waited for device 0's kernel"
            out = np.empty(N, np.float32)
            drv.memcpy_dtoh(out, d_0)
            assert done.query() and np.array_equal(out, 2.0 + np.arange(N, dtype=np.float32))
        finally:
            one.detach()
