"""The models of ``helpers.exercises.sepia``'s kernel: NumPy's sepia (``reference``, with another
matrix or rounding for a wrong kernel's), when two results are the same to a level (``near``,
``_differs``), and the wrong kernels that mix up the channels, each with its problem and hint:
a channel holding another's results (``copied_channel``), one channel rounded or clamped another
way (``one_channel``), channels read, stored or weighted in another order or one read from
another's byte (``mixed_up``)."""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises.verdict import matches

SEPIA = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
"""Row c gives output channel c (R', G', B') from the input's (R, G, B)."""
JUNK = 0
"""What the input's spare bytes (past the image) hold."""
ROUNDING_SLACK = 0.01
"""Where the exact sum is within this of a rounding boundary, a result one level off counts as
right (a GPU's float sum may fall on the other side; float32 sums near 300 are off by about 1e-4
at most); elsewhere it must be NumPy's exactly, so that truncating instead of rounding fails."""
CHANNEL_NAMES = ("red", "green", "blue")


def reference(rgb: np.ndarray, matrix=SEPIA.T, half=0.5) -> np.ndarray:
    """NumPy sepia of an ``(h, w, 3)`` uint8 image: rounded, clamped to 255, uint8 (with another
    ``matrix`` or ``half``, 0 to truncate, what a wrong kernel gives)."""
    return np.minimum(np.floor(rgb @ matrix + half), 255).astype(np.uint8)


def copied(rgb, got, exact):
    """(c, d, y, x) where channel c's bytes hold channel d's results (to a level), the other two
    channels right, (x, y) the first pixel where c is wrong; None otherwise."""
    want = reference(rgb)
    right = ~_differs(got, want, exact)
    for c, d in itertools.permutations(range(3), 2):
        if np.delete(right, c, axis=2).all() and not right[..., c].all() and not _differs(
                got[..., c], want[..., d], exact[..., d]).any():
            return (c, d, *np.argwhere(~right[..., c])[0])
    return None


def copied_channel(rgb, got, exact):
    """One channel's bytes holding another channel's results (``copied``): the byte stored from
    another channel's sum (out[3*i + 1] from r2), or its sum computed with that channel's
    weights."""
    if (found := copied(rgb, got, exact)) is None:
        return
    c, d, y, x = found
    want = reference(rgb)
    name, other = CHANNEL_NAMES[c], CHANNEL_NAMES[d]
    weights = " + ".join(f"{w}f * {v}" for w, v in zip(SEPIA[c], "rgb"))
    yield (f"the {name} bytes hold the {other} results, the other channels right (x = "
           f"{x}, y = {y}: {name} {got[y, x, c]}, its {other} value, where its {name} "
           f"value is {want[y, x, c]}): the {name} byte was stored from the {other} sum "
           f"({'rgb'[d]}2 where {'rgb'[c]}2 belongs), or the {name} sum was computed with "
           f"the {other} weights", f"each byte stores its own channel's sum: "
           f"out[3*i{f' + {c}' if c else ''}] = (unsigned char)fminf({'rgb'[c]}2 + 0.5f, "
           f"255.0f), with {'rgb'[c]}2 = {weights}")


def one_channel(rgb, got, exact):
    """A single channel rounded or clamped another way, the other two right: a half of 1.5 or
    -0.5 (or 0: the sum truncated, kept in an int), or fmaxf for fminf."""
    want = reference(rgb)
    right = ~_differs(got, want, exact)
    for c in np.flatnonzero(~right.all(axis=(0, 1))):
        if not np.delete(right, c, axis=2).all():
            return
        name, x, mine = CHANNEL_NAMES[c], exact[..., c], got[..., c]
        for half, seen, mistake in (
                (1.5, "one above NumPy's", "rounded with + 1.5f"),
                (-0.5, "one below NumPy's", "rounded with - 0.5f"),
                (0.0, "one below NumPy's where the sum's fraction is .5 or more",
                 "truncated: kept in an int, or converted before + 0.5f")):
            model = np.clip(np.trunc(np.minimum(x + half, 255)), 0, 255).astype(np.uint8)
            if not _differs(mine, model, x, boundary=half % 1).any():
                yield (f"the {name} values are {seen}, the other channels right: the {name} "
                       f"sum was {mistake}",
                       f"keep the {name} sum a float, and round it with + 0.5f as you clamp it: "
                       f"out[3*i{f' + {c}' if c else ''}] = (unsigned char)fminf({'rgb'[c]}2 + 0.5f, 255.0f)")
        if _larger_kept(x, mine):
            yield (f"every {name} value below 255 turned into 255, the other channels right: "
                   f"the {name} value was clamped with fmaxf, which keeps the larger of its two "
                   "arguments", f"clamp it with fminf({'rgb'[c]}2 + 0.5f, 255.0f), which keeps "
                   "the smaller")


def _larger_kept(exact, got) -> bool:
    """Whether ``got`` is fmaxf(sum + 0.5f, 255.0f) converted: 255 where the sum is below 255.5,
    and above, a float past 255 converted: its low byte, on a GPU (nvcc converts to a 32-bit
    integer, cvt.rzi.u32.f32, and stores a byte of it) as on the simulator; 255 taken too."""
    wrapped = np.floor(np.maximum(exact + 0.5, 255)) % 256
    return bool(((got == 255) | (np.abs(got - wrapped) <= 1)).all())


def clamped_low(rgb, got, exact):
    """Every value NumPy's sepia, clamped at a level below 255: fminf(value + 0.5f, 1.0f) (the
    channels taken for 0 to 1), or another ceiling where 255.0f belongs."""
    want, top = reference(rgb), int(got.max())
    if not 1 <= top < 255 or want.max() <= top or _differs(got, np.minimum(want, top), exact).any():
        return
    y, x, c = np.argwhere(want > top)[0]
    count, rest = int((want > top).sum()), "" if (want > top).all() else ", the others NumPy's"
    yield (f"no value of out is above {top}: {count} of {got.size} values are {top} where NumPy's "
           f"is larger (the first x = {x}, y = {y}, {CHANNEL_NAMES[c]}: the sum is "
           f"{exact[y, x, c]:.1f}, got {got[y, x, c]}, expected {want[y, x, c]}){rest}: the "
           f"values were clamped at {top} where 255 belongs",
           f"the channels are bytes, 0 to 255{' (not 0 to 1)' if top == 1 else ''}: clamp each "
           "at 255 as you store it: (unsigned char)fminf(r2 + 0.5f, 255.0f), and so for g2 and b2")


def _other_weights(rgb, got, layout_hint):
    """A kernel whose channels are other weighted sums of r, g and b (a weight mistyped, a
    channel computed from another's result): the weights least squares finds where no channel
    is clamped, named where they explain every such pixel to a level."""
    x, y = rgb.reshape(-1, 3).astype(np.float64), got.reshape(-1, 3).astype(np.float64)
    keep = (y < 255).all(axis=1)
    if keep.sum() < 12:
        return
    weights = np.linalg.lstsq(x[keep], y[keep], rcond=None)[0].T
    if np.abs(x[keep] @ weights.T - y[keep]).max() > 1.5:
        return
    for c, (row, want) in enumerate(zip(weights, SEPIA)):
        if not np.allclose(row, want, atol=0.005):
            said = (f"the {CHANNEL_NAMES[c]} output is {row[0]:.3f} r + {row[1]:.3f} g + "
                    f"{row[2]:.3f} b, where the matrix has {want[0]} r + {want[1]} g + "
                    f"{want[2]} b")
            yield from _weights_cut_to_0(c, row, said)
            yield said, "each output channel comes from the input's r, g and b: " + layout_hint
            return


def _weights_cut_to_0(c, row, said):
    """Channel c's fitted weights ``row`` each the matrix's or 0, some 0: weights below 1 made
    ints, as a fraction of ints gives them (393 / 1000 is an integer division, 0)."""
    zero = np.isclose(row, 0, atol=0.005)
    if not zero.any() or not (zero | np.isclose(row, SEPIA[c], atol=0.005)).all():
        return
    parts = [v for v, z in zip("rgb", zero) if z]
    which = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    k = int(np.argmax(zero))
    yield (f"{said}: its weights of {which} came out 0, as ints: {round(SEPIA[c, k] * 1000)} / "
           "1000 divides an int by an int, which drops the fraction and gives 0 (so does an int "
           f"weight, int w = {SEPIA[c, k]}f)", "write each weight as a float, with a point and "
           f"an f: {'rgb'[c]}2 = " + " + ".join(f"{w}f * {v}" for w, v in zip(SEPIA[c], "rgb"))
           + f" ({round(SEPIA[c, k] * 1000)}.0f / 1000 would divide in float too)")


def _differs(got, want, exact, boundary=0.5):
    """Where ``got`` is not ``want``: exactly, except within ROUNDING_SLACK of the fraction where
    ``want`` steps to the next level (.5 when rounding, 0 when truncating)."""
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    near_step = np.abs(exact - boundary - np.round(exact - boundary)) < ROUNDING_SLACK
    return np.where(near_step, diff > 1, diff > 0)


def mixed_up(rgb, got, layout_hint):
    """The kernels that mix up channels whose output ``got`` is, to a level (``near``): bytes read
    or stored in another order, the matrix transposed, pixel i read from byte i, other weights."""
    straight, models = (0, 1, 2), []
    for pin, pout in itertools.product(itertools.permutations(straight), repeat=2):
        model = np.empty(rgb.shape, np.uint8)
        model[..., list(pout)] = reference(rgb[..., list(pin)])
        parts = [part for part, order in (
            ("reads the input bytes as " + "".join("RGB"[c] for c in pin), pin),
            ("stores R', G', B' at bytes " + ", ".join(f"3*i + {c}" for c in pout), pout))
            if order != straight]
        models.append((model, *(_sums_elsewhere(rgb, got, pout) if pin == straight else (
            "the result is what a kernel gives that " + " and ".join(parts),
            "channels mixed up: " + layout_hint))))
    models.append((reference(rgb, SEPIA), "the result is what the matrix's columns used as its "
                   "rows give", "channels mixed up: " + layout_hint))
    yield from matches(got, models[1:], near)
    flat = np.concatenate([rgb.ravel(), np.full(3, JUNK, np.uint8)])
    for first, step, problem in _reads(*rgb.shape[:2]):
        if near(got, reference(flat[first[..., None] + step * np.arange(3)])):
            yield problem, layout_hint
    yield from _in_place(rgb, got)
    yield from _plus_outside(rgb, got)
    yield from _read_twice(rgb, got)
    yield from _other_weights(rgb, got, layout_hint)


def _sums_elsewhere(rgb, got, pout):
    """(problem, hint) of output channel pout[c] holding channel c's sum, the input read right:
    the stores put at each other's bytes, or the matrix's rows swapped (g2 computed with the blue
    weights), which give the same bytes."""
    moved = sorted((c for c in range(3) if pout[c] != c), key=lambda c: pout[c])
    held = ", ".join(f"the {CHANNEL_NAMES[pout[c]]} bytes hold the {CHANNEL_NAMES[c]} sums"
                     for c in moved)
    want = reference(rgb)
    apart = np.argwhere((want[..., [pout[c] for c in moved]] != want[..., moved]).any(axis=2))
    y, x = apart[0] if apart.size else (0, 0)
    seen = ", ".join(f"{CHANNEL_NAMES[pout[c]]} {got[y, x, pout[c]]}, NumPy's {want[y, x, pout[c]]}"
                     for c in moved)
    stores = ", ".join(f"out[{_byte(pout[c])}] from {'rgb'[c]}2" for c in moved)
    rows = ", ".join(f"{'rgb'[pout[c]]}2 computed with the {CHANNEL_NAMES[c]} weights "
                     f"{', '.join(map(str, SEPIA[c]))}" for c in moved)
    sums = ", ".join(f"{'rgb'[k]}2 = " + " + ".join(f"{w}f * {v}" for w, v in zip(SEPIA[k], "rgb"))
                     for k in sorted(pout[c] for c in moved))
    return (f"{held}, the input read right (x = {x}, y = {y}: {seen}): either the stores are "
            f"swapped ({stores}), or the matrix's rows are ({rows}); the bytes alone cannot tell "
            "which", "channels mixed up: row c of the matrix gives output channel c, stored at "
            f"byte 3*i + c: {sums}, each stored at its own channel's byte")


def _read_twice(rgb, got):
    """A channel read from another channel's byte (b = rgb[3*i + 1]: green read twice, blue
    never), the weights right: every output weighs the byte read in the other's place."""
    for reads in itertools.product(range(3), repeat=3):
        if len(set(reads)) == 3 or not near(got, reference(rgb[..., list(reads)])):
            continue
        wrong = [c for c in range(3) if reads[c] != c]
        told = "; ".join(f"{'rgb'[c]} was read from the {CHANNEL_NAMES[reads[c]]} byte, "
                         f"{_byte(reads[c])}, where {CHANNEL_NAMES[c]} is byte {_byte(c)}"
                         for c in wrong)
        instead = " and ".join(f"{CHANNEL_NAMES[reads[c]]} in place of {CHANNEL_NAMES[c]}"
                               for c in wrong)
        y, x = np.argwhere((got != reference(rgb)).any(axis=2))[0]
        yield (f"{told}: every output channel weighed {instead} (x = {x}, "
               f"y = {y}: r, g, b = {', '.join(str(v) for v in rgb[y, x])}, read as "
               f"{', '.join(str(v) for v in rgb[y, x, list(reads)])})",
               "read each channel from its own byte: " + ", ".join(
                   f"{'rgb'[c]} = rgb[{_byte(c)}]" for c in wrong))
        return


def _plus_outside(rgb, got):
    """A bracket closed too soon: channel c read as rgb[3*i + d] + (c - d), an earlier byte's
    value plus the offset that belongs inside the brackets (g = rgb[3*i] + 1), compared exactly
    (within ROUNDING_SLACK of a rounding step), as a GPU gives it: the sum in float, 255 + 1 is
    256."""
    options = [[None], [None, 0], [None, 0, 1]]   # per channel: right, or the byte d it read
    for reads in itertools.product(*options):
        if all(d is None for d in reads):
            continue
        v = rgb.astype(np.float64)
        for c, d in enumerate(reads):
            if d is not None:
                v[..., c] = rgb[..., d].astype(np.float64) + (c - d)
        exact = v @ SEPIA.T
        if _differs(got, np.minimum(np.floor(exact + 0.5), 255), exact).any():
            continue
        wrong = [(c, d) for c, d in enumerate(reads) if d is not None]
        told = "; ".join(f"{'rgb'[c]} = rgb[{_byte(d)}] + {c - d} is the {CHANNEL_NAMES[d]} byte "
                         f"plus {('one', 'two')[c - d - 1]}, not the {CHANNEL_NAMES[c]} byte"
                         for c, d in wrong)
        y, x = np.argwhere((got != reference(rgb)).any(axis=2))[0]
        offsets = " and + ".join(str(c - d) for c, d in wrong)
        yield (f"{told}: the + {offsets} went outside the "
               f"brackets, onto the value read, not onto the byte's index (x = {x}, y = {y}: "
               f"r, g, b = {', '.join(str(v) for v in rgb[y, x])}, read as "
               f"{', '.join(f'{w:g}' for w in v[y, x])})",
               f"the + {offsets} belong{'s' * (len(wrong) == 1)} inside the brackets, on the "
               "byte's index: " + ", ".join(
                   f"{'rgb'[c]} = rgb[{_byte(c)}]" for c, _ in wrong))
        return


def _byte(c):  # the byte of pixel i's channel c
    return f"3*i + {c}" if c else "3*i"


def _in_place(rgb, got):
    """The channels overwritten in place, one after another (r = ...; g = ...; b = ...): each
    later channel's sum takes the earlier channels' results (unrounded floats) where the input's
    belong; in any order of the three."""
    for order in itertools.permutations(range(3)):
        v = rgb.astype(np.float64)
        for c in order:
            v[..., c] = v @ SEPIA[c]
        if near(got, np.minimum(np.floor(v + 0.5), 255).astype(np.uint8)):
            first, second, third = ("rgb"[c] for c in order)
            yield (f"the channels were overwritten in place: {first} took its sepia value "
                   f"({first} = {SEPIA[order[0]][0]}f * r + ...) before {second} and {third} were "
                   f"computed from it, and {second} before {third}, so they used the new "
                   f"{first} (and {second}) where the input's belong",
                   "keep the input's r, g and b as they are, and put each result in a variable "
                   "of its own: float r2 = 0.393f * r + 0.769f * g + 0.189f * b; float g2 = "
                   "...; float b2 = ...; then store r2, g2 and b2")
            return


def _reads(height, width):
    """(the byte each pixel's red was read from, the step to its green and blue, problem) of
    the kernels that read the input at another place."""
    y, x = np.indices((height, width))
    i = y * width + x
    yield (i, 1, "pixel i was read from bytes i, i + 1 and i + 2: the pixel's index, where its "
           "first byte is 3*i")
    yield (3 * y * width + x, 1, "pixel (x, y) was read from byte 3*y*width + x on: x was not "
           "multiplied by 3, the pixel's first byte is 3*(y*width + x)")
    yield (3 * i + 1, 1, "pixel i was read from bytes 3*i + 1 to 3*i + 3, one byte on: its red "
           "is byte 3*i")
    yield (i, height * width, "the input was read as planar, rgb[i], rgb[i + width*height], "
           "rgb[i + 2*width*height] (all the reds, then all the greens...), but it is "
           "interleaved: r, g, b of a pixel side by side")


def near(got, model) -> bool:
    """Whether the bytes ``got`` are ``model``'s to a level."""
    return bool((np.abs(got.astype(np.int16) - model.astype(np.int16)) <= 1).all())


def four_bytes_a_pixel(rgb, out, thread="thread"):
    """The stores stepping 4 bytes a pixel (out[4 * i], out[4 * i + 1], out[4 * i + 2], as if
    RGBA) where the image is packed RGB: out's bytes 3, 7, 11, ... never written and bytes past
    its end written, the bytes at 4*i to 4*i + 2 pixel i's sums of rgb's bytes 4*i to 4*i + 2
    (the reads step 4 too) or of pixel i's own (they do not), for the pixels read inside rgb."""
    flat, got = rgb.reshape(-1), out.got.reshape(-1)
    if not out.past.size or not np.array_equal(out.unwritten.reshape(-1),
                                               np.arange(flat.size) % 4 == 3):
        return
    pixels = np.arange(flat.size // 4)
    pixels = pixels[4 * pixels + 2 < flat.size]
    at = 4 * pixels[:, None] + np.arange(3)
    if near(got[at], reference(flat[at]).reshape(at.shape)):
        reads = (", and the reads step 4 too (rgb[4 * i], rgb[4 * i + 1], rgb[4 * i + 2]), so "
                 "a pixel's values come from other pixels' bytes")
    elif near(got[at], reference(rgb.reshape(-1, 3)[pixels])):
        reads = ", while the reads take pixel i's own bytes, rgb[3 * i] to rgb[3 * i + 2]"
    else:
        return
    yield ("the kernel steps 4 bytes a pixel (out[4 * i], out[4 * i + 1], out[4 * i + 2]), "
           "where the image is packed RGB, 3 bytes a pixel, with no fourth (alpha) byte: bytes "
           f"3, 7, 11, ... of out were never written, and the {thread}s of the image's last "
           f"quarter wrote past its end{reads}", "pixel i's bytes are 3*i, 3*i + 1 and 3*i + 2 "
           "in rgb and in out alike: read rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2] and store "
           "out[3 * i], out[3 * i + 1], out[3 * i + 2], with i = y * width + x")


DENOMINATORS = (*(2 ** k for k in range(5, 17)), 100)
"""The fractions integer weights may count in, for speed: 1/32ths to 1/65536ths (a shift), and
1/100ths. In 1/1000ths the matrix's weights are whole numbers, and the sums right."""


def _fixed_point(rgb, denominator, to_whole, half):
    """The sepia of a kernel whose weights are integers in 1/``denominator``ths (the matrix's
    times the denominator, made whole by ``to_whole``), with ``half`` added before the division:
    its weights and its output."""
    weights = to_whole(SEPIA * denominator).astype(np.int64)
    sums = (rgb.astype(np.int64) @ weights.T + half) // denominator
    return weights, np.minimum(sums, 255).astype(np.uint8)


def integer_weights(rgb, got, wrong):
    """The sepia of a kernel whose weights are integers in 1/Dths (``DENOMINATORS``), rounded or
    cut from the matrix's, its sums rounded (+ D / 2) or cut before the division: equal to
    ``got`` everywhere, where ``wrong`` (where it is not NumPy's) is not empty."""
    want = reference(rgb)
    off = int(np.abs(got.astype(int) - want.astype(int)).max())
    y, x, c = np.argwhere(wrong)[0]
    at = (f"x = {x}, y = {y}, {CHANNEL_NAMES[c]}: got {got[y, x, c]}, expected "
          f"{want[y, x, c]}")
    for d, to_whole, half in itertools.product(DENOMINATORS, (np.round, np.floor), (1, 0)):
        weights, model = _fixed_point(rgb, d, to_whole, half * d // 2)
        if np.array_equal(got, model):
            w = weights[0]
            yield (f"{int(wrong.sum())} of {got.size} values are {'one' if off == 1 else 'up to'}"
                   f"{'' if off == 1 else f' {off}'} off ({at}): the weights are integers in "
                   f"1/{d}ths, {w[0]}, {w[1]} and {w[2]} for red and so on, which are not the "
                   f"matrix's: {w[0]} / {d} = {w[0] / d:.4f}, not {SEPIA[0, 0]}, so the sums come "
                   f"out slightly off{'' if half else ', and are cut, not rounded'}, and land on "
                   "the next level in many pixels", "keep the matrix's float weights: float r2 = "
                   "0.393f * r + 0.769f * g + 0.189f * b, and so on, then (unsigned char)fminf(r2 "
                   f"+ 0.5f, 255.0f): no whole number of 1/{d}ths is 0.393 (integers in "
                   "1/1000ths are: (393 * R + 769 * G + 189 * B + 500) / 1000)")
            return
