"""Models of wrong ``sepia_x16`` kernels (``helpers.exercises.sepia_x16``) whose whole groups
come out wrong in a way the checker's other models miss: what such a kernel gives for each group
of 16 pixels, compared with what the kernel under test gave, to a level; and the same mistakes where the
simulator stopped the kernel instead (a misaligned uint4, a sum below 0 converted to unsigned);
and the groups' bytes ORed into res[] that was not zeroed (``res_not_zeroed``); and byte_of
shifting left (``shifted_left``)."""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import sepia
from helpers.exercises.sepia_models import ROUNDING_SLACK

BY_COMPONENT = [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
"""w[] = {a.x, b.x, c.x, a.y, b.y, c.y, ...}: the loaded words taken component by component."""
HIGH_TO_LOW = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]
"""w[] = {a.w, a.z, a.y, a.x, b.w, ...}: each uint4's components taken high to low."""
STORE_HINT = ("dst[q] = make_uint4(res[4 * q], res[4 * q + 1], res[4 * q + 2], res[4 * q + 3]): "
              "uint4 q of the group's out is words 4q to 4q + 3 of res[]")
SIGNED_PROBLEM = ("bytes of 128 and more became negative: the channels were read into a signed "
                  "char, which holds -128 to 127, so 128 to 255 turned into -128 to -1")
SIGNED_HINT = ("read the channels as unsigned char (or float): float r = byte_of(w, 3 * p), "
               "g = byte_of(w, 3 * p + 1), bl = byte_of(w, 3 * p + 2) keeps each byte's 0 to "
               "255")
LOWEST_SUM = 0.5 - 128 * float(sepia.SEPIA.sum(axis=1).max())
"""The lowest sepia sum (+ 0.5, as it is converted) of channels read as signed chars."""
ONE_BYTE_A_PIXEL = (np.arange(16)[:, None] + np.arange(3)).ravel()
"""Pixel p's channels read at bytes p, p + 1, p + 2 of its group: the loads' 3 * p missing."""
W_HINT = ("unsigned int w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, ..., c.w}: word k of w[] is "
          "bytes 4k to 4k + 3 of the group")
BY_WORD = ("byte_of shifts by 8 * (k >> 2), 8 bits per word of the byte's word index, where the "
           "shift is 8 * (k & 3), the byte's place in its word (0 to 3)")
BY_WORD_HINT = ("k >> 2 picks the word and k & 3 the byte in it: return (w[k >> 2] >> (8 * (k & "
                "3))) & 0xFFu")


def _shift_by_word(groups):
    """The bytes byte_of reads with the shift 8 * (k >> 2), as a GPU gives them: 0 at 32 and up."""
    k = np.arange(48)
    words = groups.reshape(len(groups), 12, 4).view("<u4")[..., 0].astype(np.int64)
    shift = 8 * (k >> 2)
    return np.where(shift < 32, (words[:, k >> 2] >> np.minimum(shift, 31)) & 0xFF, 0).astype(np.uint8)


def conversion_or_shift(failure):
    """A negative sum converted to unsigned, or byte_of's shift by the word's index."""
    if failure.kind == "conversion":
        yield from negative_sum(failure.error)
    if failure.kind == "shift":
        yield from shift_by_word(failure.error, failure.launch, failure.block)


def shift_by_word(err, launch, block):
    """A shift by 32 or more of thread t's word w[count / 8] (a shift 8 * (k >> 2)): byte_of
    shifted word k >> 2 by 8 bits per word index, where it shifts by 8 * (k & 3)."""
    rgb = getattr(launch, "model", None)
    if err.operator != ">>" or err.count < 32 or err.count % 8 or rgb is None or not block:
        return
    t, word = err.block[0] * block[0] + err.thread[0], err.count // 8
    words = rgb.ravel()[:48 * (rgb.size // 48)].view("<u4")
    if word < 12 and 12 * t + word < words.size and int(words[12 * t + word]) == err.operand:
        yield (f"{BY_WORD}: thread {t}'s byte_of(w, k) for k = {4 * word} to {4 * word + 3} "
               f"shifted w[{word}] = {err.operand} by 8 * {word} = {err.count}, past a 32-bit "
               "word's 4 bytes (their shifts are 0, 8, 16 and 24)", BY_WORD_HINT)


def _tone(groups):
    """The sepia bytes of groups (g, 48) of interleaved RGB, as the 16 pixels' r, g, b."""
    return sepia.reference(groups.reshape(len(groups), 16, 3)).reshape(len(groups), 48)


def _signed_tone(groups):
    """``_tone`` of channels read as signed chars, as a GPU gives it: a sum below 0 converts to
    unsigned int as 0 (its conversion saturates)."""
    sums = groups.view(np.int8).reshape(len(groups), 16, 3) @ sepia.SEPIA.T + 0.5
    return np.clip(np.floor(sums), 0, 255).astype(np.uint8).reshape(len(groups), 48)


def mistakes(rgb, got, n, junk):
    """(problem, hint) of each model that gives the whole groups of ``got`` (none with n < 16);
    ``junk``: what the launch put after the image (a read past it finds that)."""
    groups = n // 16
    if not groups:
        return
    flat = np.concatenate([rgb.ravel(), np.full(96 * groups + 48, junk, np.uint8)])
    loaded = flat[:48 * groups].reshape(groups, 48)
    mine = got.ravel()[:48 * groups].reshape(groups, 48)
    twice = flat[96 * np.arange(groups)[:, None] + np.arange(48)]
    by_component = loaded.reshape(groups, 12, 4)[:, BY_COMPONENT].reshape(groups, 48)
    yield from _four_bytes_a_pixel(loaded, mine)
    yield from _uint4s_apart(flat, groups, mine)
    yield from _reads_swapped(rgb, got, loaded, mine)
    for model, problem, hint in (
            (_tone(twice), "thread t loaded uint4 6t, 6t + 1 and 6t + 2, not 3t to 3t + 2: "
             "src already points at thread t's first uint4, and src[3 * t] adds the 3t again",
             "src = (const uint4 *)rgb + 3t is thread t's first uint4: its three are "
             "uint4 a = src[0], b = src[1], c = src[2]"),
            (loaded | _tone(loaded), "each result byte is the input byte with the sepia value "
             "ORed into it: set_byte put the results into w[], which still holds the loaded "
             "pixels, and w[] was stored", "set_byte ORs its byte in: put the results into 12 "
             "other words that start at 0, unsigned int res[12] = {0u, ...}, and store res[]"),
            (_tone(by_component), "w[] holds the loaded words component by component, {a.x, "
             "b.x, c.x, a.y, ...}: the pixels' bytes are read out of order", W_HINT),
            (_tone(_words(loaded, HIGH_TO_LOW)), "w[] holds each uint4's components high to "
             "low, {a.w, a.z, a.y, a.x, b.w, ...}: the pixels' bytes are read out of order",
             W_HINT),
            (_tone(_red_plus(loaded)), "the groups' green and blue were read as each pixel's "
             "red value plus 1 and plus 2: the + 1 and + 2 went onto the byte byte_of(w, 3 * p) "
             "returned, red's, not onto its index", "add to the byte's index, inside the call: "
             "g = byte_of(w, 3 * p + 1), bl = byte_of(w, 3 * p + 2)"),
            (_tone(loaded[:, ONE_BYTE_A_PIXEL]), "pixel p's red, green and blue were read "
             "from bytes p, p + 1 and p + 2 of its group, where they are bytes 3p, 3p + 1 and "
             "3p + 2: the loads lack the factor 3 (byte_of(w, p), byte_of(w, p + 1), byte_of(w, "
             "p + 2)), which the stores have", "pixel p's bytes "
             "start at 3 * p: float r = byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = "
             "byte_of(w, 3 * p + 2)"),
            (_signed_tone(loaded), f"{SIGNED_PROBLEM}: the groups' values are what a kernel "
             "gives that reads them so (their sums came out too low, or 0)", SIGNED_HINT),
            (_tone(_shift_by_word(loaded)), f"{BY_WORD}: on a GPU a shift by 32 or more "
             "gives 0 (its shr clamps the count), so bytes 16 to 47 read 0, and bytes 0 to 15 "
             "read bytes 0, 5, 10 and 15 four times each", BY_WORD_HINT),
            *_stores(_tone(loaded))):
        if sepia.near(mine, model):
            yield problem, hint
    yield from _store_word_swapped(_tone(loaded), mine)


RGBA_PIXELS = 12
"""Pixels 0 to 11 of a group read at bytes 4p to 4p + 2 lie within w[]'s 48 bytes; 12 to 15
read past its end (what they get there is not known, on a GPU)."""


def _four_bytes_a_pixel(loaded, mine):
    """(problem, hint) where the groups' pixels 0 to 11 are what reading pixel p's red, green
    and blue at bytes 4p, 4p + 1 and 4p + 2 of the group gives (an RGBA habit); pixels 12 to 15
    are left out."""
    rgba = loaded[:, [4 * p + c for p in range(RGBA_PIXELS) for c in range(3)]]
    model = sepia.reference(rgba.reshape(len(loaded), RGBA_PIXELS, 3))
    if sepia.near(mine[:, 3:3 * RGBA_PIXELS], model.reshape(len(loaded), -1)[:, 3:]) and \
            not sepia.near(mine[:, 3:6], _tone(loaded)[:, 3:6]):
        yield ("each group's pixel p was read at bytes 4p, 4p + 1 and 4p + 2, 4 bytes a pixel "
               "as in RGBA (pixels 1 to 11 came out so, and 12 to 15 read past w[]'s 48 bytes)",
               "RGB pixels are 3 bytes: byte_of(w, 3 * p + c), red, green and blue at 3p, "
               "3p + 1 and 3p + 2")


def _reads_swapped(rgb, got, loaded, mine):
    """(problem, hint) where the groups are what a loop gives whose byte_of calls read pixel p's
    channels from each other's bytes (r, g, bl at 3 * p + pin[c]); the tail's told right."""
    right, want = _tone(loaded), sepia.reference(rgb.reshape(1, -1, 3)).ravel()
    tail = got.ravel()[mine.size:want.size]
    for pin in itertools.permutations(range(3)):
        model = _tone(loaded.reshape(len(loaded), 16, 3)[:, :, list(pin)].reshape(len(loaded), 48))
        if pin == (0, 1, 2) or not sepia.near(mine, model) or sepia.near(mine, right):
            continue
        moved = [c for c in range(3) if pin[c] != c]
        k = int(np.argmax((right != model).reshape(-1, 3).any(axis=1)))
        reads = ", ".join(f"{('r', 'g', 'bl')[c]} = byte_of(w, 3 * p + {pin[c]})" for c in moved)
        yield (f"in the 16-pixel loop, {' and '.join(('r', 'g', 'bl')[c] for c in moved)} were read from "
               f"{'each other' if len(moved) == 2 else 'one another'}'s bytes, {reads}: the "
               f"groups' pixel {k} came out {tuple(int(v) for v in mine.reshape(-1, 3)[k])}, "
               f"NumPy's {tuple(int(v) for v in right.reshape(-1, 3)[k])}"
               + (" (the tail, which sepia_pixel reads, is right)" if tail.size and
                  sepia.near(tail, want[mine.size:]) else ""),
               "pixel p's red, green and blue are bytes 3p, 3p + 1 and 3p + 2 of its group: "
               "float r = byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), bl = byte_of(w, 3 * p "
               "+ 2)")
        return


def _red_plus(groups):
    """Groups (g, 48) of bytes as a kernel reads them that takes each pixel's green and blue as
    its red's value plus 1 and 2 (floats: 255 + 2 is 257)."""
    red = groups.reshape(len(groups), 16, 3)[:, :, :1].astype(np.float64)
    return np.concatenate([red, red + 1, red + 2], axis=2).reshape(len(groups), 48)


def _words(groups, order):
    """Groups (g, 48) of bytes as 12 words each, taken in ``order`` (12 word numbers)."""
    return groups.reshape(len(groups), 12, 4)[:, order].reshape(len(groups), 48)


def _store_word_swapped(right, mine):
    """(problem, hint) where the groups' out words are res[]'s right words, each in its own
    place but one, word k, which holds word j's (a copy slip in a make_uint4 of the stores)."""
    words = np.stack([right.reshape(len(right), 12, 4)[:, j] for j in range(12)])
    got = mine.reshape(len(mine), 12, 4)
    matches = [[j for j in range(12) if sepia.near(got[:, k], words[j])] for k in range(12)]
    bad = [k for k in range(12) if k not in matches[k]]
    if len(bad) != 1 or len(matches[bad[0]]) != 1 or len(right) < 2:
        return
    k, j = bad[0], matches[bad[0]][0]
    yield (f"dst[{k // 4}]'s {'xyzw'[k % 4]} component (bytes {4 * k} to {4 * k + 3} of each "
           f"group) holds res[{j}], where res[{k}] belongs: bytes {4 * k} to {4 * k + 3} of every "
           f"group of 48 hold the right values of bytes {4 * j} to {4 * j + 3}, and every other "
           f"word is right", f"word {k} of res[] goes to dst[{k // 4}].{'xyzw'[k % 4]}: "
           + STORE_HINT)


def _stores(right):
    """(model, problem, hint) of stores whose uint4 q holds res[a * q] to res[a * q + 3], a not
    4, or res[4q + 3] down to res[4q] (``right``: the groups' right bytes, which res[] holds)."""
    yield (_words(right, HIGH_TO_LOW), "each stored uint4 holds its 4 words of res[] in reverse "
           "order, make_uint4(res[3], res[2], res[1], res[0]): make_uint4(x, y, z, w) puts x at "
           "the lowest address, so bytes 0 to 3 of each group of out hold res[3], the results' "
           "bytes 12 to 15, where res[0] belongs", "keep res[]'s order, x first: "
           "dst[0] = make_uint4(res[0], res[1], res[2], res[3]), and likewise dst[1] and dst[2]")
    for a in range(4):
        first = f"{a if a > 1 else ''}q" if a else "0"
        last = f"{first} + 3" if a else "3"
        yield (_words(right, [a * q + f for q in range(3) for f in range(4)]),
               f"the group's uint4 q of out holds res[{first}] to res[{last}], "
               "where it should hold res[4q] to res[4q + 3]: the three stores take "
               f"{'the same' if a == 0 else 'overlapping'} words of res[]", STORE_HINT)


def misaligned_hint(err, block):
    """The hint for a uint4 load or store that a GPU refuses as a "misaligned address" (on the
    simulator a MisalignedAddressError: its byte in rgb or out, ``offset``, and its thread;
    ``block``, the launch's): (const uint4 *)(rgb + 3 * t) adds 3t bytes, not 3t uint4."""
    t = err.block[0] * block[0] + err.thread[0]
    name, cast = ("out", "(uint4 *)") if err.is_write else ("rgb", "(const uint4 *)")
    cure = (f"cast first, then add: {cast}{name} + 3 * t moves 3t uint4 of 16 bytes, to byte "
            "48t, where thread t's 16 pixels start, a multiple of 16")
    if t and err.offset - 3 * t in (0, 16, 32):
        return (f"thread {t}'s uint4 lay at byte {err.offset} = 3 * {t} + {err.offset - 3 * t} "
                f"of {name}: {cast}({name} + 3 * t) adds 3t bytes, then casts; {cure}")
    return (f"thread {t}'s uint4 lay at byte {err.offset} of {name}, {err.misalignment} past a "
            f"multiple of 16; {cure}")


def negative_sum(err):
    """(problem, hint) of a conversion that stopped on a sepia sum below 0 (its ``value``, the
    sum + 0.5) but no lower than channels of -128 give: with weights all positive, only a channel
    below 0 makes one, a byte of 128 or more read as a signed char (-128 to -1)."""
    value, to_type = getattr(err, "value", None), getattr(err, "to_type", None) or ""
    if value is None or not to_type.startswith("unsigned") or \
            not LOWEST_SUM - 1e-3 <= value < 0:
        return
    yield (f"{SIGNED_PROBLEM}: a sepia sum came out {value:g} (thread "
           f"{err.thread[0]} of block {err.block[0]}), which bytes 0 to 255 with sepia's positive "
           f"weights never give, and its conversion to {to_type} stopped the kernel (a GPU gives "
           "0 there)", SIGNED_HINT)


def _uint4s_apart(flat, groups, mine):
    """(problem, hint) where each group is what thread t gives from uint4 src[0], src[k] and
    src[2k], k = 2 to 4 (k = 4: the uint4 counted as 4 words), not src[0], src[1], src[2]; a
    group's first 15 bytes (pixels 0 to 4) alike in both. ``flat``: the input and its junk."""
    base = 48 * np.arange(groups)[:, None]
    for k in (2, 3, 4):
        picked = np.concatenate([flat[base + 16 * k * u + np.arange(16)] for u in range(3)], axis=1)
        if sepia.near(mine, _tone(picked)) and not sepia.near(mine, _tone(flat[base + np.arange(48)])):
            words = " (counting 32-bit words, 4 to a uint4, where src counts uint4)" * (k == 4)
            yield (f"thread t took its three uint4 {k} apart, src[0], src[{k}] and src[{2 * k}]"
                   f"{words}: only the first (bytes 0 to 15 of the group) was its own; the other two are "
                   f"uint4 3t + {k} and 3t + {2 * k}, other groups' bytes",
                   "src points at thread t's first uint4, and its group's 48 bytes are the "
                   "three side by side: uint4 a = src[0], b = src[1], c = src[2]")


def _unclamped_bytes(rgb, n, bound=None):
    """(bytes, known) of a kernel whose sepia_channel does not clamp (``bound`` None) or clamps
    at ``bound`` past 255: each channel's sum rounded to a whole number v, past 255 too; in the
    groups set_byte ORs v << 8 * (k & 3) into its word, its bits above the byte into the next
    byte (those of a word's top byte are lost), and the tail stores v wrapped to a byte.
    ``known``: False at a sum within the rounding slack of a .5 (where the kernel's float may
    round the other way) and at the byte after it."""
    exact = (rgb.astype(np.float64) @ sepia.SEPIA.T).ravel() + 0.5
    v = np.floor(exact if bound is None else np.minimum(exact, bound)).astype(np.uint64)
    whole = 48 * (n // 16)
    k = np.arange(whole)
    words = np.bitwise_or.reduce((v[:whole] << (8 * (k & 3)).astype(np.uint64)).reshape(-1, 4),
                                 axis=1) & 0xFFFFFFFF
    model = np.concatenate([words.astype("<u4").view(np.uint8), (v[whole:] & 0xFF).astype(np.uint8)])
    unsure = np.abs(exact - np.round(exact)) < ROUNDING_SLACK
    return model, ~(unsure | np.concatenate([[False], unsure[:-1]]))


CLAMP_HINT = ("clamp in sepia_channel before the conversion, at 255, the largest value a byte "
              "holds: return (unsigned int)fminf(wr * r + wg * g + wb * b + 0.5f, 255.0f);")


def unclamped(rgb, got, n):
    """out is what a kernel gives whose sepia_channel does not clamp, or clamps at 256.0f
    (``_unclamped_bytes``), in every byte known, and some sum goes past 255 (reaches 255.5, with
    the 0.5 of the rounding, for the clamp at 256)."""
    exact, mine = rgb.astype(np.float64) @ sepia.SEPIA.T + 0.5, got.ravel()
    past = exact >= 256
    for bound in (None, 256):
        model, known = _unclamped_bytes(rgb, n, bound)
        if past.any() and np.array_equal(mine[known], model[known]):
            break
    else:
        return
    p, c = (int(a[0]) for a in np.nonzero(past))
    where = (f"pixel {p}, {sepia.CHANNEL_NAMES[c]}: the sum is {exact[p, c] - 0.5:.1f}, got "
             f"{got[p, c]}, expected 255")
    if bound is None:
        yield (f"{int(past.sum())} sums go past 255, and each came out as if not clamped "
               f"({where}): sepia_channel does not clamp: a sum past 255 keeps its bits above "
               "the byte, which set_byte ORs into the next byte of the group, and which the "
               "tail's byte store drops (256 + 5 becomes 5)", CLAMP_HINT)
        return
    yield (f"{int(past.sum())} sums are 255.5 or more, and each came out as 256 in a byte "
           f"({where}): "
           "sepia_channel clamps at 256.0f, not 255.0f: a sum of 255.5 or more converts to 256, "
           "which a byte cannot hold: set_byte ORs its bit 8 into the next byte of the group "
           "(its own byte keeps 0), and the tail's byte store drops it (256 becomes 0)",
           CLAMP_HINT)


def res_not_zeroed(rgb, got, n):
    """The groups' bytes are NumPy's with more bits set, the same at each of a group's 48 places
    in every group, the tail (no res[]) right: set_byte ORed into res[] that was not zeroed."""
    groups, tail = n // 16, slice(16 * (n // 16), n)
    if not groups or sepia._differs(got[None, tail], sepia.reference(rgb[None, tail]),
                                    rgb[None, tail] @ sepia.SEPIA.T).any():
        return
    model = sepia.reference(rgb[None, :16 * groups]).reshape(groups, 48)
    junk = np.bitwise_and.reduce(got[:16 * groups].reshape(groups, 48), axis=0)
    if (junk & ~model).any() and sepia.near(got[:16 * groups].reshape(groups, 48), model | junk):
        k = int(np.flatnonzero(junk)[0])
        yield (f"the groups' result bytes are NumPy's with more bits set, the same in every group "
               f"(byte {k} of each has the bits 0x{junk[k]:02X} set): set_byte ORed each byte "
               "into res[] that held junk, as a local array that is not initialised does",
               "start the 12 result words at 0 (unsigned int res[12] = {0u, ...}), as the TODO "
               "says: set_byte ORs its byte in (|=) and keeps the word's other bits")


def unmasked(rgb, got, n):
    """byte_of without its & 0xFFu: byte k of a group read as its word shifted down by 8 (k & 3)
    bits, the bytes above it coming along (a channel over 255 clamps its sums to 255), the tail
    (read byte by byte) right."""
    groups = n // 16
    if not groups:
        return
    words = rgb.ravel()[:48 * groups].copy().view("<u4").reshape(groups, 12).astype(np.float64)
    k = np.arange(48)
    values = np.floor(words[:, k >> 2] / 2.0 ** (8 * (k & 3)))
    model = np.clip(np.floor(values.reshape(groups, 16, 3) @ sepia.SEPIA.T + 0.5), 0, 255)
    model = model.astype(np.uint8).reshape(groups, 48)
    tail = slice(16 * groups, n)   # read byte by byte: right
    if (model != _tone(rgb.ravel()[:48 * groups].reshape(groups, 48))).any() and \
            _clamped_as(got.ravel()[:48 * groups].reshape(groups, 48), model) and not \
            sepia._differs(got[None, tail], sepia.reference(rgb[None, tail]),
                           rgb[None, tail] @ sepia.SEPIA.T).any():
        yield ("byte_of returned the word shifted down without its & 0xFFu mask: byte k came "
               "with the bytes above it in its word (byte 0 of a group read as the whole word "
               f"{int(words[0, 0])}, not {int(rgb.ravel()[0])}), so the channels' sums went "
               "past 255 and clamped there", "keep only the lowest 8 bits: return (w[k >> 2] "
               ">> (8 * (k & 3))) & 0xFFu;")


def _clamped_as(mine, model):
    """``mine`` is ``model``: exactly where the model clamped to 255, to a level elsewhere."""
    return bool(np.array_equal(mine[model == 255], model[model == 255])
                and sepia.near(mine, model))


LEFT_HINT = ("shift right, to bring byte k down to the lowest 8 bits before the mask: return "
             "(w[k >> 2] >> (8 * (k & 3))) & 0xFFu;")


def shifted_left(rgb, got, n):
    """byte_of shifting its word left, (w[k >> 2] << (8 * (k & 3))) & 0xFFu: byte 0 of each word
    read right, bytes 1 to 3 read as 0 (their bits moved up, past the mask), on a GPU alike."""
    groups = n // 16
    if not groups:
        return
    loaded = rgb.ravel()[:48 * groups].reshape(groups, 48)
    read = np.where(np.arange(48) % 4 == 0, loaded, 0).astype(np.uint8)
    mine = got.ravel()[:48 * groups].reshape(groups, 48)
    if sepia.near(mine, _tone(read)) and not sepia.near(mine, _tone(loaded)):
        yield ("byte_of shifts the word left (<<) where it must shift right (>>): bytes 1 to 3 "
               "of each word read as 0 (their bits moved up, out of the & 0xFFu mask), only "
               "byte 0 kept, so the first group's pixel 0 was read as (r, g, b) = "
               f"({read[0, 0]}, {read[0, 1]}, {read[0, 2]}), not ({loaded[0, 0]}, "
               f"{loaded[0, 1]}, {loaded[0, 2]})", LEFT_HINT)
