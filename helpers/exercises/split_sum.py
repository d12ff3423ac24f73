"""Checker for notebook 11's split reduction (``cuda_src/exercises/split_sum.py``, a file: the
notebook's stored run takes no new cells). ``my_split_sum(x, contexts, sums)`` returns the sum of
the float32 array x, device k summing its share with ``sums[k]`` (``gpuarray.sum`` run there).
The elements are small whole numbers, so every order of addition gives the same sum, exactly.
The ``sums[k]`` the checker hands over note each call and refuse one made while another device's
context is current, on a host array, or on an empty share (a GPU would fail, or end the
context); the partial sums they return note when they are read, so that a function that waits for
one device's sum before it starts the next (the devices taking turns) is told. Lengths not a
multiple of the devices, and one shorter than their number.
"""

from __future__ import annotations

import numpy as np

from helpers.ch11.multigpu import two_devices_on_the_simulator
from helpers.exercises import split_sum_models
from helpers.exercises.function import (Refused, check_function, context_mistakes,
                                        context_stack, current_device, from_file,
                                        run_catching, stopped_at_empty)
from helpers.exercises.hidden import cases, success
from helpers.exercises.split_sum_devices import on_more_devices
from helpers.exercises.split_sum_order import freed_early, note_start, read_elsewhere, took_turns
from helpers.exercises.verdict import Verdict, check_cases

FUNCTION = "my_split_sum"
CASES = [1001, 7, 1]   # elements of x
SHARE_HINT = ("device k's share is x[lo:hi], lo = k * len(x) // n, hi = (k + 1) * len(x) // n: "
              "consecutive, none left out, differing by one element at most")
USING_HINT = "call sums[k] inside `with using(contexts[k]):`, on a gpuarray made there"


def draw(rng):   # the grader's cases: an odd length, long and short
    return [2 * int(rng.integers(100, 5000)) + 1, 2 * int(rng.integers(1, 6)) + 1]


def check_split_sum(path: str = "exercises/split_sum.py", hidden: int | None = None):
    """Check the function in ``cuda_src/<path>``; print and return the Verdict."""
    return check_split_sum_function(from_file(path, FUNCTION), hidden)


def check_split_sum_function(fn, hidden: int | None = None) -> Verdict:
    """The checks of ``check_split_sum`` on a function (one defined in a cell, say)."""
    return check_function(fn, FUNCTION, lambda f: _verdict(f, cases(CASES, draw, hidden)))


@two_devices_on_the_simulator()
def _verdict(fn, every) -> Verdict:
    from helpers.ch11.multigpu import device_contexts

    contexts = device_contexts()
    lengths = ", ".join(str(n) for n in CASES)
    right = (f"the sum is exact for every length ({lengths} elements)"
             + (f", and each of the {len(contexts)} devices summed its share" if len(contexts) > 1
                else "; one device here, so nothing was split: run the check on the simulator, "
                "which presents two devices, to see the split"))
    return check_cases(every, lambda n: _mistakes(fn, contexts, n),
                       lambda n: f"len(x) = {n}, {len(contexts)} devices",
                       success(right, CASES, every))


def _another_devices_share(k, size, calls, n):
    """sums[k] given device j's share with j's context current (sums[0] for sums[k]), or None."""
    j, devices = current_device(), len(calls)
    lo, hi = (None, None) if j is None else (j * n // devices, (j + 1) * n // devices)
    if j is None or j == k or size != hi - lo:
        return None
    given = f"device {j}'s share, x[{lo}:{hi}], was given to sums[{k}] with device {j}'s context current"
    return (f"every device's share was summed by sums[0], device 0's function: {given}"
            if k == 0 and calls[0] == n // devices else f"{given}: sums[{k}] is device {k}'s "
            "function", "each device's share goes to its own device's function: sums[k](share)")


def device_sum(k, calls, order, n, held=None):
    """``sums[k]``: gpuarray.sum on device k, noting the length of each share in ``calls``, and in
    ``order`` ("start", k) for the call and ("read", k) when its partial sum's get() runs (as
    float() and print() of it do), and in ``held`` the share's freeing (``note_start``); ``n``:
    x's length."""
    def summed(a):
        from helpers.backend import drv, gpuarray

        if not isinstance(a, gpuarray.GPUArray):
            raise Refused((f"sums[{k}] was given a {type(a).__name__}, not a gpuarray",
                           "copy the share to device k first: gpuarray.to_gpu(x[lo:hi])"))
        if drv.Context.get_device() != drv.Device(k):
            raise Refused(_another_devices_share(k, a.size, calls, n) or
                          (f"sums[{k}] was called while device {k}'s context was not current",
                           USING_HINT))
        if a.size == 0:
            raise Refused((f"sums[{k}] was given an empty share", "when x has fewer elements "
                           "than there are devices, skip a device with nothing to do"))
        calls[k] += a.size
        order.append(("start", k))
        if held is not None:
            note_start(k, a, held)
        partial = gpuarray.sum(a)
        get = partial.get

        def read(*args, **kwargs):
            order.append(("read", k))
            if current_device() != k:
                order.append(("read elsewhere", k, current_device()))
            return get(*args, **kwargs)

        partial.get = read
        return partial
    return summed


class Sliced(np.ndarray):
    """x as the learner's function gets it: a slice with float bounds (numpy's TypeError) is
    refused with the bounds it was given; a slice's result is a plain array."""

    def __getitem__(self, key):
        bounds = (key.start, key.stop, key.step) if isinstance(key, slice) else ()
        if any(isinstance(b, (float, np.floating)) for b in bounds):
            shown = ":".join("" if b is None else repr(float(b) if isinstance(b, np.floating)
                                                       else b) for b in bounds[:2])
            raise Refused((f"x was sliced with float bounds, x[{shown}]: a slice's bounds are "
                           "whole numbers, and / divides to a float, even where it comes out "
                           "whole", "use // (integer division): lo = k * len(x) // n, hi = (k + 1) * len(x) // n"))
        got = super().__getitem__(key)
        return got.view(np.ndarray) if isinstance(got, np.ndarray) else got


def _mistakes(fn, contexts, n):
    """Run fn once; yield (problem, hint) for each mistake seen, the most telling first."""
    from helpers.backend import drv

    x = np.random.default_rng(n).integers(-50, 51, n).astype(np.float32)
    calls, order, caught = [0] * len(contexts), [], []
    held = ([], [])
    sums = [device_sum(k, calls, order, n, held) for k in range(len(calls))]

    def call():
        try:
            return fn(x.copy().view(Sliced), list(contexts), list(sums))
        except Exception as err:
            caught.append(err)
            raise

    before = context_stack()
    raised, result = run_catching(call, "replace the TODOs with your code",
                                  [(drv.Error, "a copy or a sum failed: " + USING_HINT)])
    after = context_stack(restore=before)
    if raised:
        err = caught[-1] if caught else None
        yield from _added_as_gpuarrays(order, err)
        yield from split_sum_models.uploaded_outside(fn, err, order)
        yield from split_sum_models.sum_not_called(fn, err, sums, order)
        yield from split_sum_models.unpacked_out_of_order(fn, err)
        yield from split_sum_models.devices_from_len_x(fn, err, x, contexts)
        yield from split_sum_models.devices_from_1(fn, err, contexts)
        yield from split_sum_models.indexed_by_device(fn, err, calls)
        yield raised
        return
    yield from context_mistakes(before, after)
    if not isinstance(result, (int, float, np.number)):
        yield f"your function returned {type(result).__name__}, not a number", "return the sum"
        return
    yield from _collected_in_the_launch_loop(float(result), x, calls, order)
    yield from split_sum_models.returned_in_the_collecting_loop(fn, float(result), x, calls, order)
    yield from split_sum_models.list_replaced(fn, float(result), x, calls, order)
    yield from split_sum_models.divided_by_the_devices(fn, float(result), x, calls, order)
    yield from split_sum_models.whole_x_uploaded(fn, float(result), x, calls)
    yield from _wrong_sum(float(result), x, calls, lambda m: _shares_on(fn, contexts, m), fn)
    yield from split_sum_models.k_left_over(fn, order)
    yield from read_elsewhere(order)
    yield from took_turns(order)
    yield from freed_early(fn, held)
    yield from on_more_devices(fn, n, len(contexts))


ADD_HINT = ("read each partial sum back as a number before adding it: total += "
            "float(partial.get()), inside `with using(contexts[k]):`")


def _added_as_gpuarrays(order, error):
    """The partial sums added on the device, none read back (no get()): the function raised
    ``error`` inside a GPUArray's arithmetic (total += partial, total a gpuarray by then)."""
    from helpers.backend import gpuarray

    started = [k for what, k, *_ in order if what == "start"]
    if not started or any(what == "read" for what, *_ in order):
        return
    tb = error.__traceback__ if error is not None else None
    while tb is not None and not isinstance(tb.tb_frame.f_locals.get("self"), gpuarray.GPUArray):
        tb = tb.tb_next
    if tb is not None and tb.tb_frame.f_code.co_name.strip("_") in ("add", "radd", "iadd", "get"):
        yield (f"the partial sums were added as gpuarrays, none read back with .get(): your "
               f"function raised {type(error).__name__} in GPUArray."
               f"{tb.tb_frame.f_code.co_name}. total += partial made total a GPUArray on "
               f"device {started[0]}, the first partial sum's, and adding another device's "
               "partial sum to it runs a kernel on that device, which reads device "
               f"{started[0]}'s memory there", ADD_HINT)


def _shares_on(fn, contexts, m):
    """The share lengths fn gives sums[k] for an x of m elements (None where it raises)."""
    calls, before = [0] * len(contexts), context_stack()
    try:
        fn(np.ones(m, np.float32).view(Sliced), list(contexts),
           [device_sum(k, calls, [], m) for k in range(len(calls))])
    except Exception:
        return None
    finally:
        context_stack(restore=before)
    return calls


def _wrong_sum(got, x, calls, probe, fn):
    """The mistakes the sum and the shares show (none when right); ``probe(m)``: the share
    lengths the function gives for m elements; ``fn``: the function, its skip test read."""
    n, devices = x.size, len(calls)
    want = float(x.sum(dtype=np.float64))
    bounds = [k * n // devices for k in range(devices + 1)]
    if got != want:
        yield from stopped_at_empty([hi - lo for lo, hi in zip(bounds, bounds[1:])], calls,
                                    "element", "summed", fn)
        yield from _last_device_left_out(got, x, calls, bounds)
        if got == float(x[:bounds[1]].sum(dtype=np.float64)):
            yield "the sum is device 0's share alone", "add every device's partial sum to total"
        if got == float(x[bounds[-2]:].sum(dtype=np.float64)):
            yield ("the sum is the last device's share alone: each partial sum replaced the one "
                   "before (total = ...)", "add every device's partial sum to total: total += ...")
        yield from _hi_without_parentheses(got, x, calls)
        yield from _one_short(got, x, calls, at_end=True)
        yield from _one_short(got, x, calls, at_end=False)
        yield from _sliced_one_past(got, x, calls)
        if calls == [x.size // len(calls)] * len(calls):
            yield from split_sum_models.share_size_rounded(x.size, calls, probe)
        yield from _shares_of_len_over_n(got, x, calls)
        if sum(calls) < n:
            yield (f"{n - sum(calls)} of the {n} elements were in no share", SHARE_HINT)
        if sum(calls) > n:
            yield (f"the shares hold {sum(calls)} elements for {n}: some were summed twice",
                   SHARE_HINT)
        yield f"the sum is {got:g}, expected {want:g}", "add each device's partial sum once"
    idle = [k for k in range(devices) if not calls[k]]
    if idle and n >= devices:
        yield f"the sum is right, but device {idle[0]} summed nothing", SHARE_HINT
    if max(calls) - min(calls) > 1:
        yield f"the sum is right, but the shares are uneven: {calls} elements", SHARE_HINT


def _collected_in_the_launch_loop(got, x, calls, order):
    """The second loop (for k, share, partial in started: ... total += ...) indented into the
    first: after each device's sum starts, every partial sum started so far is read and added
    again, the i-th of m started added m - i times; the shares right, the sum that model's."""
    devices, n = len(calls), x.size
    bounds = [k * n // devices for k in range(devices + 1)]
    if calls != [hi - lo for lo, hi in zip(bounds, bounds[1:])]:
        return
    started = [k for what, k, *_ in order if what == "start"]
    nested = [e for i, k in enumerate(started) for e in [("start", k)]
              + [("read", j) for j in started[:i + 1]]]
    times = {k: len(started) - i for i, k in enumerate(started)}
    model = sum(times[k] * float(x[bounds[k]:bounds[k + 1]].sum(dtype=np.float64))
                for k in started)
    if len(started) < 2 or [e for e in order if e[0] != "read elsewhere"] != nested or \
            got != model or got == float(x.sum(dtype=np.float64)):
        return
    added = ", ".join(f"device {k}'s {'once' if t == 1 else f'{t} times'}"
                      for k, t in list(times.items())[1:])
    yield (f"device {started[0]}'s partial sum was added {times[started[0]]} times, {added}: the "
           "loop that collects them, for k, share, partial in started:, runs inside the loop "
           "that starts them, so after each device's sum starts, every partial sum started so "
           f"far is added again (the sum is {got:g}, expected {x.sum(dtype=np.float64):g})",
           "collect after the launch loop: un-indent the second loop, for k, share, partial in "
           "started:, to the level of the first, so that it runs once, after every device's "
           "sum has started, and adds each partial sum once")


def _last_device_left_out(got, x, calls, bounds):
    """The last device's share, not empty, never summed (sums[n - 1] never called), every other
    device's summed in full, and the sum theirs: the first loop stopped one short of the last
    device, as for k in range(n - 1) does. (With one device that looks the same as no loop at
    all, the stub's: nothing then.)"""
    shares, last = [hi - lo for lo, hi in zip(bounds, bounds[1:])], len(calls) - 1
    if not last or calls[last] or not shares[last] or calls[:last] != shares[:last] or \
            got != float(x[:bounds[last]].sum(dtype=np.float64)):
        return
    lo, hi = bounds[last], bounds[last + 1]
    yield (f"device {last}'s share, x[{lo}:{hi}] ({hi - lo} elements), was never summed: "
           f"sums[{last}] was never called, and the sum is the other devices' shares alone: the "
           "loop over the devices stopped one short of the last, as for k in range(n - 1) does",
           "loop over every device, the last too: for k in range(n), n = len(contexts)")


def _hi_without_parentheses(got, x, calls):
    """The shares x[lo:hi] with hi = k + 1 * len(x) // n, k + 1 not in parentheses (* and //
    bind tighter than +): device k's share ends at k + len(x) // n, where (k + 1) * len(x) // n
    belongs; the shares summed and the sum are theirs."""
    n, devices = x.size, len(calls)
    shares = [(k * n // devices, k + 1 * n // devices) for k in range(devices)]
    sizes = [len(range(n)[lo:hi]) for lo, hi in shares]
    if calls != sizes or got != sum(float(x[lo:hi].sum(dtype=np.float64)) for lo, hi in shares):
        return
    k = next((k for k in range(1, devices) if shares[k][1] != (k + 1) * n // devices), None)
    if k is None:
        return
    (lo, hi), right = shares[k], (k + 1) * n // devices
    yield (f"device {k}'s share was x[{lo}:{hi}], {sizes[k]} element{'s' * (sizes[k] != 1)}, "
           f"where it is x[{lo}:{right}]: hi = k + 1 * len(x) // n is k + (1 * len(x) // n), "
           f"since * and // bind tighter than +, so hi came out {k} + {n} // {devices} = {hi}, "
           f"not ({k} + 1) * {n} // {devices} = {right}, and {n - sum(sizes)} of the {n} "
           "elements were in no share", "put k + 1 in parentheses: hi = (k + 1) * len(x) // n")


def _one_short(got, x, calls, at_end):
    """The shares one element short at their end (``at_end``: hi = (k + 1) * len(x) // n - 1, hi
    taken as the share's last element) or at their start (lo = k * len(x) // n + 1, lo taken as
    one past the previous share's hi): where two shares meet, an element is left out; the shares
    summed and the sum are theirs."""
    n, devices = x.size, len(calls)
    bounds = [k * n // devices for k in range(devices + 1)]
    cut = (lambda lo, hi: (lo, hi - 1)) if at_end else (lambda lo, hi: (lo + 1, hi))
    shares = [cut(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi - 1 > lo]
    sizes = [len(range(n)[lo:hi]) for lo, hi in shares]
    if not shares or [c for c in calls if c] != sizes or \
            got != sum(float(x[lo:hi].sum(dtype=np.float64)) for lo, hi in shares):
        return
    short = [(k, lo, hi) for k, (lo, hi) in enumerate(zip(bounds, bounds[1:])) if hi > lo]
    named = ", and ".join(f"device {k}'s{' share was' * (not i)} x[{a}:{b}], where it is "
                          f"x[{lo}:{hi}]" for i, (k, lo, hi) in enumerate(short[:2])
                          for a, b in [cut(lo, hi)])
    left = [f"x[{hi - 1 if at_end else lo}]" for _, lo, hi in short]
    left = " and ".join(left) if len(left) < 3 else f"{left[0]}, {left[1]}, ... ({len(left)})"
    if at_end:
        yield (f"each share stopped one element short: {named}, as hi = (k + 1) * len(x) // "
               "n - 1 gives, hi taken as the share's last element: but a slice's end is "
               f"exclusive, x[lo:hi] leaves out x[hi], so {left} were in no share",
               "drop the - 1: hi = (k + 1) * len(x) // n, where the next share starts")
        return
    yield (f"each share started one element late: {named}, as lo = k * len(x) // n + 1 gives, "
           "lo taken as one past the previous share's hi, as if hi were its last element: but "
           "x[lo:hi] already stops before x[hi], so the next share starts at hi itself, and "
           f"{left}, each share's first element x[lo], {'was' if len(short) == 1 else 'were'} in "
           "no share", "drop the + 1: lo = k * len(x) // n, the previous share's hi")


def _sliced_one_past(got, x, calls):
    """The shares sliced x[lo:hi + 1]: each share but the last also holds the next share's first
    element, summed twice; the shares summed and the sum are theirs."""
    n, devices = x.size, len(calls)
    bounds = [k * n // devices for k in range(devices + 1)]
    shares = [(lo, min(hi + 1, n)) for lo, hi in zip(bounds, bounds[1:])]
    if devices < 2 or calls != [hi - lo for lo, hi in shares] or sum(calls) == n or \
            got != sum(float(x[lo:hi].sum(dtype=np.float64)) for lo, hi in shares):
        return
    twice = [f"x[{hi}]" for _, hi in zip(range(devices - 1), bounds[1:]) if hi < n]
    yield (f"each share but the last reached one element into the next: device 0's share was "
           f"x[0:{shares[0][1]}], where it is x[0:{bounds[1]}] (x[lo:hi + 1], or hi one too "
           f"large), so {' and '.join(twice[:2])}{', ...' * (len(twice) > 2)}, the next share's "
           f"first, {'was' if len(twice) == 1 else 'were'} summed twice ({sum(calls)} elements "
           f"for {n})", "a slice's end is not included: x[lo:hi] stops at x[hi - 1], and x[hi] "
           "is the next share's first, so slice x[lo:hi] with hi = (k + 1) * len(x) // n, no + 1")


def _shares_of_len_over_n(got, x, calls):
    """Every share len(x) // n long, rounded down: hi = lo + len(x) // n, or lo and hi both
    multiples of len(x) // n (on two devices the same shares); the last elements in no share."""
    n, devices = x.size, len(calls)
    size = n // devices
    if devices < 2 or n % devices == 0 or calls != [size] * devices:
        return
    forms = {"hi = lo + len(x) // n": [k * n // devices for k in range(devices)],
             "lo, hi = k * (len(x) // n), (k + 1) * (len(x) // n)":
                 [k * size for k in range(devices)]}
    fits = {form: starts for form, starts in forms.items()
            if got == sum(float(x[lo:lo + size].sum(dtype=np.float64)) for lo in starts)}
    if not fits:
        return
    end = next(iter(fits.values()))[-1] + size
    same = (f" (on {devices} devices, so does {' and '.join(list(fits)[1:])})"
            if len(fits) > 1 else "")
    yield (f"every share held len(x) // n = {n} // {devices} = {size} elements, rounded down: "
           f"{next(iter(fits))} gives each device {size}{same}, so the last share stopped "
           f"before x[{end}], not at len(x) = {n}, and {n - end} of the {n} elements were in no "
           "share",
           "end each share where the next one starts, the last at len(x): lo = k * len(x) // n, "
           "hi = (k + 1) * len(x) // n, none left out")
