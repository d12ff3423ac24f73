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
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_copy_s_arguments_swapped_are_named(name, capsys):
    source, expected = WRONG[name]
    ok, out = run_check(define(source), capsys)
    assert not ok and out.startswith("NOT YET:"), out
    for piece in expected:
        assert piece in out, f"{name}: expected {piece!r} in:\n{out}"
