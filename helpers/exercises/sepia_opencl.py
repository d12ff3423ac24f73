"""Checker for notebook 12's exercise: notebook 04's sepia kernel ported to OpenCL
(``cuda_src/opencl/exercises/sepia.cl``).

It runs the kernel as ``helpers.exercises.sepia`` runs CUDA's, on its cases and launches, and
names the mistakes of a port (a local id where the global one belongs, the dimensions swapped, a
cast where a saturating conversion belongs) in OpenCL's words. On Oclgrind it also reads
Oclgrind's reports of accesses outside a buffer, which name the line of the kernel.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from helpers.exercises import near
from helpers.exercises import sepia
from helpers.exercises.coverage import Words
from helpers.exercises.opencl_kernel import (OpenCLExercise, buffers_out_first, code_line,
                                             kernel_code, one_global_id, sides_swapped)
from helpers.exercises.sepia import CASES
from helpers.exercises.sepia_guard import read_before_the_guard
from helpers.exercises.sepia_models import CHANNEL_NAMES, ROUNDING_SLACK, four_bytes_a_pixel
from helpers.exercises.sepia_opencl_offset import row_not_tripled
from helpers.exercises.sepia_opencl_vload import vector_offsets_in_bytes, vload_offset_in_bytes
from helpers.exercises.verdict import listed

INDEX_HINT = ("x = get_global_id(0) (the column), y = get_global_id(1) (the row), pixel "
              "i = y * width + x; get_local_id is the position inside the work-group only "
              "(CUDA's threadIdx)")
GUARD_HINT = ("the global range is rounded up to whole work-groups, so some work-items lie "
              "outside the image: start the kernel with if (x >= width || y >= height) return;")
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT, block="work-group",
              thread="work-item", forgot=("x and y use get_local_id", "x uses get_local_id",
                                          "y uses get_local_id"),
              store_hint="each work-item should store its three results in out[3*i], "
                         "out[3*i + 1], out[3*i + 2], with i = y * width + x: an index that lands "
                         "outside out writes nothing the checker can see (a GPU gives no error "
                         "for it)")
WILD_HINT = INDEX_HINT + "; and " + GUARD_HINT
CLAMP_HINT = ("convert_uchar_sat(value + 0.5f) rounds to the nearest level and clamps to 0..255; "
              "a plain (uchar) cast of a float above 255 does not stop at 255")
LAYOUT_HINT = ("pixel i's red, green and blue are at 3*i, 3*i + 1 and 3*i + 2, in rgb and in out "
               "alike, and row c of the matrix gives output channel c: "
               "out[3*i] = convert_uchar_sat(0.393f*r + 0.769f*g + 0.189f*b + 0.5f), and so on")


def _reports(messages, _case=None, kernel_code=None):
    """The accesses outside a buffer that Oclgrind reported (on a GPU, none)."""
    outside = [m for m in messages if m.kind.startswith("Invalid")]
    if outside:
        m = min(outside, key=lambda m: m.work_items)
        yield (f"Oclgrind reported {len(outside)} accesses outside a buffer, the first by "
               f"work-item {m.work_items[0][:2]}: {m.kind.lower()} at "
               f"{m.where or 'an unknown line'}", WILD_HINT)


def _mistakes(case, run, reports):
    # the index multiplied by 3 twice: every third pixel right, the rest past the end (before
    # Oclgrind's reports of the reads past rgb, which name only their line)
    code = kernel_code(run.kernel)
    yield from vector_offsets_in_bytes(run.model, run.out, code)  # the same, from vload3, vstore3
    yield from sepia._tripled(run.model, run.out, "work-item")
    yield from _uchar3_buffers(run.model, run.out, code)  # the same stride, from uchar3 *
    yield from four_bytes_a_pixel(run.model, run.out, "work-item")  # RGBA's stride, reads past rgb
    yield from _row_step_scaled(run.model, run.out, code)  # reads past rgb
    yield from vload_offset_in_bytes(run.model, run.out, code)  # reads past rgb
    yield from reports
    yield from _sides_swapped(case, run.model, run.out, code)
    yield from _one_global_id(run.model, run.out)
    yield from _stored_over_another(run.model, run.out, code)
    if run.out.unwritten.all():
        yield from buffers_out_first(code, "sepia", EXERCISE.signature)
    yield from row_not_tripled(run.model, run.out, code)  # every byte written, rows shifted
    yield from sepia.written_mistakes(run.out, case, WORDS, WILD_HINT, GUARD_HINT)
    yield from _wrong_values(run.model, run.out.got, code)
    yield from read_before_the_guard(case, code, "sepia", functools.partial(code_line, code),
                                     "work-item", "the range is {} x {}", "a buffer")


def _uchar3_buffers(rgb, out, code):
    """The stores stepping 4 bytes a pixel (``four_bytes_a_pixel``) through pointers the code
    declares uchar3 * (named as it declares them): an OpenCL uchar3 takes a uchar4's 4 bytes
    (a 3-vector has a 4-vector's size), so out[i] is bytes 4*i to 4*i + 2."""
    names = list(dict.fromkeys(re.findall(r"\buchar3\s*\*\s*(?:const\s+|restrict\s+)*(\w+)",
                                          code)))
    if not names or next(four_bytes_a_pixel(rgb, out, "work-item"), None) is None:
        return
    which, steps = " and ".join(names), " and ".join(f"{name}[i]" for name in names)
    yield (f"{which} {'are' if len(names) > 1 else 'is'} declared uchar3 *: in OpenCL a uchar3 "
           "takes 4 bytes, like a uchar4 (a 3-vector has a 4-vector's size), so "
           f"{steps} step{'' if len(names) > 1 else 's'} 4 bytes a pixel (bytes 4*i to 4*i + 2), "
           "where the image is packed RGB, 3 bytes a pixel: bytes 3, 7, 11, ... of out were never "
           "written, and the work-items of the image's last quarter wrote past its end",
           f"declare {which} as uchar * and take pixel i's bytes one by one: read rgb[3 * i], "
           "rgb[3 * i + 1], rgb[3 * i + 2] and store out[3 * i], out[3 * i + 1], out[3 * i + 2], "
           "with i = y * width + x")


def _stored_over_another(rgb, out, code):
    """One channel's byte never written in any pixel, the others all, and another channel's bytes
    holding its values: its result was stored at that channel's byte, after that channel's own
    store (a slip in the store's offset; its line, the code's last store at that offset)."""
    unwritten, exact, want = out.unwritten, rgb @ sepia.SEPIA.T, sepia.reference(rgb)
    byte = ["out[3*i]", "out[3*i + 1]", "out[3*i + 2]"]
    for c, k in ((c, k) for c in range(3) for k in range(3) if k != c):
        if not unwritten[..., c].all() or unwritten[..., k].any() or sepia._differs(
                out.got[..., k], want[..., c], exact[..., c]).any():
            continue
        name, other = CHANNEL_NAMES[c], CHANNEL_NAMES[k]
        stores = [m for m in re.finditer(r"\bout\s*\[\s*3\s*\*\s*i\s*(?:\+\s*([12])\s*)?\]\s*=",
                                         code) if int(m[1] or 0) == k]
        said = (f"the {name} store at line {code_line(code, stores[-1].start())} "
                f"({' '.join(stores[-1].group().split())} ...)" if len(stores) > 1 else
                f"the {name} result was stored at {byte[k]}, which")
        yield (f"no pixel's {name} byte ({byte[c]}) was written, and every {other} byte holds the "
               f"{name} value: {said} writes {other}'s byte, over the {other} result",
               f"store {name} at {byte[c].replace('*', ' * ')}")
        return


def _row_step_scaled(rgb, out, code):
    """Only rows 0, k, 2k, ... of the image written (k = 2 to 4), each right: the pixel index
    steps k rows a row (i = y * 3 * width + x, a row taken as 3 * width bytes while the reads
    and stores still multiply i by 3), so row y of work-items does image row k * y and the rows
    from y = height / k on run past the end of rgb and out (named as the code writes it)."""
    height = rgb.shape[0]
    written = ~out.unwritten.any(axis=2)
    right = ~sepia._differs(out.got, sepia.reference(rgb), rgb @ sepia.SEPIA.T).any(axis=2)
    for k in (2, 3, 4):
        rows = np.arange(height) % k == 0
        if height <= k or not (written.all(axis=1) == rows).all() or written[~rows].any() or \
                not right[rows].all():
            continue
        line = re.search(rf"\bint\s+(\w+\s*=\s*[^;]*\b{k}\b[^;]*\bwidth\b[^;]*|\w+\s*=\s*"
                         rf"[^;]*\bwidth\b[^;]*\b{k}\b[^;]*);", code)
        said = (f"the pixel index, {' '.join(line[1].split())}," if line else "the pixel index")
        inside = -(-height // k)
        yield (f"only rows 0, {k}, {2 * k}, ... of the image were written ({inside} of {height} "
               f"rows), each right: {said} steps {k} rows a row, so the work-items of row y did "
               f"image row {k} * y (row 1 did row {k}), and the work-items from y = {inside} on ran "
               f"past the end of rgb and out (row {height - 1} went to row {k * (height - 1)}); the "
               "reads and stores multiply i by 3 already", "the pixel index counts pixels, not "
               "bytes: i = y * width + x; a pixel's 3 bytes come in once, in rgb[3 * i], "
               "rgb[3 * i + 1], rgb[3 * i + 2] (and out's alike)")
        return


def _sides_swapped(case, rgb, out, code):
    """The kernel's width and height the host's other way round (``sides_swapped``): each pixel
    is its own, so the pixels written, rows height pixels long, are right. Only where some pixels
    were never written: a range that covers the image both ways round has such a kernel write
    every pixel, right, as a right kernel does."""
    right = ~sepia._differs(out.got, sepia.reference(rgb), rgb @ sepia.SEPIA.T).any(axis=2)
    if not out.past.size and out.unwritten.any():
        yield from sides_swapped(case, out.unwritten.any(axis=2), right.ravel(), code,
                                 "__global uchar *out")


def _one_global_id(rgb, out):
    """x and y from the same dimension of the range: the diagonal x == y alone written, right
    (the mirror exercise's detector, on whole pixels)."""
    if out.unwritten.any():
        right = ~sepia._differs(out.got, sepia.reference(rgb), rgb @ sepia.SEPIA.T).any(axis=2)
        yield from one_global_id(~out.unwritten.any(axis=2), right)


def _wrong_values(rgb, got, code=""):
    """Mistakes the values show once every byte was written (none when the kernel is right)."""
    exact, want = rgb @ sepia.SEPIA.T, sepia.reference(rgb)
    wrong = sepia._differs(got, want, exact)
    if not wrong.any():
        return
    yield from _signed_store(got, want, exact, code)
    yield from _signed(rgb, got, code)
    yield from _int_sums(rgb, got, code)
    yield from _rounded_twice(rgb, got, code)
    at = tuple(np.argwhere(wrong)[0])
    first = (f"x = {at[1]}, y = {at[0]}, {sepia.CHANNEL_NAMES[at[2]]}: got {got[at]}, "
             f"expected {want[at]}, the exact sum is {exact[at]:.2f}")
    if (wrong <= (exact + 0.5 >= 256)).all():
        yield (f"{int(wrong.sum())} values are wrong, all where the sum goes past 255 ({first})",
               "clamp while converting: " + CLAMP_HINT)
    # Truncation: one level low wherever the fraction is .5 or more (or, in float32, where an
    # exact whole number came out a hair below it).
    low = got.astype(np.int16) == want.astype(np.int16) - 1
    fraction = exact - np.floor(exact)
    if (wrong <= (low & ((fraction > 0.5 - ROUNDING_SLACK) | (fraction < ROUNDING_SLACK)))).all():
        yield from _half_outside(wrong, first, code)
        yield from _unrounded_stores(wrong, first, code)
        yield (f"{int(wrong.sum())} values are one level low, where the sum's fraction is .5 or "
               f"more ({first}): the kernel truncates instead of rounding",
               "converting a float to uchar drops the fraction: " + CLAMP_HINT)
    yield from _read_as_fractions(rgb, got, code)
    yield from sepia.mixed_up(rgb, got, LAYOUT_HINT)
    yield from near.misses("out", got.reshape(got.shape[0], -1), want.reshape(got.shape[0], -1),
                           close=lambda a, b: np.abs(a - b) <= 1, index_hint=LAYOUT_HINT)
    yield (f"{int(wrong.sum())} of {got.size} values are wrong (the first: {first})",
           LAYOUT_HINT)


def _rounded_twice(rgb, got, code):
    """Values one level high where the sum's fraction is below .5, the rest right: the channels
    stored with a conversion that rounds to the nearest, convert_uchar_sat_rte(r2 + 0.5f), whose
    + 0.5f rounds up again (named as the code writes it)."""
    exact, want = rgb @ sepia.SEPIA.T, sepia.reference(rgb)
    wrong = sepia._differs(got, want, exact)
    channels = [c for c in range(3) if wrong[..., c].any()]
    model = want.copy()
    model[..., channels] = np.minimum(np.rint(exact + 0.5), 255).astype(np.uint8)[..., channels]
    if not channels or sepia._differs(got, model, exact, boundary=0.0).any():
        return
    at = tuple(np.argwhere(wrong)[0])
    calls = [" ".join(m.group().split()) for m in re.finditer(
        r"\bconvert_uchar_sat_rte\s*\(\s*\w+\s*\+\s*0\.5f?\s*\)", code)]
    said = (f"{calls[0]} rounds twice: _rte already rounds to the nearest level, and the + 0.5f "
            "moves every sum half a level up first" if calls else "the values were rounded "
            "twice: the + 0.5f moves every sum half a level up, and the conversion then rounds "
            "to the nearest level (_rte) instead of dropping the fraction")
    name = re.search(r"\((\w+)", calls[0]).group(1) if calls else "r2"
    yield (f"{int(wrong.sum())} values are one level high where the sum's fraction is below .5 "
           f"(the first: x = {at[1]}, y = {at[0]}, {CHANNEL_NAMES[at[2]]}: got {got[at]}, "
           f"expected {want[at]}, the exact sum is {exact[at]:.2f}): {said}",
           f"round once: convert_uchar_sat_rte({name}) (it rounds to the nearest level itself), "
           f"or convert_uchar_sat({name} + 0.5f) (which drops the fraction of the sum + 0.5)")


def _read_as_fractions(rgb, got, code):
    """Every output byte 0 or 1, the matrix's sums over 255 rounded: the channels read as
    fractions, 0 to 1 (rgb[3 * i] / 255.0f), and stored with convert_uchar_sat(r2 + 0.5f) as if
    they were 0 to 255. Sums within a hair of 127.5 are left out (float32 may round them either
    way)."""
    scaled = (rgb @ sepia.SEPIA.T) / 255
    clear = np.abs(scaled - 0.5) > 1e-3
    if got.max() > 1 or not np.array_equal(got[clear], (scaled[clear] > 0.5).astype(got.dtype)):
        return
    read = re.search(r"\brgb\s*\[[^\]]*\]\s*/\s*255(?:\.0*)?f?\b", code)
    how = (f"the reads divide the channels by 255 ({' '.join(read.group().split())}), so r, g "
           "and b run from 0 to 1" if read else "the channels were scaled to 0 to 1 (divided by "
           "255)")
    at = (0, 0, 0)
    yield (f"every output byte is 0 or 1 (x = 0, y = 0, red: got {got[at]}, expected "
           f"{sepia.reference(rgb)[at]}): the sums are 255 times too small: {how}, while "
           "convert_uchar_sat(r2 + 0.5f) stores levels 0 to 255",
           "read the bytes as they are, 0 to 255: float r = rgb[3*i], g = rgb[3*i + 1], "
           "b = rgb[3*i + 2] (the matrix's sums are then levels, as out needs)")


def _half_outside(wrong, first, code):
    """Values truncated (``wrong``, all one level low where the fraction is .5 or more) in the
    channels whose store adds the 0.5 after the conversion, out[3 * i] = convert_uchar_sat(r2)
    + 0.5f: the fraction dropped by the conversion, the 0.5 by the store into out."""
    stores = {int(c or 0): (m.group(), name) for m in re.finditer(
        r"\bout\s*\[\s*3\s*\*\s*i\s*(?:\+\s*([12])\s*)?\]\s*=\s*convert_uchar_sat\s*\(\s*(\w+)"
        r"\s*\)\s*\+\s*0\.5f?\b", code) for c, name in [m.groups()]}
    channels = sorted(k for k in range(3) if wrong[..., k].any())
    if not channels or not set(channels) <= set(stores):
        return
    said, name = stores[channels[0]]
    some = "" if len(channels) == 3 else \
        f"the {' and '.join(CHANNEL_NAMES[k] for k in channels)} values are one level low where "
    others = [stores[k][1] for k in channels[1:]]
    yield (f"{some or str(int(wrong.sum())) + ' values are one level low where '}the sum's "
           f"fraction is .5 or more ({first}): the + 0.5f is outside convert_uchar_sat: "
           f"{' '.join(said.split())} converts {name} first, which drops its fraction, then adds "
           "0.5 to a whole level, and the store into out drops that 0.5 again", "put the + 0.5f "
           f"inside the call, on the float sum: convert_uchar_sat({name} + 0.5f)"
           + (f", and likewise {' and '.join(others)}" if others else ""))


def _unrounded_stores(wrong, first, code):
    """Values truncated (``wrong``, all one level low where the fraction is .5 or more) in some
    channels only, those whose store converts the sum without the + 0.5f,
    out[3 * i + 2] = convert_uchar_sat(b2), named as the code writes it."""
    stores = {int(c or 0): (m.group(), name) for m in re.finditer(
        r"\bout\s*\[\s*3\s*\*\s*i\s*(?:\+\s*([12])\s*)?\]\s*=\s*convert_uchar_sat\s*\(\s*(\w+)"
        r"\s*\)\s*;", code) for c, name in [m.groups()]}
    channels = sorted(k for k in range(3) if wrong[..., k].any())
    if not channels or len(channels) == 3 or not set(channels) <= set(stores):
        return
    said = " and ".join(" ".join(stores[k][0].rstrip(";").split()) for k in channels)
    which = " and ".join(CHANNEL_NAMES[k] for k in channels)
    rounded = " and ".join(CHANNEL_NAMES[k] for k in range(3) if k not in channels)
    yield (f"only the {which} values are one level low, where the sum's fraction is .5 or more "
           f"({int(wrong.sum())} values; {first}): {said} converts without the + 0.5f, so the "
           f"{which} store truncates, while the {rounded} store{'s' if len(channels) == 1 else ''}"
           " round", "add the + 0.5f there as in the other store"
           f"{'s' if len(channels) == 1 else ''}: "
           + ", ".join(f"convert_uchar_sat({stores[k][1]} + 0.5f)" for k in channels)
           + " rounds to the nearest level")


def _signed_store(got, want, exact, code):
    """Every value clamped at 127, the rest right: a conversion to signed char (convert_char_sat,
    -128 to 127) where convert_uchar_sat belongs, named where the code calls it."""
    if not (want > 127).any() or not np.array_equal(got, np.minimum(want, 127)):
        return
    at = tuple(np.argwhere(got != want)[0])
    called = re.search(r"\bconvert_char_sat\w*", code)
    how = (f"the stores convert with {called.group()}, to a signed char (-128 to 127)" if called
           else "the values went through a signed char (-128 to 127) on their way to out")
    yield (f"values stop at 127: {how}, which clamps every level above 127 to 127 ("
           f"{int((got != want).sum())} values; the first: x = {at[1]}, y = {at[0]}, "
           f"{CHANNEL_NAMES[at[2]]}: got {got[at]}, expected {want[at]}, the exact sum is "
           f"{exact[at]:.2f})", "out holds unsigned bytes, 0 to 255: convert with "
           "convert_uchar_sat, out[3*i] = convert_uchar_sat(r2 + 0.5f), and so on")


def _int_sums(rgb, got, code):
    """Sums declared with an integer type, which keeps their whole part alone (the CUDA sepia's
    model of a truncated sum, ``reference(rgb, half=0.0)``), so that the + 0.5f of
    convert_uchar_sat(r2 + 0.5f) rounds nothing: the channels whose converted sum the code
    declares so are truncated, the others right."""
    stored = {name: int(c or 0) for c, name in re.findall(
        r"\bout\s*\[\s*3\s*\*\s*i\s*(?:\+\s*([12])\s*)?\]\s*=\s*convert_uchar_sat\s*\(\s*(\w+)\s*"
        r"\+\s*0\.5f?\s*\)", code)}
    declared = {name: kind for kind, names in re.findall(
        r"(?<![\w.])((?:unsigned\s+)?(?:u?int|u?short|u?long))\s+([^;]*);", code)
        for name in re.findall(r"(?:^|,)\s*(\w+)\s*=(?!=)", names) if name in stored}
    channels = sorted(stored[name] for name in declared)
    if not channels:
        return
    want, cut, exact = sepia.reference(rgb), sepia.reference(rgb, half=0.0), rgb @ sepia.SEPIA.T
    if (cut[..., channels] == want[..., channels]).all() or any(
            sepia._differs(got[..., k], (cut if k in channels else want)[..., k], exact[..., k],
                           boundary=0.0 if k in channels else 0.5).any() for k in range(3)):
        return
    y, x, c = np.argwhere(got != want)[0]
    names = sorted(declared, key=stored.get)
    some = ("" if len(channels) == 3 else
            f"the {' and '.join(CHANNEL_NAMES[k] for k in channels)} values are one level low "
            "where the sum's fraction is .5 or more: ")
    yield (f"{some}{listed(names)} {'are' if len(names) > 1 else 'is'} declared "
           f"{' '.join(declared[names[0]].split())}, so {'each' if len(names) > 1 else 'the'} "
           "sum lost its fraction when it was "
           f"stored there (x = {x}, y = {y}, {CHANNEL_NAMES[c]}: {exact[y, x, c]:.2f} became "
           f"{int(exact[y, x, c])}), and the + 0.5f of convert_uchar_sat({names[0]} + 0.5f) comes "
           f"too late to round it ({int(sepia._differs(got, want, exact).sum())} values one "
           "level low)",
           f"declare the sum{'s' if len(names) > 1 else ''} float: float {names[0]} = "
           f"{' + '.join(f'{w}f * {v}' for w, v in zip(sepia.SEPIA[stored[names[0]]], 'rgb'))}"
           f"{', and ' + ' and '.join(names[1:]) + ' likewise' if len(names) > 1 else ''}; "
           f"convert_uchar_sat({names[0]} + 0.5f) then rounds {'each' if len(names) > 1 else 'it'}")


def _signed(rgb, got, code):
    """Channels read as char, which OpenCL makes signed: the bytes 128 and more read as negative
    numbers (convert_uchar_sat stores a sum below 0 as 0); the input declared so, or (where the
    code does not declare it so) the channels read into a char."""
    if not ((rgb >= 128).any() and sepia.near(got, sepia.signed_tone(rgb))):
        return
    params = re.search(r"\bsepia\s*\(([^,)]*)", code)   # the first parameter: the input
    declared = params and re.search(r"\bchar\b", params.group(1)) and "unsigned" not in params[1]
    where = ("rgb is declared as char" if declared else "the channels were read into a char")
    yield (f"the bytes of 128 and more were read as negative numbers: {where}, which holds -128 "
           "to 127 (OpenCL's char is signed), so 128 to 255 became -128 to -1 and the sums came "
           "out too small (below 0 stored as 0)", "declare the input as unsigned bytes, as the "
           "image holds them (0 to 255): __global const uchar *rgb, and read each channel into "
           "a float: float r = rgb[3 * i], ..." if declared else "read each channel into a "
           "float (or a uchar), as rgb holds them (0 to 255): float r = rgb[3 * i], ...")


EXERCISE = OpenCLExercise(
    stub="exercises/sepia.cl", kernel="sepia",
    signature="__global const uchar *rgb, __global uchar *out, int width, int height",
    cases=CASES, draw=sepia.draw, launch=sepia._launch, mistakes=_mistakes, reports=_reports,
    where=lambda case: (f"width = {case.width}, height = {case.height}, local size = "
                        f"{case.block}, global size = {case.threads}"),
    crash_hint="a work-item went outside the image: " + GUARD_HINT,
    success=f"every pixel matches NumPy's sepia, rounded and clamped, for every size tried "
            f"({len(CASES)} images with odd sides, two work-group shapes), and nothing written "
            "outside the image")

check_sepia_opencl = EXERCISE.check_file          # (path="exercises/sepia.cl")
check_sepia_opencl_kernel = EXERCISE.check_kernel  # (kernel): the same on a built kernel
