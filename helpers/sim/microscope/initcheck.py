"""Words for a read of device memory that nothing wrote (settings.initcheck, CUDA_SIM_INITCHECK=1).

The instrumented build checks every global load of the learner's code against a shadow of the
bytes written since each array was allocated (include/sim_init.h, written.py). The first read of
a byte never written is turned here into a message that names the kernel, the thread, the source
line, the array and element, what compute-sanitizer's initcheck would print on a GPU, and what to
do.
"""

from __future__ import annotations

from ..machine import memory
from ..errors import LaunchError, xyz
from .racecheck import position


def error(result, kernel, places):
    """The LaunchError (kind "uninitialised read") for a launch whose init report counts
    uninitialised reads: its facts, what compute-sanitizer would print, and what to do."""
    init, site = result.init, result.sites[result.init.site - 1]
    place = places.global_place(init.address)
    block = memory.find(init.address)
    label, index = place[:2] if place is not None else (None, None)
    what = f"{label}[{index}]" if place is not None else f"address 0x{init.address:x}"
    if block is not None:
        what += f" (byte {init.address - block.address} of a {block.size}-byte allocation)"
    thread, block_index = position(init.thread, result.block), position(init.block, result.grid)
    who = f"thread {xyz(thread)} of block {xyz(block_index)}"
    others = init.count - 1
    more = f" ({others} more such read{'s' * (others != 1)} in this launch)" if others else ""
    return LaunchError(
        f"init check: kernel '{kernel.name}' reads {what}, which nothing has written since "
        f"the array was allocated: {who} reads it at {site.where}{more}. Memory from "
        "mem_alloc, gpuarray.empty or drv.Out is not zeroed on a GPU: it holds whatever was "
        "there before, so the result changes from run to run (the simulator's fresh memory "
        "is zero, which hides it). On a GPU, compute-sanitizer --tool initcheck reports: "
        f"Uninitialized __global__ memory read of size {init.size} bytes. Fill the array "
        "first (gpuarray.zeros, .fill(0), drv.memset_d32, a copy from the host), or let the "
        "kernel write each element before it reads it.",
        kind="uninitialised read", kernel=kernel.name, array=label, element=index,
        address=init.address, line=site.where, block=block_index, thread=thread)
