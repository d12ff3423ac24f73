"""Checker for notebook 11's halo exchange (``cuda_src/exercises/halo_exchange.py``, a file: the
notebook's stored run takes no new cells). ``my_halo_exchange(halves, contexts, halo)`` gets two
halves (float32; in one case float64, so that an element size taken as 4 bytes shows), device k's
``[left halo | m interior | right halo]``, and fills the two inner halos from the neighbour's
interior, device to device. Every element is a different number whose lowest byte differs from
every other's (so that a copy of too few bytes shows), so a wrong halo tells where its values came
from; the function's device-to-device copies are noted (their addresses and sizes), and on the
simulator its copies to the host too. With a single GPU both halves lie on it (the copies are the
same calls).
"""

from __future__ import annotations

import numpy as np

from helpers.ch11.multigpu import two_devices_on_the_simulator
from helpers.exercises.halo_exchange_models import (COPIES, dtod_noted, four_byte_items,
                                                    gpudata_added, interior_miscounted,
                                                    interior_past_the_half, item_of_the_half,
                                                    longer_than_the_halo, mixed_units,
                                                    source_off, span)
from helpers.exercises.hidden import cases, success
from helpers.exercises.function import (check_function, context_mistakes, context_stack,
                                        copies_to_host, from_file, run_catching)
from helpers.exercises.verdict import Verdict, check_cases

FUNCTION = "my_halo_exchange"
CASES = [(50, 1), (37, 3), (5, 4), (29, 2, "float64")]  # (interior elements a half, halo[, dtype])
BYTES_HINT = ("device addresses count bytes: element i of a is at int(a.gpudata) + i * item "
              "(item = a.dtype.itemsize), and a halo is halo * item bytes")
HALOS = ("device 0's right halo (its elements halo + m on) gets device 1's elements halo on; "
         "device 1's left halo (its elements 0 on) gets device 0's elements m on")


def draw(rng):   # the grader's cases: a wide halo and a narrow one, on halves of other sizes
    return [(int(rng.integers(6, 90)), int(rng.integers(2, 6))), (int(rng.integers(2, 90)), 1)]


def check_halo_exchange(path: str = "exercises/halo_exchange.py", hidden: int | None = None):
    """Check the function in ``cuda_src/<path>``; print and return the Verdict."""
    return check_halo_exchange_function(from_file(path, FUNCTION), hidden)


def check_halo_exchange_function(fn, hidden: int | None = None) -> Verdict:
    """The checks of ``check_halo_exchange`` on a function (one defined in a cell, say)."""
    return check_function(fn, FUNCTION, lambda f: _verdict(f, cases(CASES, draw, hidden)))


@two_devices_on_the_simulator()
def _verdict(fn, every) -> Verdict:
    from helpers.backend import BACKEND
    from helpers.ch11.multigpu import device_contexts

    contexts = (device_contexts() * 2)[:2]
    right = "every halo holds its neighbour's elements, and nothing else changed" + (
        ", with no stop in host memory" if BACKEND == "simulator" else ". (Whether a halo went "
        "through host memory was NOT checked: PyCUDA does not tell; the simulator does)")
    return check_cases(every, lambda case: _mistakes(fn, contexts, *case),
                       lambda case: f"m = {case[0]} interior elements a half, halo = {case[1]}"
                       + (f", {case[2]} halves" if len(case) > 2 else ""),
                       success(right, CASES, every))


def _mistakes(fn, contexts, m, halo, dtype="float32"):
    """Run fn once; yield (problem, hint) for each mistake seen, the most telling first."""
    from helpers.backend import drv, gpuarray
    from helpers.ch11.multigpu import using

    def on(k, call):
        with using(contexts[k]):
            return call()

    hosts = [np.concatenate([-1000 * k - np.arange(1, halo + 1), np.arange(1, m + 1) + k * m,
                             -1000 * k - 500 - np.arange(1, halo + 1)]).astype(dtype)
             * np.dtype(dtype).type(1.1) for k in (0, 1)]  # every byte of an element counts
    _distinct_low_bytes(hosts)
    halves = [on(k, lambda k=k: gpuarray.to_gpu(hosts[k])) for k in (0, 1)]
    before = context_stack()
    with copies_to_host() as copied, dtod_noted(drv) as calls:
        raised, _ = run_catching(lambda: fn(list(halves), list(contexts), halo),
                                 "replace the TODOs with your code",
                                 [(TypeError, gpudata_added(fn, halves)),
                                  (drv.Error, "a copy reached outside a half: a half is [left "
                                   "halo | m interior | right halo], so m = halves[0].size - 2 * "
                                   "halo; and " + BYTES_HINT)])
    after = context_stack(restore=before)
    yield from item_of_the_half(calls, halves, m, halo)
    yield from mixed_units(calls, halves, m, halo)
    yield from interior_past_the_half(calls, halves, m, halo)
    yield from longer_than_the_halo(calls, halves, m, halo)
    if raised:
        yield raised
        return
    yield from context_mistakes(before, after)
    got = [on(k, halves[k].get) for k in (0, 1)]
    yield from four_byte_items(got, hosts, m, halo)
    yield from _wrong_halves(got, hosts, m, halo, (calls, halves))   # then, on the simulator,
    if copied:                                                       # the copies to the host
        yield ("the halos are right, but they went through host memory (a copy to the host ran "
               "during your function): two copies where one will do",
               "copy device to device: drv.memcpy_dtod(dest, src, halo * item)")


def _distinct_low_bytes(hosts):
    """Give every element of both halves its own lowest byte (1, 2, ...: at most 200 elements), so
    a copy of only its first bytes (a size in elements) changes what it lands on, whatever the
    values."""
    item = hosts[0].itemsize
    low = np.concatenate([h.view(np.uint8)[::item] for h in hosts])
    low[:] = np.arange(1, low.size + 1)
    for h, part in zip(hosts, np.split(low, [hosts[0].size])):
        h.view(np.uint8)[::item] = part


def _wrong_halves(got, hosts, m, halo, copies):
    """The mistakes the halves show (none when they are right), after the ``copies`` (the
    calls noted, the halves) that left them."""
    inner, origin = slice(halo, halo + m), {float(v): (k, i) for k in (0, 1)
                                            for i, v in enumerate(hosts[k])}
    yield from _one_half_for_both(got, hosts, m, halo)
    yield from interior_miscounted(got, hosts, m, halo)
    yield from _landed_off_the_halo(got, hosts, m, halo)
    for k in (0, 1):
        changed = got[k][inner] != hosts[k][inner]
        if not changed.any():
            continue
        came = {origin.get(float(v), (None, None)) for v in got[k][inner][changed]}
        if all(d == 1 - k and not halo <= i < halo + m for d, i in came):
            yield (f"device {k}'s interior got device {1 - k}'s halo: a copy ran the wrong way",
                   "drv.memcpy_dtod(dest, src, nbytes) copies into its first argument: the "
                   "halo's address first, the neighbour's interior second")
        yield f"device {k}'s interior changed: a copy wrote outside the halo", BYTES_HINT
    yield from _halves_swapped(got, hosts, m, halo)
    yield from _into_an_outer_halo(got, hosts, m, halo)
    if not (np.array_equal(got[0][:halo], hosts[0][:halo]) and
            np.array_equal(got[1][halo + m:], hosts[1][halo + m:])):
        yield ("an outer halo was written (device 0's left or device 1's right): those are the "
               "array's ends, with no neighbour", HALOS)
    for k, side, start in ((0, "right", halo + m), (1, "left", 0)):
        g, other = got[k][start:start + halo], 1 - k
        want = hosts[other][m:m + halo] if k else hosts[other][halo:2 * halo]
        if np.array_equal(g, want):
            continue
        name = f"device {k}'s {side} halo"
        came = [origin.get(float(v)) for v in g]
        partial = hosts[k][start:start + halo].copy()
        partial.view(np.uint8)[:halo] = want.view(np.uint8)[:halo]
        if (halo < partial.nbytes and np.array_equal(g.view(np.uint8), partial.view(np.uint8))
                and not np.array_equal(partial, hosts[k][start:start + halo])):
            yield (f"{name} got only {halo} byte{'s' if halo > 1 else ''} of its {halo} "
                   "element(s): the copy's size was given in elements, and memcpy_dtod counts bytes",
                   "the copy's size counts bytes, not elements: halo * item, with item = "
                   "halves[0].dtype.itemsize: drv.memcpy_dtod(dest, src, halo * item)")
        neighbour_halo = got[other][:halo] if k == 0 else got[other][halo + m:]
        if np.array_equal(g, neighbour_halo):
            yield (f"{name} got device {other}'s {'left' if k == 0 else 'right'} halo, not its "
                   f"interior elements next to it", HALOS)
        if None in came:
            yield f"{name} holds values that are no element of either half", BYTES_HINT
        if np.array_equal(g, hosts[k][start:start + halo]):
            yield f"{name} was not written", HALOS
        if g[0] == want[0] and np.array_equal(g[1:], hosts[k][start + 1:start + halo]):
            yield f"only the first element of {name} was copied", BYTES_HINT
        if all(d == k for d, _ in came):
            yield (f"{name} got device {k}'s own elements, not its neighbour's",
                   f"copy from the other device: int(halves[{other}].gpudata) + ...")
        yield from source_off(*copies, m, halo, k)
        yield (f"{name} got device {other}'s elements {[i for _, i in came]}, expected "
               f"{list(range(halo, 2 * halo)) if k == 0 else list(range(m, m + halo))} (the "
               f"interior is elements {halo} to {halo + m - 1})", HALOS)


def _halves_swapped(got, hosts, m, halo):
    """Both outer halos written, each with what the other device's inner halo was to get, both
    inner halos left as they were: left and right were taken the other way round (left the
    address of half 1, right of half 0), so each copy went to the far end of the other half."""
    if np.array_equal(got[1][halo + m:], hosts[0][halo:2 * halo]) and \
            np.array_equal(got[0][:halo], hosts[1][m:m + halo]) and \
            np.array_equal(got[0][halo + m:], hosts[0][halo + m:]) and \
            np.array_equal(got[1][:halo], hosts[1][:halo]):
        yield ("left and right are the other way round: left is half 1's address and right half "
               "0's (as left, right = int(halves[1].gpudata), int(halves[0].gpudata) gives), so device 0's "
               "first elements went to device 1's right halo and device 1's last to device 0's "
               "left halo, the array's two outer ends, and the inner halos were never written",
               "left is device 0's half, right device 1's: left, right = "
               "int(halves[0].gpudata), int(halves[1].gpudata)")


def _one_half_for_both(got, hosts, m, halo):
    """The halves as the solution's two copies leave them with left and right both half d's
    address: both copies ran inside half d (its right halo got its elements halo on, its left
    halo its elements m on), the other half untouched."""
    for d in (0, 1):
        model = hosts[d].copy()
        model[halo + m:] = model[halo:2 * halo]
        model[:halo] = model[m:m + halo]
        if not (np.array_equal(got[d], model) and np.array_equal(got[1 - d], hosts[1 - d])):
            continue
        name, end = ("right", ("", ", an end of the array,")) if d == 0 else \
            ("left", (", an end of the array,", ""))
        yield (f"left and right are both device {d}'s address: {name} points at device {d}'s half "
               f"(halves[{d}]) where device {1 - d}'s (halves[{1 - d}]) belongs, so both copies "
               f"ran inside device {d}'s half (its right halo{end[0]} got its own "
               f"{span(halo, halo)}, its left halo{end[1]} its {span(m, halo)}) and device "
               f"{1 - d}'s half was never written", "left is device 0's half, right device 1's: "
               f"{name} = int(halves[{1 - d}].gpudata)")
        return


def _into_an_outer_halo(got, hosts, m, halo):
    """An outer halo (device 0's left, device 1's right) that holds what one copy was to bring
    into an inner halo, that inner halo left as it was: the copy's destination was the outer
    halo's address, on the wrong device or at the wrong end."""
    inner = ((0, "right", halo + m, hosts[1], halo), (1, "left", 0, hosts[0], m))
    outer = ((0, "left", 0, "left"), (1, "right", halo + m, "right + (halo + m) * item"))
    for j, side, at, address in outer:
        for c, (k, to, start, source, first) in enumerate(inner):
            if np.array_equal(got[j][at:at + halo], source[first:first + halo]) and \
                    np.array_equal(got[k][start:start + halo], hosts[k][start:start + halo]):
                yield (f"an outer halo was written: device {j}'s {side} halo (its "
                       f"{span(at, halo)}), an end of the array, got device {1 - k}'s "
                       f"{span(first, halo)}, meant for device {k}'s {to} halo, which was never "
                       f"filled: that copy's destination was {address}, device {j}'s {side} "
                       f"halo's address", f"the copy into device {k}'s {to} halo writes into "
                       f"halves[{k}], at its element {start}: {COPIES[c]}")
                return


def _landed_off_the_halo(got, hosts, m, halo):
    """A halo's elements that landed in the interior, at another offset, the halo itself left as
    it was: the copy's destination missed the halo's start (right + halo * item, say, as if
    device 1's first element were its first interior one)."""
    copies = ((0, "right", halo + m, "drv.memcpy_dtod(left + (halo + m) * item, right + halo * "
               "item, halo * item)"), (1, "left", 0, "drv.memcpy_dtod(right, left + m * item, "
                                       "halo * item)"))
    for k, side, start, copy in copies:
        other = 1 - k
        want = hosts[other][m:m + halo] if k else hosts[other][halo:2 * halo]
        if not np.array_equal(got[k][start:start + halo], hosts[k][start:start + halo]):
            continue
        for at in range(halo, m + 1):
            if at != start and np.array_equal(got[k][at:at + halo], want):
                offset = {halo: "halo * item", m: "m * item"}.get(at, f"{at} * item")
                yield (f"the copy landed the {halo} element(s) meant for device {k}'s {side} halo "
                       f"(device {other}'s {span(m if k else halo, halo)}) in device {k}'s "
                       f"interior, its {span(at, halo)}, {'past' if at > start else 'before'} its {side} "
                       f"halo, which it left as it was: its destination was {offset} bytes "
                       "from the array's start", f"device {k}'s {side} halo starts at "
                       f"element {start}, int(halves[{k}].gpudata) + " +
                       ("(halo + m) * item: " if k == 0 else "0 (the array's start): ") + copy)
                break
