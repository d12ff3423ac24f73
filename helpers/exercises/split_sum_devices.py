"""A split sum's shares on more devices than the check's cases run on (``on_more_devices``): on
the simulator, which presents as many devices as it is told, a function that summed right on 2
devices runs once more on THREE, with x = 0, 1, 2, ... (each element its own index), so that the
elements each device was given name themselves. Shares that overlap or leave elements out there
are named: bounds such as lo = k * (len(x) // n), hi = (k + 1) * len(x) // n agree with the
notebook's on 2 devices and part from 3 on."""

from __future__ import annotations

import numpy as np

from helpers.exercises.function import context_stack

THREE = 3


def on_more_devices(fn, n, devices):
    """With the sum right on ``devices`` devices for n elements: the shares fn gives THREE
    devices (on the simulator alone, and where the cases ran on fewer) overlapping or leaving
    elements out."""
    from helpers.backend import BACKEND

    if BACKEND != "simulator" or devices >= THREE or n < THREE:
        return
    seen = _shares(fn, n)
    if not seen:
        return
    counts = np.bincount(np.concatenate([a for _, a in seen]).astype(np.int64), minlength=n)
    twice, none = np.flatnonzero(counts > 1), np.flatnonzero(counts == 0)
    if not twice.size and not none.size:
        return
    rounded = [np.arange(k * (n // THREE), (k + 1) * n // THREE) for k in range(THREE)]
    as_rounded = len(seen) == THREE and all(np.array_equal(a, r) for (_, a), r in
                                            zip(seen, rounded))
    e = int(twice[0] if twice.size else none[0])
    by = [k for k, a in seen if e in a]
    what = (f"x[{e}] was summed twice, by devices {by[0]} and {by[1]}" if twice.size else
            f"x[{e}] was in no share")
    shares = ", ".join(f"device {k}'s x[{int(a.min())}:{int(a.max()) + 1}]" for k, a in seen
                       if a.size and a.size == a.max() - a.min() + 1)
    right = ", ".join(f"x[{k * n // THREE}:{(k + 1) * n // THREE}]" for k in range(THREE))
    cause = ("lo = k * (len(x) // n) rounds len(x) / n down before multiplying by k, where hi = "
             "(k + 1) * len(x) // n multiplies first: on 2 devices the two agree, from 3 on device "
             "k's share starts before device k - 1's ends" if as_rounded else
             "each share must start where the one before it ends")
    given = f"the shares were {shares}, where they are {right}" if shares else \
        f"the shares are {right}"
    yield (f"the sum is right on {devices} devices, but on {THREE} {what} (the check ran your "
           f"function once more, on {THREE} of the "
           f"simulator's devices: {given}): {cause}",
           "lo = k * len(x) // n, the same formula as hi = (k + 1) * len(x) // n (multiply, "
           "then divide): device k's share then ends where device k + 1's begins, on any number "
           "of devices")


def _shares(fn, n):
    """[(k, the elements device k was given)] of fn run on THREE of the simulator's devices with
    x = 0, 1, ..., n - 1; None where it raised."""
    from helpers.backend import gpuarray
    from helpers.ch11.multigpu import device_contexts
    from helpers.sim.settings import settings

    seen = []

    def device(k):
        def summed(a):
            seen.append((k, a.get()))
            return gpuarray.sum(a)
        return summed

    before = context_stack()
    try:
        with settings.changed(devices=THREE):
            fn(np.arange(n, dtype=np.float32), device_contexts(), [device(k) for k in
                                                                   range(THREE)])
    except Exception:
        return None
    finally:
        context_stack(restore=before)
    return seen
