"""Words for a race the race check found (settings.racecheck, CUDA_SIM_RACECHECK=1).

The instrumented build remembers, for each shared and global location, which thread last wrote it
and read it and how many barriers it had passed (include/sim_race.h); a conflicting pair found
there is turned here into a message that names both threads, the array and element, both source
lines, what compute-sanitizer's racecheck would print on a GPU, and what to do, from every hazard
of the launch (__syncwarp() is advised only where all of them lie within one warp).

A plain read and another thread's atomic are a hazard, except where the read is the first guess
of a compare-and-swap loop (the CUDA Programming Guide's `old = *address; do { assumed = old; old
= atomicCAS(address, assumed, f(assumed)); } while (assumed != old);`): a line whose value read
some thread gave an atomicCAS of the same address as its compare. The atomicCAS checks the guess,
so no reads there race with atomics (include/sim_race.h); plain reads at other lines (a total
other blocks are still adding to) and plain writes still do.
"""

from __future__ import annotations

from ..errors import Access, RaceError
from .instrumented import RaceReport

GLOBAL = RaceReport.GLOBAL

_HAZARD = {(True, False): "read-after-write", (False, True): "write-after-read",
           (True, True): "write-after-write"}


def position(linear, dims):
    """(x, y, z) of a linear thread or block index in a block or grid of ``dims``."""
    x, y, _ = dims
    return (linear % x, linear // x % y, linear // (x * y))


def _did(rec):
    return "updates it atomically" if rec.atomic else "writes it" if rec.wrote else "reads it"


def _advice(first, second, space, same_line, within_warps, fenced):
    if first.atomic != second.atomic:
        return ("An atomic is safe only against other atomics: a plain write or read of the same "
                "location by another thread, with no barrier between the two, is still a race. "
                "Put a __syncthreads() between the plain accesses (clearing, reading the total) "
                "and the atomics.")
    if same_line and first.wrote != second.wrote:
        return ("A read-modify-write such as x++ or x += v by several threads loses updates: "
                "use atomicAdd (or give each thread its own element).")
    if fenced:
        return ("A fence (__threadfence(), __threadfence_block()) is not a barrier: it orders the "
                "calling thread's own reads and writes, and no other thread waits at it. Put a "
                "__syncthreads() there instead, where every thread of the block reaches it.")
    if first.block != second.block:
        return ("Blocks cannot wait for each other during a launch: use an atomic (atomicAdd) "
                "for a location several blocks update, or let each block write its own element "
                "and combine them in a second launch.")
    advice = ("Put a __syncthreads() between the write and the other thread's access, where "
              "every thread of the block reaches it, or use an atomic.")
    if within_warps and space != GLOBAL:
        advice += (" Every hazard of this launch lies between lanes of one warp, which do not run "
                   "in lockstep (since Volta): between lanes of one warp, __syncwarp() is enough.")
    return advice


def error(result, kernel, places):
    """The RaceError for a launch whose race report counts hazards: its facts, and a message
    that adds what compute-sanitizer would print on a GPU and what to do."""
    race, sites = result.race, result.sites
    first, second = race.first, race.second
    site_a, site_b = sites[first.site - 1], sites[second.site - 1]
    hazard = _HAZARD[(first.wrote, second.wrote)]
    size = site_b.size or site_a.size or 4
    length = None
    if race.space == GLOBAL:
        place = places.global_place(race.address)
        array, element = place[:2] if place else (None, None)
    else:
        dynamic = race.space == RaceReport.DYNAMIC_SHARED
        array, element, _ = places.shared_place(race.address, dynamic=dynamic, size=size)
        nbytes = places.shared_array(race.address, dynamic)[2]
        length = nbytes // size if nbytes else None
    err = RaceError(
        "", kernel=kernel.name, array=array, element=element, address=race.address, length=length,
        space="global" if race.space == GLOBAL else "shared", hazard=hazard, count=race.count,
        within_warps=race.across_warps == 0, fenced=first.fences != second.fences,
        block=position(second.block, result.grid), thread=position(second.thread, result.block),
        first=_access(first, site_a, result), second=_access(second, site_b, result))
    on_gpu = (f"On a GPU, compute-sanitizer --tool racecheck reports: "
              f"{sanitizer_line(race, site_a, site_b, kernel.name)}. "
              if race.space != GLOBAL else
              "On a GPU, compute-sanitizer's racecheck does not see it: it watches shared memory "
              "only, so there the race shows only as a wrong result, now and then. ")
    err.args = (f"race check: {err.summary}. The result depends on which thread runs first. "
                f"{on_gpu}" + _advice(first, second, race.space, err.same_line, err.within_warps,
                                 err.fenced),)
    return err


def sanitizer_line(race, site_a, site_b, kernel):
    """What racecheck prints for the first hazard's pair of lines (site_a: the first access's
    site, site_b: the second's): the two in the order a GPU, whose warps go about in step, runs
    them, and its count, in bytes, of the hazards between those two lines (include/sim_race.h)."""
    pairs = [(race.first, site_a), (race.second, site_b)]
    if race.in_step_reversed:
        pairs.reverse()
    (a, where_a), (b, where_b) = pairs
    word, n = {True: "Write", False: "Read"}, race.pair_bytes
    return (f"Race reported between {word[a.wrote]} access at {where_a.where}:{kernel} and "
            f"{word[b.wrote]} access at {where_b.where}:{kernel} [{n} hazard{'s' * (n != 1)}]")


def _access(rec, site, result):
    return Access(thread=position(rec.thread, result.block),
                  block=position(rec.block, result.grid), line=site.where, does=_did(rec),
                  atomic=bool(rec.atomic))
