"""The order in which ``helpers.exercises.split_sum`` saw a function's partial sums started and
read, and its shares freed: a partial sum read with another device's context current, one read
before another device's sum started, a share freed under its running sum (the free waits for
the sum, on a GPU and the simulator alike: ``gray_split_order``), each making the devices take
turns or read too early."""

from __future__ import annotations

from collections import namedtuple

from helpers.exercises.gray_split_order import freed_while_running, kept

TURNS_HINT = ("start every device's sum in a first loop, keeping each partial sum (and its share), "
              "then read them in a second loop, each with its device's context current")

Start = namedtuple("Start", "device")
"""A sum started on a device, as ``gray_split_order`` reads a launch."""


def note_start(k, share, held):
    """Device k's sum started on ``share``: noted in ``held`` (starts, freed), the share's
    freeing with it (``kept``, which holds no reference to it)."""
    starts, freed = held
    kept(k, (share,), starts, freed, None)
    starts.append(Start(k))


def freed_early(fn, held):
    """With the sum right: a device's share freed after its sum started and before another
    device's sum was (``held``: note_start's), so that the free waited for the sum."""
    starts, freed = held
    for j, start in enumerate(starts):
        for i in dict.fromkeys(s.device for s in starts[:j] if s.device != start.device):
            if told := freed_while_running(fn, starts, freed, j, i, "sum"):
                yield told
                return


def read_elsewhere(order):
    """A partial sum read while another device's context (or none) was current."""
    for event in order:
        if event[0] == "read elsewhere":
            k, current = event[1:]
            where = (f"device {current}'s context was current: that read waits only for device "
                     f"{current}'s work" if current is not None else "no context was current")
            yield (f"device {k}'s partial sum was read while {where}, so it may read the partial "
                   f"sum before device {k}'s sum has finished",
                   "read each partial sum with its own device's context current: "
                   "float(partial.get()) inside `with using(contexts[k]):`")
            return


def took_turns(order):
    """With the sum right: was a device's partial sum read before another device's was started?"""
    for i, (event, k) in enumerate(order):
        started = next((j for what, j in order[i:] if what == "start"), None)
        if event == "read" and started is not None:
            yield (f"the sum is right, but device {k}'s partial sum was read before device "
                   f"{started}'s sum was started: reading it waits for device {k}, so the "
                   "devices took turns instead of summing at the same time", TURNS_HINT)
            return
