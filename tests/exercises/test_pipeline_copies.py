"""The pipeline exercise (notebook 05), its copies: a copy given its arguments in the other
copy's order (destination second) is refused before it is made, on both backends, and named,
where PyCUDA raised a TypeError about a buffer (or a C++ signature) that says neither."""

import pytest

from test_pipeline import COPY_IN, COPY_OUT, RIGHT, define, run_check

pytestmark = pytest.mark.gpu_timing  # as test_pipeline.py: the checker may time a GPU

# name: (source, pieces of the expected verdict)
WRONG = {
    # blind audit TYC-pipeline-1 (was "your function raised TypeError at line 21 of your cell
    # (drv.memcpy_dtoh_async(d_out, h_out[lo:hi], stream)): memoryview: a bytes-like object is
    # required, not 'DeviceAllocation' ... Hint: the message says what went wrong on that line"):
    # the copy back's arguments in the copy in's order, device buffer first
    "copy_back_arguments_in_the_copy_in_s_order": (
        RIGHT.replace(COPY_OUT, "        drv.memcpy_dtoh_async(d_out, h_out[lo:hi], s)\n"),
        ("chunk 0's copy back, drv.memcpy_dtoh_async, was given a device buffer as its first "
         "argument and a host array of 14287 float32 as its second: the copy in's order",
         "memcpy_dtoh_async copies into its first argument, the host array",
         "Hint: destination first in both copies: drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s), "
         "as drv.memcpy_htod_async(d_in, h_in[lo:hi], s)")),
    "copy_in_arguments_in_the_copy_back_s_order": (
        RIGHT.replace(COPY_IN, "        drv.memcpy_htod_async(h_in[lo:hi], d_in, s)\n"),
        ("chunk 0's copy in, drv.memcpy_htod_async, was given a host array of 14287 float32 as "
         "its first argument and a device buffer as its second: the copy back's order",
         "memcpy_htod_async copies into its first argument, the device buffer",
         "Hint: destination first in both copies: drv.memcpy_htod_async(d_in, h_in[lo:hi], s), "
         "as drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)")),
    # blind audit AI (was "57129 elements differ from NumPy, ... Hint: check which buffer and
    # which stream each copy and launch uses: ...", each of which was right): the work queued
    # breadth first, every copy in, then every launch, then every copy out, through each stream's
    # one buffer pair, so a later chunk's copy in overwrote d_in before the kernel read it
    "breadth_first_through_one_buffer_pair": ("""
def my_pipeline(h_in, h_out, n_chunks, streams, launch):
    n = h_in.size
    chunk = -(-n // n_chunks)
    buffers = [(drv.mem_alloc(chunk * 4), drv.mem_alloc(chunk * 4)) for _ in streams]
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]
    for c, (lo, hi) in enumerate(bounds):
        d_in, d_out = buffers[c % len(streams)]
        drv.memcpy_htod_async(d_in, h_in[lo:hi], streams[c % len(streams)])
    for c, (lo, hi) in enumerate(bounds):
        d_in, d_out = buffers[c % len(streams)]
        launch(d_in, d_out, hi - lo, streams[c % len(streams)])
    for c, (lo, hi) in enumerate(bounds):
        d_in, d_out = buffers[c % len(streams)]
        drv.memcpy_dtoh_async(h_out[lo:hi], d_out, streams[c % len(streams)])
    for s in streams:
        s.synchronize()
""", ("on streams[0] the copies in of chunks 0, 3 and 6 were all queued before chunk 0's launch",
      "chunk 3's copy in overwrote d_in before chunk 0's kernel read it",
      "Hint: queue each chunk's copy in, launch and copy out in one loop")),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_copy_s_arguments_swapped_are_named(name, capsys):
    source, expected = WRONG[name]
    ok, out = run_check(define(source), capsys)
    assert not ok and out.startswith("NOT YET:"), out
    for piece in expected:
        assert piece in out, f"{name}: expected {piece!r} in:\n{out}"
