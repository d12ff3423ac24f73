"""The models of ``helpers.exercises.compact_points``: what a kernel with one of the usual
mistakes of the scatter leaves in points, element for element (rows as three planes, Z read as
if interleaved, the hole test turned round, a row late, holes that stopped the first point; a
coordinate read at the point's row, or from another coordinate's plane); the reads of xyz
past its end that a slip in a plane's index makes (``plane_past_z``); and a hole told from the
next pixel's slot, which for the last pixel lies past slot's end (``hole_from_the_next_slot``),
or from the pixel before (``hole_from_the_pixel_before``);
read from the kernel's text, a comparison with NAN (``compared_with_nan``) and a ! on the hole
test's left side alone (``negated_hole_test``)."""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises.microscope import accesses_of, kernel_words, observe, source_line

HOLE = np.array(0x7FC0BEEF, np.uint32).view(np.float32)[()]   # a NaN, not the list's poison
HOLE_HINT = ("a hole's Z is NaN, and NaN > 0.0f is false: return before writing when "
             "!(xyz[2 * n + i] > 0.0f)")


def hole_from_the_next_slot(kernels, launch, count):
    """The last pixel, a hole, wrote row ``count``, past the list, and on the simulator
    (``launch``: n pixels, the last a hole) every thread i read slot[i + 1]: the hole test
    compares the next pixel's slot with its own (slot[i + 1] == slot[i]), right for every pixel
    but the last, whose next slot, slot[n], lies past the end of slot's n elements."""
    n, kept = int(launch.args[1]), accesses_of(kernels, launch, "hole test", 4096)
    if kept is None:
        return
    slot = kept[(kept["array"] == "slot") & ~kept["write"]]
    pixel = slot["block"] * launch.block[0] + slot["thread"]
    if not np.array_equal(np.unique(pixel[slot["index"] == pixel + 1]), np.arange(n)):
        return
    yield (f"holes were written into the list: the last pixel, a hole, wrote row {count}, one "
           "past the end: the hole test reads slot[i + 1], the next pixel's slot (on the "
           "simulator every thread i read it, as slot[i + 1] == slot[i] does): for the last "
           "pixel, i = n - 1, that is slot[n], past the end of slot's n elements, so its test "
           "compared with whatever lies there and let the hole through",
           "test the pixel itself: a hole's Z is NaN, and NaN > 0.0f is false: return before "
           "writing when !(xyz[2 * n + i] > 0.0f)")


def hole_from_the_pixel_before(kernels, launch, xyz, out, count):
    """Each row written once, by the first pixel of its run (the holes after a point and the
    point they end in share a slot): pixel i writes when pixel i - 1 is a point (or i = 0), as a
    hole test slot[i] == slot[i - 1] (or on i - 1's Z) lets through. A row whose run starts with
    a hole holds its NaN, and the first hole after the last point writes row ``count``. Where on
    the simulator (``launch``) every thread i > 0 read slot[i - 1], that test is named."""
    valid = xyz[2] > 0
    writes = np.r_[True, valid[:-1]]
    slot, who = np.cumsum(valid) - valid, np.flatnonzero(writes)
    model = np.full((count + 1, 3), np.nan, np.float32)
    model[slot[who]] = xyz[:, who].T
    written = np.isin(np.arange(count + 1), slot[who])
    past = 3 * count + np.arange(3) if written[count] else []
    bits = model[:count].view(np.uint32) == out.got.view(np.uint32)
    if (writes == valid).all() or out.unwritten.any(axis=1).tolist() != (~written[:count]).tolist() \
            or not bits[written[:count]].all() or not np.array_equal(out.past, past):
        return
    n, kept = int(launch.args[1]), accesses_of(kernels, launch, "hole test", 4096)
    read = kept[(kept["array"] == "slot") & ~kept["write"]] if kept is not None else kept
    pixel = read["block"] * launch.block[0] + read["thread"] if kept is not None else None
    named = kept is not None and np.array_equal(
        np.unique(pixel[read["index"] == pixel - 1]), np.arange(1, n))
    last = f", and hole {who[slot[who] == count][0]}, the first after the last point, " \
        f"wrote row {count}, one past the end" if written[count] else ""
    yield ("the hole test looks at the pixel before i, not at pixel i"
           + (": slot[i] == slot[i - 1] holds when pixel i - 1 is a hole (slot[i] - slot[i - 1] "
              "counts pixel i - 1 alone; on the simulator every thread i > 0 read slot[i - 1])"
              if named else "") + f": the {int((valid & ~writes).sum())} points right after a "
           f"hole returned, their rows holding the NaNs of the hole before them, and the "
           f"{int((~valid & writes).sum())} holes right after a point wrote their NaNs{last}",
           "test the pixel itself: return when !(xyz[2 * n + i] > 0.0f) (a hole's Z is NaN, "
           "and NaN > 0.0f is false)")


def _planes(xyz, out, count):
    """True when points holds what a kernel writing X, Y, Z at k, n + k, 2n + k (three planes, as
    xyz is) leaves: those elements written with the valid pixels' coordinates, no others."""
    n, valid = xyz.shape[1], xyz[2] > 0
    where = (np.arange(3)[:, None] * n + np.arange(count)[None, :]).ravel()
    inside = where < 3 * count
    got = out.got.ravel()
    written = np.zeros(3 * count, bool)
    written[where[inside]] = True
    return (np.array_equal(~written, out.unwritten.ravel())
            and np.array_equal(got[where[inside]], xyz[:, valid].ravel()[inside])
            and np.array_equal(np.sort(where[~inside]), out.past))


def models(xyz, out, count):
    """Mistakes named by what such a kernel leaves in points, element for element."""
    if count and _planes(xyz, out, count):
        yield ("points were written as three planes n apart (X at points[k], Y at points[n + k], "
               "Z at points[2 * n + k]), as xyz is, but points holds one point a row: row k is "
               "points[3 * k], points[3 * k + 1], points[3 * k + 2]",
               "points[3 * k + 0] = X, points[3 * k + 1] = Y, points[3 * k + 2] = Z")
    yield from _z_interleaved(xyz, out, count)
    yield from _holes_kept(xyz, out, count)
    yield from _one_row_late(xyz, out, count)
    yield from _one_store_guarded(xyz, out, count)
    want = xyz[:, xyz[2] > 0].T
    hole = out.got.view(np.uint32) == HOLE.view(np.uint32)
    if (count > 1 and out.unwritten[0].all() and not out.unwritten[1:].any()
            and out.past.tolist() == [3 * count, 3 * count + 1, 3 * count + 2]
            and ((out.got[1:] == want[1:]) | hole[1:]).all()):
        yield ("the hole test let holes through and stopped the first valid pixel: slot[i] == 0 "
               "is true for the first point (slot is an exclusive sum: its row is 0) and false "
               f"for holes, which wrote the next point's row and row {count}, past the end",
               HOLE_HINT)


def _one_store_guarded(xyz, out, count):
    """The rows a hole test that guards one store alone leaves (an if without braces): that
    column right in every row, the other two written by the holes too, so that a row a hole
    shares with the next point may hold the hole's NaN there, and the last pixel, a hole, wrote
    those two columns of row ``count``, past the end, and not the guarded one."""
    valid, stores = xyz[2] > 0, ("points[3 * k]", "points[3 * k + 1]", "points[3 * k + 2]")
    loose = sorted((out.past - 3 * count).tolist())
    if not count or len(loose) != 2 or not set(loose) < {0, 1, 2} or out.unwritten.any():
        return
    guarded, want = ({0, 1, 2} - set(loose)).pop(), xyz[:, valid].T
    shared = np.isin(np.arange(count), (np.cumsum(valid) - valid)[~valid])
    bits, hole = out.got.view(np.uint32), HOLE.view(np.uint32)
    if not ((bits == want.view(np.uint32)) | ((bits == hole) & shared[:, None])).all() or \
            (bits[:, guarded] == hole).any():
        return
    names = " and ".join("XYZ"[c] for c in loose)
    yield (f"the holes wrote {names}, columns {loose[0]} and {loose[1]} of their row, but not "
           f"{'XYZ'[guarded]}: the last pixel, a hole, wrote {stores[loose[0]]} and "
           f"{stores[loose[1]]} for k = {count}, past the end of the list, and not "
           f"{stores[guarded]}, and each other hole wrote its NaN {names} into its slot, the "
           f"next point's row: the hole test guards the store of {'XYZ'[guarded]} alone, as an "
           "if without braces covers only the one statement after it (C does not go by "
           "indentation)", "put braces around the three stores: if (xyz[2 * n + i] > 0.0f) "
           "{ ... }, or return before them when !(xyz[2 * n + i] > 0.0f)")


def _one_row_late(xyz, out, count):
    """Each point one row after its slot: row 0 never written, row r + 1 holding row r's point,
    and the last point's three floats past the end, at row count."""
    want = xyz[:, xyz[2] > 0].T
    if (count > 1 and out.unwritten[0].all() and not out.unwritten[1:].any()
            and out.past.tolist() == [3 * count, 3 * count + 1, 3 * count + 2]
            and np.array_equal(out.got[1:], want[:-1])):
        yield (f"every point landed one row after its slot: row 0 was never written, row r + 1 "
               f"holds the point of row r, and the last point went to row {count}, past the end "
               "of the list: k came out slot[i] + 1, as slot[i + 1], the next pixel's slot, is "
               "for a valid pixel", "slot is an exclusive sum: slot[i] counts the points before "
               "pixel i, which is its row (the first point's is 0): int k = slot[i]")


def _holes_kept(xyz, out, count):
    """The rows a hole test turned round leaves: each hole i wrote row slot[i] (the next point's,
    row count for the last pixel) with its NaNs, and no valid pixel wrote its own."""
    valid = xyz[2] > 0
    slot = np.cumsum(valid) - valid
    written = np.zeros(count + 1, bool)
    written[slot[~valid]] = True
    past = 3 * count + np.arange(3) if written[count] else []
    hole = out.got.view(np.uint32) == HOLE.view(np.uint32)
    if count and np.array_equal(out.unwritten.any(axis=1), ~written[:count]) and \
            hole[written[:count]].all() and np.array_equal(out.past, past):
        rows = int(written[:count].sum())
        yield ("the hole test is inverted: the valid pixels returned and the holes wrote the "
               f"rows of their slots (the next point's): {rows} of the {count} rows hold a "
               f"hole's NaN, the other {count - rows} were never written"
               + (f", and the last pixel, a hole, wrote row {count}, past the end" if len(past)
                  else ""),
               "return for the holes, when !(xyz[2 * n + i] > 0.0f) (a hole's Z is NaN, and "
               "NaN > 0.0f is false), so that only the points write")


def _z_interleaved(xyz, out, count):
    """The rows a hole test on xyz[3 * i + 2] (Z of an interleaved cloud) leaves: pixel i passes
    where that element is above 0, and writes row slot[i] (a hole the next point's row)."""
    n, valid = xyz.shape[1], xyz[2] > 0
    passes, slot = xyz.ravel()[3 * np.arange(n) + 2] > 0, np.cumsum(valid) - valid
    if (passes == valid).all():
        return
    written = np.zeros(count + 1, bool)
    written[slot[passes]] = True
    past = 3 * count + np.arange(3) if written[count] else []
    if np.array_equal(out.unwritten.any(axis=1), ~written[:count]) and \
            np.array_equal(out.past, past):
        holes = ", and holes wrote rows" if (passes & ~valid).any() else ""
        yield (f"{int((~written[:count]).sum())} of {count} points were never written{holes}: "
               "the hole test read xyz[3 * i + 2], Z as if xyz held x, y, z "
               "side by side, but xyz is three planes", f"X is xyz[i], Y is xyz[n + i], Z is "
               f"xyz[2 * n + i] (n = {n}): return when !(xyz[2 * n + i] > 0.0f), and copy each "
               "coordinate from its plane")


def read_at_the_row(xyz, got, want):
    """Coordinates read at the point's row k = slot[i] where its pixel i belongs (xyz[n + k] for
    Y): each such column of row k holds pixel k's coordinate, the others right."""
    count, index = len(want), np.flatnonzero(xyz[2] > 0)
    reads = ("xyz[k]", "xyz[n + k]", "xyz[2 * n + k]")
    for planes in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)):
        model = want.copy()
        model[:, planes] = xyz[planes, :count].T
        if np.array_equal(model, want, equal_nan=True) or \
                not np.array_equal(got, model, equal_nan=True):
            continue
        r = int(np.argmax(~(model == want).all(axis=1)))
        names = ", ".join("XYZ"[p] for p in planes)
        yield (f"{names}, column{'s' * (len(planes) > 1)} "
               f"{', '.join(map(str, planes))} of each row, was read as "
               f"{', '.join(reads[p] for p in planes)}, at the point's row k = slot[i], not at "
               f"its pixel i: row {r} (pixel {index[r]}'s point) got {got[r].tolist()}, "
               f"expected {want[r].tolist()}, its {names} pixel {r}'s",
               "k only picks the row of points; the coordinates are pixel i's: X is xyz[i], Y "
               "is xyz[n + i], Z is xyz[2 * n + i]")


def read_from_another_plane(xyz, got, want):
    """One coordinate read from another coordinate's plane (xyz[n + i] for Z): that column of
    every row holds the same pixel's other coordinate, the other columns right."""
    reads, stores = ("xyz[i]", "xyz[n + i]", "xyz[2 * n + i]"), ("", " + 1", " + 2")
    for column in range(3):
        for plane in set(range(3)) - {column}:
            model = want.copy()
            model[:, column] = xyz[plane, xyz[2] > 0]
            if np.array_equal(model, want, equal_nan=True) or \
                    not np.array_equal(got, model, equal_nan=True):
                continue
            r = int(np.argmax(~(model == want).all(axis=1)))
            name, other = "XYZ"[column], "XYZ"[plane]
            yield (f"{name}, column {column} of each row, was read from the {other} plane, "
                   f"{reads[plane]}, where {name} is {reads[column]}: every point's {name} equals "
                   f"its {other} (row {r}: got {got[r].tolist()}, expected {want[r].tolist()})",
                   f"points[3 * k{stores[column]}] = {reads[column]}")


def read_next_to_x(xyz, got, want):
    """Y or Z (or both) read as if the coordinates lay side by side, xyz[i + 1], xyz[i + 2]: the
    X of the pixels after i, the other columns right."""
    flat, index = xyz.ravel(), np.flatnonzero(xyz[2] > 0)
    for planes in ((1,), (2,), (1, 2)):
        model = want.copy()
        model[:, planes] = flat[index[:, None] + np.array(planes)]
        if np.array_equal(model, want, equal_nan=True) or \
                not np.array_equal(got, model, equal_nan=True):
            continue
        names, many = ", ".join("XYZ"[p] for p in planes), len(planes) > 1
        reads = ", ".join(f"xyz[i + {p}]" for p in planes)
        yield (f"{names}, column{'s' * many} {', '.join(map(str, planes))} of each row, "
               f"{'were' if many else 'was'} read as {reads}, the X of the pixels after i: xyz "
               f"holds three planes of n floats, not each pixel's X, Y, Z side by side (row 0 "
               f"got {got[0].tolist()}, expected {want[0].tolist()})",
               "read each coordinate from its own plane, n floats apart: " + ", ".join(
                   f"{'XYZ'[p]} is {('xyz[i]', 'xyz[n + i]', 'xyz[2 * n + i]')[p]}"
                   for p in planes))


def coordinates_reordered(got, want):
    """(problem, hint) of rows whose three coordinates are right but in another order: slot s of
    each row holds coordinate p[s] (a permutation of X, Y, Z other than the identity)."""
    names, reads = "XYZ", ("xyz[i]", "xyz[n + i]", "xyz[2 * n + i]")
    for p in itertools.permutations(range(3)):
        if p == (0, 1, 2) or not np.array_equal(got, want[:, list(p)]):
            continue
        moved = [s for s in range(3) if p[s] != s]
        slot = [f"points[3 * k{f' + {s}' if s else ''}]" for s in range(3)]
        stored = [f"{names[p[s]]} ({reads[p[s]]}) was stored in {slot[s]}" for s in moved]
        yield (f"each row holds {', '.join(names[c] for c in p)}: {', '.join(stored[:-1])} and "
               f"{stored[-1].replace(' was stored', '')}: the coordinates are in the wrong order",
               "row k is X, Y, Z: " + ", ".join(f"{slot[s]} = {reads[s]}" for s in moved))


def plane_past_z(failure, n):
    """A read of xyz past its end by the thread of pixel i (from the error's block and thread)
    at element p * n + i, p 3 or more: a plane taken to start at 3 * n, past Z's at 2 * n; at
    2 * (n + i), Z's n doubled with i; at n * i, Y's n + i with * for +."""
    err, block = failure.error, failure.block
    room = (getattr(err, "allocation", None) or (0, 0))[1]   # xyz's 3 * n floats and more
    if failure.kind != "out of bounds" or err.is_write is not False or not block or \
            err.block is None or err.thread is None or err.offset is None or room < 12 * n:
        return
    n, i, element = int(n), err.block[0] * block[0] + err.thread[0], err.offset // 4
    plane = (element - i) // n if n > 0 else 0
    if 0 <= i < n and element == 2 * (n + i):
        yield (f"pixel {i} read xyz[2 * (n + i)] = xyz[{element}] (n = {n}, pixel i = {i}), past "
               f"the end of xyz, which holds 3 * n = {3 * n} floats: the parentheses doubled i "
               f"with n, 2 * n + 2 * i, so pixel i's Z was read {i} floats past its place, "
               f"2 * n + i = {2 * n + i}", "only n is doubled: Z is xyz[2 * n + i], no "
               "parentheses around n + i")
    if 1 < i < n and element == n * i:
        yield (f"pixel {i} read xyz[n * i] = xyz[{element}] (n = {n}, pixel i = {i}), past the "
               f"end of xyz, which holds 3 * n = {3 * n} floats: n * i multiplies where Y's "
               f"place adds, n + i = {n + i} (Y's plane starts at n, and pixel i is i floats "
               "into it)", "add, not multiply: Y is xyz[n + i]")
    if not (0 <= i < n and plane >= 3 and element == plane * n + i):
        return
    yield (f"pixel {i} read xyz[{plane} * n + i] = xyz[{element}] (n = {n}, pixel i = {i}), "
           f"past the end of xyz, which holds 3 * n = {3 * n} floats: its planes X, Y, Z start "
           "at 0, n and 2 * n, so no plane starts at 3 * n", "the planes count from 0: X is "
           "xyz[i], Y is xyz[n + i], Z is xyz[2 * n + i]")


def compared_with_nan(kernels):
    """The text of the operand that the kernel's body (its simulated twin's source) compares
    with NAN by ``==`` (``x == NAN`` or ``NAN == x``); None where there is none or the text
    cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for i in range(body + 1, end - 1):
        if words[i] == "==" and "NAN" in (words[i - 1], words[i + 1]):
            other = range(i + 1, end) if words[i - 1] == "NAN" else range(i - 1, body, -1)
            last = operand_end(words, other)
            first, final = sorted((other[0], last))
            return source[tokens[first].start:tokens[final].end]
    return None


def operand_end(words, places):
    """The index of the operand's last token walking over ``places`` (away from the ==): up to a
    bracket that opens outside it, or a && || , ; at its own depth."""
    depth, last = 0, places[0]
    for i in places:
        depth += (words[i] in ")]") - (words[i] in "([") if places.step < 0 else \
            (words[i] in "([") - (words[i] in ")]")
        if depth < 0 or depth == 0 and words[i] in ("&&", "||", ",", ";", "?", ":"):
            return last
        last = i
    return last


COMPARISONS = ("<", ">", "<=", ">=", "==", "!=")


def negated_hole_test(kernels, record, holes, zeros):
    """(problem, hint) for the compiler's ``record`` of a ! on a comparison's left side
    (!xyz[2 * n + i] > 0.0f, which C reads as (!z) > 0.0f, true for Z == 0 alone), confirmed on
    the simulator: the cloud of ``holes`` (NaN) wrote past the list, the same cloud with its
    holes' Z 0 (``zeros``) came out right. None otherwise."""
    seen = [observe(kernels, launch, key=key, racecheck=False)
            for launch, key in ((holes, "holes NaN"), (zeros, "holes at 0"))]
    if any(s.error is not None for s in seen) or not seen[0].outs[0].past.size or \
            seen[1].outs[0].past.size or \
            not np.array_equal(seen[1].outs[0].got, zeros.model[:, zeros.model[2] > 0].T):
        return None
    left, op, right = _negated(kernels, record.line) or ("xyz[2 * n + i]", ">", "0.0f")
    return (f"the ! at line {record.line} applies to {left} alone, not to the comparison: C "
            f"reads !{left} {op} {right} as (!{left}) {op} {right}, and !{left} is 1 for Z == 0 "
            "and 0 for any other Z, NaN too, so the hole test holds for Z == 0 alone: the holes, "
            "NaN, did not return and wrote their NaN at their slot, the next point's row (the "
            "same cloud with its holes' Z = 0 in place of NaN came out right)",
            f"put the whole comparison in parentheses, so that the ! applies to it: "
            f"if (!({left} {op} {right})) return;")


def _negated(kernels, line):
    """(left, operator, right) of the comparison whose left side the first ! at ``line`` of the
    kernel's body (its simulated twin's source) applies to, as the code writes them; None where
    the text cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for i in range(body + 1, end - 1):
        if words[i] != "!" or source_line(source, tokens[i].start) != line:
            continue
        last, depth = operand_end(words, range(i + 1, end)), 0
        for j in range(i + 1, last):
            depth += (words[j] in "([") - (words[j] in ")]")
            if depth == 0 and words[j] in COMPARISONS:
                return tuple(source[tokens[a].start:tokens[b].end]
                             for a, b in ((i + 1, j - 1), (j, j), (j + 1, last)))
        return None
    return None
