"""``sepia_x16``'s three uint4 a thread in the wrong places (``helpers.exercises.sepia_x16``),
every value of the whole groups compared with a model: w[] built from the loaded uint4 out of
order (``uint4s_out_of_order``), or from one of them twice, another never loaded
(``uint4s_repeated``); the results' three uint4 stored out of order (``stores_out_of_order``);
the loads' words converted from floats by value, which the simulator stops
(``words_converted_from_floats``)."""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import sepia

LOADS = ("uint4 a = src[0], b = src[1], c = src[2]; unsigned int w[12] = {a.x, a.y, a.z, a.w, "
         "b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w}")


def _groups(rgb, got, n):
    """The whole groups' input as (groups, 3, 16), three uint4 each, and their output bytes as
    (groups, 48); None with no whole group."""
    groups = n // 16
    if not groups:
        return None
    return (rgb.ravel()[:48 * groups].reshape(groups, 3, 16),
            got.ravel()[:48 * groups].reshape(groups, 48))


def _tone_of(loaded, order):
    """The groups' sepia bytes (groups, 48) of a kernel whose w[] holds the loaded uint4 number
    order[0], order[1], order[2] (``loaded``: (groups, 3, 16))."""
    picked = loaded[:, list(order)].reshape(len(loaded), 16, 3)
    return sepia.reference(picked).reshape(len(loaded), 48)


def _pixels_of(uint4s):
    """'pixels i to j': those whose bytes lie in any of the uint4 numbers ``uint4s`` of a group."""
    return f"pixels {16 * min(uint4s) // 3} to {(16 * max(uint4s) + 15) // 3}"


def uint4s_out_of_order(rgb, got, n):
    """Every whole group's bytes those of a kernel whose w[] holds the three uint4 a, b, c (the
    group's bytes 0 to 15, 16 to 31, 32 to 47) in another order, {a..., c..., b...} say (or whose
    loads took them so: b = src[2], c = src[1] gives the same words)."""
    if (found := _groups(rgb, got, n)) is None:
        return
    loaded, mine = found
    for order in itertools.permutations(range(3)):
        if order == (0, 1, 2) or not sepia.near(mine, _tone_of(loaded, order)):
            continue
        moved = [(q, u) for q, u in enumerate(order) if u != q]
        held = ", and ".join(f"w[{4 * q}] to w[{4 * q + 3}] hold {'abc'[u]}, {whose} bytes "
                             f"{16 * u} to {16 * u + 15}"
                             for whose, (q, u) in zip(("the group's", "its", "its"), moved))
        which = (f"{'abc'[moved[0][0]]} and {'abc'[moved[1][0]]} are swapped" if len(moved) == 2
                 else "the three uint4 are out of order")
        yield (f"{held}: {which}, in w's list or in their loads, so "
               f"{_pixels_of([q for q, _ in moved])} of every group were computed from the wrong "
               "bytes", "word k of w[] is bytes 4k to 4k + 3 of the group, in order: " + LOADS)
        return


def uint4s_repeated(rgb, got, n):
    """Every whole group's bytes those of a kernel whose three uint4 a, b, c were loaded from
    src[i], src[j], src[k], one of the three twice (c = src[1], say): another of the group's
    uint4 never loaded (or w[] lists one uint4 twice, {a..., b..., b...})."""
    if (found := _groups(rgb, got, n)) is None:
        return
    loaded, mine = found
    for picks in itertools.product(range(3), repeat=3):
        if len(set(picks)) == 3 or not sepia.near(mine, _tone_of(loaded, picks)):
            continue
        moved = [(q, u) for q, u in enumerate(picks) if u != q]
        held = ", and ".join(f"{'abc'[q]} holds the group's bytes {16 * u} to {16 * u + 15}, "
                             f"{'abc'[u]}'s" for q, u in moved)
        lost = " and ".join(f"bytes {16 * m} to {16 * m + 15} (src[{m}])"
                            for m in sorted(set(range(3)) - set(picks)))
        yield (f"the group's uint4 a, b, c were loaded from src[{picks[0]}], src[{picks[1]}], "
               f"src[{picks[2]}]: {held}, and the group's {lost} were never loaded (or w[] lists "
               f"a uint4 twice), so {_pixels_of([q for q, _ in moved])} of every group were computed "
               "from the wrong bytes", "load each of the group's three uint4 once, and list each "
               "once in w[], in order: " + LOADS)
        return


def stores_out_of_order(rgb, got, n):
    """Every whole group's output the right results, its three uint4 in another order: dst[q]
    stored res[4u] to res[4u + 3], u != q (dst[1] and dst[2] swapped, say)."""
    if (found := _groups(rgb, got, n)) is None:
        return
    loaded, mine = found
    right = _tone_of(loaded, range(3)).reshape(len(loaded), 3, 16)
    for order in itertools.permutations(range(3)):
        if order == (0, 1, 2) or not sepia.near(mine, right[:, list(order)].reshape(mine.shape)):
            continue
        moved = [(q, u) for q, u in enumerate(order) if u != q]
        held = " and ".join(f"dst[{q}] holds res[{4 * u}] to res[{4 * u + 3}]" for q, u in moved)
        bytes_ = ", and ".join(f"bytes {16 * q} to {16 * q + 15} hold the results of bytes "
                               f"{16 * u} to {16 * u + 15}" for q, u in moved)
        yield (f"the three uint4 of res[] were stored out of order: {held}, so in every group of "
               f"out, {bytes_} (each value right, in another uint4)", "dst[q] takes res[4q] to "
               "res[4q + 3]: " + ", ".join(f"dst[{q}] = make_uint4(res[{4 * q}], res[{4 * q + 1}], "
                                          f"res[{4 * q + 2}], res[{4 * q + 3}])" for q, _ in moved))
        return


def words_converted_from_floats(failure):
    """(problem, hint) of a conversion to an integer that stopped the kernel on a float whose 4
    bytes are word k of the thread's group (``failure``'s launch's image): the 48 bytes loaded as
    floats (float4) and each converted by value, (unsigned int)a.x, which keeps no byte."""
    err, rgb, block = failure.error, getattr(failure.launch, "model", None), failure.block
    if failure.kind != "conversion" or rgb is None or not block or err.thread is None or \
            err.block is None or getattr(err, "value", None) is None:
        return
    t = err.block[0] * block[0] + err.thread[0]
    floats = rgb.ravel()[:48 * (rgb.size // 48)].view("<f4")[12 * t:12 * t + 12]
    hits = np.flatnonzero(floats == np.float32(err.value))
    if not hits.size:
        return
    k, line = int(hits[0]), (err.line or "").rsplit(":", 1)[-1]
    yield (f"the image's bytes were loaded as floats and converted by value: "
           f"({err.to_type}) of the float {err.value:g} at line {line} (thread {t}), which is "
           f"w[{k}], the group's bytes {4 * k} to {4 * k + 3} read as a float: a cast converts "
           "the float's number (this one out of the type's range), it does not keep its 4 "
           "bytes, so w[] would not hold the image's bytes",
           "the image's bytes are not floats: load them as three uint4 and list their words as "
           "they are, const uint4 *src = reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t; "
           + LOADS + " (no float4, no cast)")
