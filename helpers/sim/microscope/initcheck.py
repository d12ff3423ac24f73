"""Words for a read of memory that nothing wrote (settings.initcheck, CUDA_SIM_INITCHECK=1).

Neither a GPU's device memory nor its shared memory starts zeroed: a kernel that reads what
nothing wrote gets whatever was there, a different wrong answer from run to run, or the right
one by luck. The instrumented build checks every load of the learner's code (include/sim_init.h):

- global memory, against a shadow of the bytes written since each array was allocated
  (machine/written.py): what compute-sanitizer's initcheck reports on a GPU;
- shared memory, against a shadow of the bytes the threads of the block have written in this
  launch, cleared when each block starts. compute-sanitizer has no such check (its initcheck
  watches global memory only), so on a GPU this bug shows only as a wrong result. A read that
  another thread's write, with no barrier between, could have served is a race, left to the race
  check.

Local arrays (a thread's own stack) are not checked. The first such read is turned here into an
UninitialisedReadError that names the kernel, the thread and block, the source line, the array
and element (for shared memory, which of its elements the block had written), what to do, and
for global memory what compute-sanitizer would print.
"""

from __future__ import annotations

from ..machine import memory
from ..errors import UninitialisedReadError
from .instrumented import GLOBAL, RaceReport
from .racecheck import position


def error(result, kernel, places):
    """The UninitialisedReadError for a launch whose init report counts uninitialised reads:
    its facts, and a message that adds what to do."""
    init, site = result.init, result.sites[result.init.site - 1]
    facts = dict(kernel=kernel.name, line=site.where, size=init.size, count=init.count,
                 address=init.address, thread=position(init.thread, result.block),
                 block=position(init.block, result.grid))
    if init.space == GLOBAL:
        return _global(init, places, facts)
    return _shared(init, places, result.shared_written, facts)


def _global(init, places, facts):
    place = places.global_place(init.address)
    label, index = place[:2] if place is not None else (None, None)
    block = memory.find(init.address)
    allocation = (block.address, block.size) if block is not None else None
    offset = init.address - block.address if block is not None else None
    err = UninitialisedReadError("", space="global", array=label, element=index,
                                 allocation=allocation, offset=offset, **facts)
    what = f"{label}[{index}]" if place is not None else f"address 0x{init.address:x}"
    if allocation is not None:
        what += f" (byte {offset} of a {allocation[1]}-byte allocation)"
    err.args = (
        f"init check: kernel '{err.kernel}' reads {what}, which nothing has written since the "
        f"array was allocated: {err.who} reads it at {err.line}{err.more}. Memory from "
        "mem_alloc, gpuarray.empty or drv.Out is not zeroed on a GPU: it holds whatever was "
        "there before, so the result changes from run to run (the simulator's fresh memory "
        "is zero, which hides it). On a GPU, compute-sanitizer --tool initcheck reports: "
        f"Uninitialized __global__ memory read of size {init.size} bytes. Fill the array "
        "first (gpuarray.zeros, .fill(0), drv.memset_d32, a copy from the host), or let the "
        "kernel write each element before it reads it.",)
    return err


def _shared(init, places, written_bytes, facts):
    dynamic = init.space == RaceReport.DYNAMIC_SHARED
    name, start, nbytes = places.shared_array(init.address, dynamic)
    size = max(init.size, 1)
    length = nbytes // size if nbytes is not None else None
    count = length if length is not None else (len(written_bytes) - start) // size
    written = tuple(i for i in range(count)
                    if written_bytes[start + i * size:start + (i + 1) * size].all())
    err = UninitialisedReadError(
        "", space="shared", array=name, element=(init.address - start) // size, length=length,
        written=written, **facts)
    err.args = (
        f"init check: kernel '{err.kernel}' reads {name}[{err.element}] (shared memory), which "
        f"no thread of its block has written in this launch: {err.who} reads it at "
        f"{err.line}{err.more}; before that read (by the block's last __syncthreads()), its "
        f"threads had stored {err.written_words}. Shared memory is not "
        "zeroed when a block starts: on a GPU it holds whatever the block before left there, "
        "so the result is garbage that changes from run to run (the simulator fills it with "
        "NaN). compute-sanitizer has no check for this: its initcheck watches global memory "
        "only. Read only the elements that threads of the block stored (compare the index with "
        "how many were stored), or store a value in every element first (0.0f for a sum), with "
        "a __syncthreads() between the stores and the reads.",)
    return err
