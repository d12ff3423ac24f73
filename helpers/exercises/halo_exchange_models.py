"""What the halo exchange's checker models: the learner's ``drv.memcpy_dtod`` calls, noted with
their addresses and sizes, read as offsets into the halves (an address that mixes bytes and
elements), the halves the solution's copies would leave with an element taken as 4 bytes, and
an offset added to a half's gpudata itself, not to its address (``gpudata_added``)."""

from __future__ import annotations

import ast

import numpy as np

from helpers.exercises.function import calls_noted
from helpers.exercises.learner_code import code_of, learner_line

COPIES = ("drv.memcpy_dtod(left + (halo + m) * item, right + halo * item, halo * item)",
          "drv.memcpy_dtod(right, left + m * item, halo * item)")


def dtod_noted(drv):
    """``function.calls_noted`` for every ``memcpy_dtod`` (and its ``_async`` form): the
    ``(dest, src, nbytes)`` of each, noted before the copy runs (so a copy that raises is noted
    too); a call whose arguments are no addresses is left for the call itself to refuse."""
    def note(name, args, kwargs):
        given = args + tuple(kwargs[k] for k in ("dest", "src", "size") if k in kwargs)
        try:
            return tuple(int(a) for a in given[:3])
        except (TypeError, ValueError):   # the call itself will say what is wrong
            return None
    return calls_noted(drv, ("memcpy_dtod", "memcpy_dtod_async"), note)


def mixed_units(calls, halves, m, halo):
    """A copy whose destination or source is no element's start in a half, but would be one had
    an element count in it been multiplied by the element size: ``X * item - Y`` for ``X * item
    - Y * item``, with Y the halo, m, ... (a count of elements added to an address in bytes)."""
    item, size = halves[0].dtype.itemsize, halves[0].size
    bases = [int(h.gpudata) for h in halves]
    counts = {halo: "halo", m: "m", halo + m: "(halo + m)", size: "halves[{k}].size"}
    for dest, src, *_ in calls:
        into = _where(dest, bases, size * item)
        if into is None:
            continue
        k, at = into   # the copy into device k's halo: k = 0 its right one, k = 1 its left one
        want = {"destination": (halo + m) * item if k == 0 else 0,
                "source": halo * item if k == 0 else m * item}
        for end, address in (("destination", dest), ("source", src)):
            place = _where(address, bases, size * item)
            if place is None or place[1] % item == 0:
                continue
            got, should = place[1], want[end]
            if item == 1 or (got - should) % (item - 1):
                continue
            y = abs(got - should) // (item - 1)
            x = got + y if got > should else got - y
            if y not in counts or x % item or x == 0 or (x // item) not in counts:
                continue
            sign, named = "-" if got > should else "+", {c: counts[c].format(k=place[0])
                                                         for c in (x // item, y)}
            written = f"{named[x // item]} * item {sign} {named[y]}"
            side = "right" if k == 0 else "left"
            yield (f"the copy into device {k}'s {side} halo has its {end} at byte {got} of half "
                   f"{place[0]}, {written}: {named[y]} ({y}) counts elements, and it was "
                   f"{'taken from' if sign == '-' else 'added to'} an address in bytes",
                   f"an address moves by bytes: {named[y]} elements are {named[y]} * item "
                   f"bytes ({written} * item): {COPIES[k]}")
            return


def _where(address, bases, nbytes):
    """(k, byte offset) of an address inside half k (its end included), or None."""
    return next(((k, address - b) for k, b in enumerate(bases) if 0 <= address - b <= nbytes),
                None)


def four_byte_items(got, hosts, m, halo):
    """The halves as the solution's two copies leave them with ``item = 4`` (sizeof(float)) where
    an element is more bytes: half of each halo's elements copied, from halfway along."""
    item = hosts[0].itemsize
    if item == 4:
        return
    model = [h.copy() for h in hosts]
    byte = [h.view(np.uint8) for h in model]
    byte[0][(halo + m) * 4:(2 * halo + m) * 4] = byte[1][halo * 4:2 * halo * 4]
    byte[1][:halo * 4] = byte[0][m * 4:(m + halo) * 4]
    if all(np.array_equal(g.view(np.uint8), b) for g, b in zip(got, byte)):
        yield (f"the halos got {halo * 4} bytes each from byte offsets counted in 4-byte "
               f"elements, but these halves are {hosts[0].dtype}, {item} bytes an element: the "
               "element size was taken as 4 (sizeof(float)), not read from the array",
               "an element is item = halves[0].dtype.itemsize bytes: count every offset and size "
               f"with it: {COPIES[0]}; {COPIES[1]}")


def item_of_the_half(calls, halves, m, halo):
    """A copy that is the solution's with the element's bytes taken as the whole half's,
    ``item = halves[0].nbytes``: its offsets and size in halves of bytes, not elements."""
    size, item = halves[0].size, halves[0].dtype.itemsize
    whole, bases = size * item, [int(h.gpudata) for h in halves]
    right = (((0, halo + m), (1, halo)), ((1, 0), (0, m)))   # (half, elements) of dest, src
    for call, ((kd, d), (ks, s)), copy in zip(calls, right, COPIES):
        if item > 1 and tuple(call or ())[:3] == (bases[kd] + d * whole, bases[ks] + s * whole,
                                                  halo * whole):
            dest, _, nbytes = call
            yield (f"the copies counted an element as {whole} bytes, halves[0].nbytes (the whole "
                   f"half's bytes), where it is {item} (its dtype.itemsize): {copy} asked for "
                   f"halo * item = {nbytes} bytes at byte {dest - bases[kd]} of half {kd}, "
                   f"which holds only {whole}", "item is the bytes of one element, as the "
                   "stub has it: item = halves[0].dtype.itemsize")
            return


def exchanged(hosts, m, halo):
    """The halves the solution's two copies leave, run with m interior elements a half."""
    got = [h.copy() for h in hosts]
    got[0][halo + m:halo + m + halo] = hosts[1][halo:2 * halo]
    got[1][:halo] = hosts[0][m:m + halo]
    return got


def interior_miscounted(got, hosts, m, halo):
    """Both copies right but for m: the halves are exactly what the solution's copies leave with
    another interior size (halves[0].size // 2 - halo, say), so both offsets are off."""
    size = hosts[0].size
    for wrong in range(size - 2 * halo + 1):
        if wrong != m and all(np.array_equal(g, e) for g, e in zip(got, exchanged(hosts, wrong,
                                                                                   halo))):
            how = (f" (as halves[0].size // 2 - halo = {size} // 2 - {halo} gives)"
                   if wrong == size // 2 - halo else "")
            yield (f"both copies used m = {wrong} interior elements, not {m}{how}: each copy is "
                   f"right for that m, so device 0's right halo stayed as it was and device 1's "
                   f"{span(halo, halo)} landed at device 0's {span(halo + wrong, halo)}, and device 1's left halo got "
                   f"device 0's {span(wrong, halo)}, not {span(m, halo)}",
                   f"a half is [left halo | m interior | right halo], {size} elements in all, "
                   f"so m = halves[0].size - 2 * halo = {m}")
            return


def span(first, count):
    """Elements first .. first + count - 1, in words."""
    return f"element {first}" if count == 1 else f"elements {first} .. {first + count - 1}"


def interior_past_the_half(calls, halves, m, halo):
    """Both copies right but for m, an m too large (halves[0].size - halo, say): the copies noted
    (before each ran, so a copy that raised counts) are the solution's with that m, the one into
    device 0's right halo among them, reaching past half 0's end (whether or not it raised)."""
    size, item = halves[0].size, halves[0].dtype.itemsize
    left, right = (int(h.gpudata) for h in halves)
    noted = [tuple(call[:3]) for call in calls]
    for wrong in range(m + 1, size + 1):
        first = (left + (halo + wrong) * item, right + halo * item, halo * item)
        if noted and first in noted and set(noted) <= {first, (right, left + wrong * item,
                                                               halo * item)}:
            how = (f" (halves[0].size - halo = {size} - {halo}: one halo taken off, where a half "
                   "has two)" if wrong == size - halo else "")
            yield (f"the copies' offsets are those of m = {wrong} interior elements, not {m}"
                   f"{how}: the copy into device 0's right halo, at halo + m, reaches "
                   f"{span(halo + wrong, halo)}, past half 0's last, element {size - 1}",
                   f"a half is [left halo | m "
                   f"interior | right halo], {size} elements in all, so m = halves[0].size - 2 * "
                   f"halo = {m}")
            return


def longer_than_the_halo(calls, halves, m, halo):
    """A copy into an inner halo (device 0's right one, at its element halo + m; device 1's left
    one, at its element 0), noted with its size, longer than the halo: it also writes past the
    halo (device 1's interior, or past the end of half 0), whatever value it leaves there (the
    copy into device 1's left halo writes back what its first interior elements held when device
    0's right halo was filled first: only the size tells)."""
    item, size = halves[0].dtype.itemsize, halves[0].size
    bases = [int(h.gpudata) for h in halves]
    for dest, _, nbytes in (call for call in calls if len(call) == 3):
        for k, side, start in ((0, "right", halo + m), (1, "left", 0)):
            if dest != bases[k] + start * item or nbytes <= halo * item:
                continue
            said = f"(halo + 1) * item = {nbytes}" if nbytes == (halo + 1) * item else nbytes
            long = (f"{nbytes // item} elements long, {said} bytes" if nbytes % item == 0
                    else f"{nbytes} bytes long")
            past = -(-nbytes // item) - halo   # the elements it reaches past the halo
            into = (f"past the end of half 0 (its last element is {size - 1})" if k == 0 else
                    f"device 1's {span(halo, past)} too, its first interior "
                    f"element{'s' if past > 1 else ''}")
            yield (f"the copy into device {k}'s {side} halo is {long}, where the halo holds "
                   f"{halo} ({halo * item} bytes): it wrote {into}", "a halo is halo * item "
                   f"bytes: {COPIES[k]}")
            return



def _bound_to_gpudata(code):
    """{name: (the assignment, its value's expressions, the name's)} of each name ``code`` binds
    to a ``.gpudata`` itself (left, right = halves[0].gpudata, halves[1].gpudata), not int() of it."""
    bound = {}
    for node in ast.walk(code.tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        names, values = (getattr(node.targets[0], "elts", [node.targets[0]]),
                         getattr(node.value, "elts", [node.value]))
        for name, value in zip(names, values) if len(names) == len(values) else ():
            if isinstance(name, ast.Name) and getattr(value, "attr", "") == "gpudata":
                bound[name.id] = node, values, value
    return bound


def gpudata_added(fn, halves):
    """For ``run_catching``'s hints (TypeError): where adding a number to a half's gpudata
    raises TypeError, an offset added, on the line that raised, to a name ``fn``'s code binds to
    a ``.gpudata`` itself, not to its address, int() of it: named with the line that binds it."""
    def told(err):
        try:
            halves[0].gpudata + 0
        except TypeError:
            pass
        else:
            return None
        line, code = learner_line(err), code_of(fn)
        bound = _bound_to_gpudata(code) if line and code else {}
        added = next((n for n in ast.walk(code.tree) if isinstance(n, ast.BinOp) and isinstance(
            n.op, ast.Add) and isinstance(n.left, ast.Name) and n.left.id in bound
            and code.number(n) == line[0]), None) if bound else None
        if added is None:
            return None
        node, values, gpudata = bound[added.left.id]
        fixed = ", ".join(f"int({ast.unparse(v)})" if getattr(v, "attr", "") == "gpudata" else
                          ast.unparse(v) for v in values)
        return (f"{ast.unparse(added)} adds a number to {added.left.id}, which is "
                f"{ast.unparse(gpudata)} itself ({code.quoted(node)}), a "
                f"{type(halves[0].gpudata).__name__}: it stands for a half's memory, and Python "
                "has no + for it", "take the addresses as ints first: "
                f"{ast.unparse(node.targets[0]).strip('()')} = {fixed} (line {code.number(node)}),"
                " as the file's stub does: int() of a gpudata is its address, in bytes, to which "
                "an offset adds")
    return told


def source_off(calls, halves, m, halo, k):
    """The copy into device k's inner halo (k = 0 its right one, k = 1 its left one), noted with
    the right destination and size, whose source is an element of the neighbour's half other than
    the one that halo's elements start from (device 1's m for its halo, say, or device 0's
    halo + m - 1, its last interior element, for its m): named by the element it starts at."""
    item, size, bases = halves[0].dtype.itemsize, halves[0].size, [int(h.gpudata) for h in halves]
    start, want, other = (halo + m, halo, 1) if k == 0 else (0, m, 0)
    for call in (call for call in calls if len(call) == 3):
        j, off = divmod(call[1] - bases[other], item)
        if call[0] != bases[k] + start * item or call[2] != halo * item or off or j == want \
                or not 0 <= j <= size - halo:
            continue
        named = {halo + m - 1: "halo + m - 1", halo + m: "halo + m", halo: "halo", m: "m"}.get(j)
        offset = "" if j == 0 else " + " + (f"({named})" if named and " " in named else
                                            named or str(j)) + " * item"
        which = ("first", "halo") if k == 0 else ("last", "m")
        yield (f"device {k}'s {('right', 'left')[k]} halo got device {other}'s elements "
               f"{list(range(j, j + halo))}, expected {list(range(want, want + halo))}: its copy's "
               f"source, {('left', 'right')[other]}{offset}, starts at device {other}'s element "
               f"{f'{named} = ' if named else ''}{j}, {_lying(j, m, halo)}",
               f"device {k}'s {('right', 'left')[k]} halo gets device {other}'s {which[0]} {_interior(halo)}, its "
               f"{span(want, halo)}, from element {which[1]}: {COPIES[k]}")
        return


def _interior(count):
    """'interior element', or 'count interior elements'."""
    return "interior element" if count == 1 else f"{count} interior elements"


def _lying(j, m, halo):
    """Where a half's elements j .. j + halo - 1 lie in [left halo | m interior | right halo], in
    words."""
    end = halo + m   # the right halo's first element
    if halo <= j and j + halo <= end:
        return {halo: f"its first {_interior(halo)}", m: f"its last {_interior(halo)}"}.get(
            j, f"{_interior(halo)} inside its interior, neither its first nor its last")
    if j + halo <= halo or j >= end:
        return "its left halo" if j < halo else "its right halo"
    if j < halo:
        return f"{span(j, halo - j)} of its left halo, then its first {_interior(j)}"
    return (f"its last {_interior(end - j)}, then {span(end, j + halo - end)} of its right halo, "
            "past its interior")
