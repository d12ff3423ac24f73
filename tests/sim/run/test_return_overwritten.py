"""A local array written past its end, toward the return address kept above it on the thread's
stack. The learner's code is built with stack guards (compile/builder.py: -fstack-protector-
strong), so the write is caught at the function's end as a LaunchError of kind "local array
overrun" whichever compiler built it: without the guard, g++ 12 put smash's return address in
the way (the CPU then refused the return) and g++ 13 did not (the kernel ran on). (fill is not
inlined: inlined, GCC's object-size check would see the array and stop the first access past
it, test_frame_overwritten.) A return address written over all the same, past the guard, is
named from the refused instruction (run/report.py: returns)."""

import ctypes
from types import SimpleNamespace

import numpy as np
import pytest

from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule
from helpers.sim.run import report

KERNEL = r"""
__device__ __noinline__ void fill(int *a, int n) { for (int i = 0; i < n; i++) a[i] = 0x41414141 + i; }
__global__ void smash(int *out, int n) {
    int a[4];
    fill(a, n);
    out[threadIdx.x] = a[0] + a[3];
}
"""


def overrun(n):
    function = SourceModule(KERNEL).get_function("smash")
    with pytest.raises(drv.LaunchError) as info:
        function(drv.Out(np.zeros(32, np.int32)), np.int32(n), block=(32, 1, 1))
    return info.value


@pytest.mark.parametrize("n", [8, 12])
def test_a_local_array_written_past_its_end_is_caught_at_the_functions_end(n):
    err = overrun(n)
    assert (err.kind, err.line, err.space, err.is_write) == ("local array overrun", "kernel.cu:7",
                                                             "local", True)
    assert err.thread == (0, 0, 0) and "guard word" in str(err)


def test_a_compiler_whose_default_has_no_guards_changes_nothing(monkeypatch):
    """Debian's g++ plants no guards unasked, Ubuntu's does: the build asks for them itself, after
    whatever the distribution's default puts first."""
    from helpers.sim.compile import builder
    monkeypatch.setattr(builder, "CXX_FLAGS", ["-fno-stack-protector", *builder.CXX_FLAGS])
    assert overrun(8).kind == "local array overrun"


def test_within_the_array_it_runs():
    out = np.zeros(32, np.int32)
    SourceModule(KERNEL).get_function("smash")(drv.Out(out), np.int32(4), block=(32, 1, 1))
    assert (out == np.int32(np.int64(2 * 0x41414141 + 3) - 2**32)).all()


@pytest.mark.parametrize("code, is_return", [(b"\xc3\x90", True), (b"\xf3\xc3", True),
                                             (b"\xc2\x08", True), (b"\x90\xc3", False)])
def test_a_refused_return_is_told_from_the_instruction(code, is_return):
    buffer = ctypes.create_string_buffer(code)
    err = SimpleNamespace(decoded=0, address=0, alignment=0, pc=ctypes.addressof(buffer))
    got = report.refused_error("text", err, None, {"kernel": "k", "kind": "failed", "line": "x.cu:3"})
    assert (got.kind == "return address overwritten") == is_return
