"""The histogram_rgb checker's readings of the block's bins not all cleared before counting
(``helpers.exercises.histogram_rgb``): the simulator's init check (a count into a shared bin that
no thread of its block had set to 0) and the trace of the clearing stores."""

from __future__ import annotations

import dataclasses

from helpers.exercises.histogram_rgb_counts import BINS
from helpers.exercises.microscope import accesses_of, observe


def cleared_by_block_0(run, case):
    """Counts too high, and the init check finds a block after block 0 counting into a shared
    bin while none of its bins had been set to 0, where block 0 launched alone reads none
    uncleared: only block 0 cleared its bins, as if shared memory were one array for the grid."""
    err = uncleared(run, case) if case["grid"] > 1 else None
    if err is None or err.block[0] == 0 or err.written:
        return
    from helpers.sim.settings import settings

    alone = dataclasses.replace(run.launch, grid=(1, 1))
    with settings.changed(initcheck=True):
        if observe(run.kernel, alone, key=f"initcheck block 0 alone {case}").error is not None:
            return
    yield (f"only block 0 set its shared bins to 0: block {err.block[0]} counted into "
           f"{err.array}[{err.element}] with none of its {err.length or BINS} bins cleared (the simulator's "
           "init check), while block 0, launched alone, cleared all of them. Each block has "
           "its own shared memory, so block 0's clearing leaves every other block's bins "
           "holding whatever they held", "every block clears its own 768 bins, whatever its "
           "blockIdx.x: run the clearing loop in every block, with no condition on the block")


def uncleared(run, case):
    """The simulator's init check on ``run``'s launch: its read of a shared bin that no thread
    of the block had written (None when it found none)."""
    from helpers.sim.settings import settings

    with settings.changed(initcheck=True):
        error = observe(run.kernel, run.launch, key=f"initcheck {case}").error
    if getattr(error, "kind", None) == "uninitialised read" and error.space == "shared":
        return error
    return None


def cleared_at_the_thread(run, case):
    """Counts too high, the init check finding that the block had set bins 0 to blockDim.x - 1
    alone to 0, and the trace of block 0 launched alone: thread 0's first shared store line
    stored local[0] on every pass: a clearing loop whose passes all clear local[threadIdx.x],
    not the loop's bin."""
    err, block = uncleared(run, case), case["block"]
    if err is None or block >= BINS or tuple(err.written or ()) != tuple(range(block)):
        return
    alone = dataclasses.replace(run.launch, grid=(1, 1))
    kept = accesses_of(run.kernel, alone, f"clearing block 0 alone {case}", 4 * BINS)
    stores = None if kept is None else \
        kept[kept["shared"] & kept["write"] & (kept["block"] == 0) & (kept["thread"] == 0)]
    if stores is None or not len(stores):
        return
    stores = stores[stores["line"] == stores["line"][0]]
    if len(stores) < 2 or (stores["index"] != 0).any():
        return
    yield (f"the clearing loop runs b over the {BINS} bins, but each pass set local[threadIdx.x] "
           f"= 0, the same bin (on the simulator, thread 0 of block 0 cleared local[0] "
           f"{len(stores)} times): only bins 0 to {block - 1} were set to 0 (with block = "
           f"({block}, 1, 1)), and bins {block} to {BINS - 1} counted on from whatever they held",
           f"clear the loop's bin, local[b] = 0: for (int b = threadIdx.x; b < {BINS}; "
           "b += blockDim.x) local[b] = 0;")
