"""A local array written far past its end, through a pointer, in a function the compiler does not
inline (so neither GCC's bounds check, which sees only indices into the array itself, nor its
object-size check, which needs to see the array, can catch it): the overrun runs up the thread's
stack over its Frame, where the simulator keeps threadIdx, blockIdx and the worker. The launch is a
LaunchError of kind "local array overrun" that names no thread (the Frame no longer says which),
never the junk the Frame then holds, nor a fault of the runtime reading a junk pointer from it
(blind audit O12: 'thread (4294947041, 1230924490, 4289650682): a read of address
0x8eb6feb56c5fee8e, which cannot exist ...'). An overrun that starts above the Frame runs on past
the top of the thread's stack into the untouchable part of the slot above: a local array overrun
too, whose thread is known."""

import numpy as np
import pytest

from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule

BODY = r"""
__device__ __noinline__ void put(unsigned *w, int k, unsigned v) { w[k] |= v; }
__global__ void smash(unsigned *out, int n) {
    unsigned a[4] = {0u, 0u, 0u, 0u};
    for (int i = 0; i < n; i++) put(a, i + 4 * (int)threadIdx.x, 0x80808080u);
    SYNC
    out[threadIdx.x] = a[0];
}
"""
KERNELS = {"loop": BODY.replace("SYNC", ""),  # the block's threads in a loop, one stack
           "fibers": BODY.replace("SYNC", "__syncthreads();")}  # a stack a thread


def grow_the_stacks():
    """A block of 1024 fibers first, as an earlier test may have run: the stacks are kept for
    every launch after it, so a thread's junk index (threadIdx read from its overwritten Frame)
    may land in another thread's stack and fault nowhere (what made CI fail at 4c92b69)."""
    grow = SourceModule("__global__ void grow(int *o) { o[threadIdx.x] = __syncthreads_count(1); }")
    grow.get_function("grow")(drv.Out(np.zeros(1024, np.int32)), block=(1024, 1, 1))


@pytest.mark.parametrize("grown", [False, True], ids=["", "after_a_large_block"])
@pytest.mark.parametrize("runner", sorted(KERNELS))
@pytest.mark.parametrize("n", [300, 200000])
def test_an_overrun_over_the_threads_record_names_no_junk(runner, n, grown):
    if grown:
        grow_the_stacks()
    function = SourceModule(KERNELS[runner]).get_function("smash")
    with pytest.raises(drv.LaunchError) as info:
        function(drv.Out(np.zeros(64, np.uint32)), np.int32(n), block=(64, 1, 1))
    err = info.value
    assert (err.kind, err.block) == ("local array overrun", (0, 0, 0)), str(err)
    if err.thread is None:  # the failing thread wrote over its own record
        assert "which one is not known: its record was written over" in str(err)
    else:  # a thread whose overrun started above its record, and ran past its stack's top
        assert err.thread[0] < 64 and err.thread[1:] == (0, 0), str(err)
        assert "ran up the thread's stack and past its top" in str(err)


@pytest.mark.parametrize("runner", sorted(KERNELS))
def test_an_overrun_past_the_top_of_the_stack_names_its_thread(runner):
    """Thread 5 writes from 4 KiB past its array, above its record, on past the top of its
    stack: a local array overrun of thread 5, whatever the stacks' placement."""
    source = KERNELS[runner].replace("i + 4 * (int)threadIdx.x", "1024 + i").replace(
        "for (int i", "if (threadIdx.x == 5) for (int i")
    function = SourceModule(source).get_function("smash")
    with pytest.raises(drv.LaunchError) as info:
        function(drv.Out(np.zeros(64, np.uint32)), np.int32(4000), block=(64, 1, 1))
    err = info.value
    assert (err.kind, err.thread, err.line, err.is_write, err.space) == (
        "local array overrun", (5, 0, 0), "kernel.cu:2", True, "local"), str(err)
    assert str(err).endswith(
        "thread (5, 0, 0) at kernel.cu:2: a write past the end of a local array (an array "
        "declared in the kernel or in a __device__ function, reached through an index or a "
        "pointer too large) ran up the thread's stack and past its top (on a GPU, "
        "compute-sanitizer reports such an access as an invalid __local__ access). Check every "
        "index into the thread's local arrays against their lengths")


def test_within_the_array_it_runs():
    out = np.ones(64, np.uint32)
    SourceModule(KERNELS["loop"]).get_function("smash")(drv.Out(out), np.int32(0),
                                                         block=(64, 1, 1))
    assert (out == 0).all()


@pytest.mark.parametrize("runner", sorted(KERNELS))
def test_an_overrun_through_a_pointer_the_compiler_follows_is_caught_before_it_happens(runner):
    """The same put() inlined: GCC's object-size check sees the array, and the first write past
    its end (thread 1's a[4]) stops the launch, before it happens, with its thread and line."""
    source = KERNELS[runner].replace("__device__ __noinline__", "__device__")
    function = SourceModule(source).get_function("smash")
    with pytest.raises(drv.LaunchError) as info:
        function(drv.Out(np.zeros(64, np.uint32)), np.int32(4), block=(64, 1, 1))
    err = info.value
    assert (err.kind, err.thread, err.block, err.line) == ("local array overrun", (1, 0, 0),
                                                           (0, 0, 0), "kernel.cu:2"), str(err)
    assert (err.is_write, err.space) == (True, "local")
    assert "a write of unsigned int through a pointer, past the end of the local array" in str(err)
