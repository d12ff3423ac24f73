"""A local array written past its end, over the return address kept beside it on the thread's
stack: the return the CPU then refuses is a LaunchError of kind "return address overwritten"
(run/report.py reads the refused instruction), not an access of unknown address. (fill is not
inlined: inlined, GCC's object-size check would see the array and stop the first access past
it, test_frame_overwritten.)"""

import numpy as np
import pytest

from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule

KERNEL = r"""
__device__ __noinline__ void fill(int *a, int n) { for (int i = 0; i < n; i++) a[i] = 0x41414141 + i; }
__global__ void smash(int *out, int n) {
    int a[4];
    fill(a, n);
    out[threadIdx.x] = a[0] + a[3];
}
"""


@pytest.mark.parametrize("n", [8, 12])
def test_a_local_array_written_over_its_return_address(n):
    function = SourceModule(KERNEL).get_function("smash")
    with pytest.raises(drv.LaunchError) as info:
        function(drv.Out(np.zeros(32, np.int32)), np.int32(n), block=(32, 1, 1))
    assert info.value.kind == "return address overwritten" and info.value.line == "kernel.cu:7"
    assert "return address" in str(info.value)


def test_within_the_array_it_runs():
    out = np.zeros(32, np.int32)
    SourceModule(KERNEL).get_function("smash")(drv.Out(out), np.int32(4), block=(32, 1, 1))
    assert (out == np.int32(np.int64(2 * 0x41414141 + 3) - 2**32)).all()


def test_a_compiler_that_plants_stack_canaries_unasked_changes_nothing(monkeypatch):
    """Ubuntu's g++ (Colab's too) adds -fstack-protector-strong before the command line's flags;
    the build's own flags come later and win, so the overrun is named as on Debian's."""
    from helpers.sim.compile import builder
    monkeypatch.setattr(builder, "CXX_FLAGS", ["-fstack-protector-strong", *builder.CXX_FLAGS])
    function = SourceModule(KERNEL).get_function("smash")
    with pytest.raises(drv.LaunchError) as info:
        function(drv.Out(np.zeros(32, np.int32)), np.int32(8), block=(32, 1, 1))
    assert info.value.kind == "return address overwritten" and info.value.line == "kernel.cu:7"
