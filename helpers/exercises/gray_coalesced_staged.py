"""A speed-up of ``gray_coalesced`` (``helpers.exercises.gray_coalesced``) that the race check
finds: the block's bytes of rgb staged in a shared array, then each pixel's three read back from
it, with no __syncthreads() between the stores and the reads (``staged_without_a_barrier``)."""

from __future__ import annotations

from helpers.exercises.microscope import barrier_lines, observe
from helpers.exercises.failure import line_number

READ_FIRST = "write-after-read"
"""The race check's hazard where the read came first: a thread read a shared element that another
thread of its block stored only later."""


def staged_without_a_barrier(kernels, launch, key):
    """(problem, hint) for the race that the race check finds in ``launch`` on the simulator
    (``observe``, under ``key``) between a store into a shared array and a read of it by two
    threads of one block, where the kernel's body has no __syncthreads() at all
    (``barrier_lines``): nothing makes the readers wait for the stores."""
    race = observe(kernels, launch, key=key).race
    if race is None or race.space != "shared" or race.first.block != race.second.block or \
            race.hazard not in (READ_FIRST, "read-after-write") or barrier_lines(kernels):
        return
    load, store = (race.first, race.second) if race.hazard == READ_FIRST else \
        (race.second, race.first)
    element, read, stored = f"{race.array}[{race.element}]", line_number(load.line), line_number(store.line)
    when = (f"before {store.who} stored it (line {stored})" if race.hazard == READ_FIRST else
            f"with nothing making it wait for {store.who}'s store (line {stored})")
    yield (f"{load.who} read {element} (line {read}) {when}: the block's bytes are staged in the "
           f"shared array {race.array}, but there is no __syncthreads() between the stores into "
           f"it and the reads, so a thread can read bytes that the other threads of its block "
           "have not loaded yet",
           f"put a __syncthreads() between filling {race.array} (line {stored}) and reading it "
           f"(line {read}), where every thread of the block that has not returned reaches it "
           "(right after the loop that fills it); or read the pixel's three bytes straight from "
           "rgb, as the stub does")
