"""Checker for notebook 12's first exercise: mirror an image left to right in OpenCL, a 2-D range
(``cuda_src/opencl/exercises/mirror.cl``).

The kernel ``mirror(in, out, width, height)`` writes ``out[y, x] = in[y, width - 1 - x]``, with
x from dimension 0 of the range and y from dimension 1. It runs on images whose sides are not
multiples of the work-group, on two work-group shapes, with out poisoned and a guard zone after
it, and junk after in (so that a column read one past a row's end shows). Its detectors name the
index mistakes of a 2-D range (shared with the CUDA exercises: ``coverage``) in OpenCL's words,
then the mirror's own: a copy, a column off by one, the rows mirrored instead.
"""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Input, Output
from helpers.exercises.coverage import Grid, Words, never_written, past_the_end, reached
from helpers.exercises.hidden import grids
from helpers.exercises.kernel import Launch
from helpers.exercises.mirror_opencl_models import fraction_dropped, group_id, groups_apart
from helpers.exercises.opencl_kernel import (OpenCLExercise, buffers_out_first, code_line,
                                             kernel_code, one_global_id, one_index_split,
                                             one_local_id, sides_swapped)

CASES = [Grid(37, 53, (16, 16)), Grid(71, 45, (32, 8))]
JUNK = np.float32(-1e6)   # what in holds past its end

INDEX_HINT = ("x = get_global_id(0) (the column), y = get_global_id(1) (the row), pixel "
              "y * width + x; get_local_id is the position inside the work-group only "
              "(CUDA's threadIdx)")
GUARD_HINT = ("the global range is rounded up to whole work-groups, so some work-items lie "
              "outside the image: start the kernel with if (x >= width || y >= height) return;")
MIRROR_HINT = ("pixel (x, y) of the mirror is the input's pixel at column width - 1 - x of the "
               "same row: out[y * width + x] = in[y * width + (width - 1 - x)]")
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT, block="work-group",
              thread="work-item", forgot=("x and y use get_local_id", "x uses get_local_id",
                                          "y uses get_local_id"))


def _draw(rng):
    """The grader's cases: two more images with odd sides, on the shipped work-group shapes."""
    return grids(rng, [case.block for case in CASES], 3, 120, 2)


def _where(case):
    return (f"width = {case.width}, height = {case.height}, local size = {case.block[:2]}, "
            f"global size = {case.threads}")


def _launch(case, scale=1):
    image = np.random.default_rng(case.width * case.height).uniform(0, 1, (case.height,
                                                                           case.width))
    image = (image * scale).astype(np.float32)
    return Launch((Input(image, after=case.span(), junk=JUNK),
                   Output((case.height, case.width), guard=case.span()),
                   np.int32(case.width), np.int32(case.height)),
                  block=case.block[:2], grid=case.grid, model=image)


def _mistakes(case, run, reports):
    """The mistakes one launch shows, the most telling first (none when it is right): those of
    the index and the guard before Oclgrind's reports (a missing guard reads before in too)."""
    out = run.out
    yield from _sides_swapped(out, case, run.model, kernel_code(run.kernel))
    yield from _rows_below(out, case, run.model)
    yield from _scattered_one_right(out, case, run.model)
    yield from _guard_on_the_range(out, case, kernel_code(run.kernel))
    yield from _guard_after_store(out, case, kernel_code(run.kernel))
    yield from past_the_end(out.past, case, WORDS, INDEX_HINT + "; and " + GUARD_HINT,
                            out.unwritten)
    if out.unwritten.all():
        yield from buffers_out_first(kernel_code(run.kernel), "mirror", EXERCISE.signature)
        yield from _read_from_out(kernel_code(run.kernel))
    if out.unwritten.any():
        yield from _edge_left_out(out, case, run.model)
        yield from _middle_column_left_out(out, case, run.model, kernel_code(run.kernel))
        yield from one_global_id(~out.unwritten, out.got == run.model[:, ::-1])
        yield from one_index_split(~out.unwritten, out.got == run.model[:, ::-1],
                                   case.threads[0], kernel_code(run.kernel))
        yield from one_local_id(~out.unwritten, out.got == run.model[:, ::-1], case,
                                kernel_code(run.kernel))
        yield from group_id(out, case, run.model)
        yield from groups_apart(out, case, run.model, kernel_code(run.kernel))
        yield from reached(~out.unwritten, case, WORDS)
    yield from never_written(out.unwritten, WORDS)
    yield from _across_the_height(run.model, out.got, case)  # reads before in: before reports
    yield from _from_the_row_above(run.model, out.got, case)
    yield from reports
    yield from fraction_dropped(out.got, run.model[:, ::-1], lambda scale: _relaunch(run, case,
                                                                                   scale))
    yield from _wrong_values(run.model, out.got, case, kernel_code(run.kernel))


def _relaunch(run, case, scale):
    """(got, want) of ``run``'s kernel launched on the case's image times ``scale``; None where
    that launch failed."""
    from helpers.ch12 import oclgrind, opencl

    try:
        again, _ = EXERCISE.run(run.kernel, _launch(case, scale))
    except (opencl.cl.Error, oclgrind.Failed, oclgrind.Stopped):
        return None
    return again.out.got, again.model[:, ::-1]


def _sides_swapped(out, case, image, code):
    """The kernel's width and height the host's other way round (``sides_swapped``): out written
    as a mirror of rows height pixels long, for the work-items with x < height and y < width."""
    width = case.height   # a row's length, as the kernel sees it
    y, x = np.divmod(np.arange(image.size), width)
    model = image.ravel()[np.minimum(y * width + width - 1 - x, image.size - 1)]
    if not out.past.size:
        yield from sides_swapped(case, out.unwritten, out.got.ravel() == model, code,
                                 "__global float *out")


def _read_from_out(code):
    """Out never written, and the code's store reads out, not in, on the right of its =: each
    work-item copied a pixel of out, still the poison, over another."""
    store = re.search(r"\bout\s*\[[^\]]*\]\s*=(?!=)([^;]*);", code)
    if store and re.search(r"\bout\s*\[", store[1]) and not re.search(r"\bin\s*\[", store[1]):
        yield ("out holds its own poison: each pixel was read from out, not from in "
               f"({' '.join(store.group().rstrip(';').split())}, line "
               f"{code_line(code, store.start())}), so every work-item copied out's poison",
               "read the input: out[y * width + x] = in[y * width + (width - 1 - x)]")


def _rows_below(out, case, image):
    """The image right, and written past its end by exactly the work-items below it (x inside):
    the guard does not stop y >= height (it tests x alone)."""
    below = case.unguarded(through=lambda x, y: x < case.width)
    if below and set(out.past.ravel().tolist()) == below and np.array_equal(out.got,
                                                                            image[:, ::-1]):
        yield ("work-items below the image (y >= height) wrote past the end of out: the guard "
               "does not stop them", "a work-item outside in x or in y must return: "
               + GUARD_HINT)


def _scattered_one_right(out, case, image):
    """The mirror as a scatter, each pixel of in stored at column width - x of its row: one
    column too far right (x = 0 lands on the next row's first pixel, and in the last row just
    past the end of out; out's first pixel is never written)."""
    size = case.width * case.height
    y, x = np.indices(image.shape)
    model = np.zeros(size + 1, image.dtype)
    model[(y * case.width + case.width - x).ravel()] = image.ravel()
    if (out.past.tolist() == [size] and np.flatnonzero(out.unwritten).tolist() == [0]
            and np.array_equal(out.got.ravel()[1:], model[1:size])):
        yield ("the store lands one column too far right: out[y * width + (width - x)], where "
               "width - 1 - x belongs (x = 0 wrote the next row's first pixel, and in the last "
               f"row the pixel just past the end of out, out[{size}]; out[0] was never "
               "written)", "the columns run from 0 to width - 1, so x's mirror is width - 1 - x: "
               "out[y * width + (width - 1 - x)] = in[y * width + x]")


def _guard_on_the_range(out, case, code):
    """Out written past its end by every work-item past it, as with no guard, while the code's
    guard compares with get_global_size: the range's size, which no work-item reaches (the range
    is rounded up to whole work-groups), so none returns (those past the right edge also write
    the next row's first pixels: the image is not compared)."""
    guard = re.search(r"\bif\s*\([^;{]*\bget_global_size\s*\(", code)
    if guard and out.past.size and set(out.past.ravel().tolist()) == case.unguarded():
        gx, gy = case.threads[:2]
        yield (f"the guard compares x and y with get_global_size(0) and get_global_size(1), the "
               f"range's size ({gx} x {gy}), rounded up to whole work-groups: no work-item lies "
               f"past it, so none returned, and those outside the image ({case.width} x "
               f"{case.height}) wrote past the end of out", "compare with the image's size: if "
               "(x >= width || y >= height) return; (width and height, the kernel's arguments)")


def _guard_after_store(out, case, code):
    """Out written past its end by every work-item past it, as with no guard, while the code has
    its guard after the store to out (out[...] = in[...]; if (x >= width || ...) return;): the
    work-items outside the image store first and return only then."""
    store = re.search(r"\bout\s*\[[^\]]*\]\s*=(?!=)", code)
    guard = re.search(r"\bif\s*\(([^;{]*)\)\s*\{?\s*return\s*;", code)
    if not (store and guard and store.start() < guard.start() and out.past.size
            and set(out.past.ravel().tolist()) == case.unguarded()):
        return
    yield (f"the bounds guard, if ({' '.join(guard.group(1).split())}) return;, comes after the "
           f"store to out (line {code_line(code, store.start())}): the work-items outside the "
           f"image ({case.width} x "
           f"{case.height}) store first and return only then, so they wrote past the end of out",
           "the guard must come before any access to memory: move it up, to right after x and y "
           "are computed, before the line that stores out[y * width + x]")


def _edge_left_out(out, case, image):
    """The image right but for its last column (or its last row), never written: the guard
    returns x = width - 1 (y = height - 1) too."""
    y, x = np.indices(out.unwritten.shape)
    for name, side, size, last in (("column", "x", "width", case.width - 1),
                                   ("row", "y", "height", case.height - 1)):
        edge = (x if side == "x" else y) == last
        if np.array_equal(out.unwritten, edge) and np.array_equal(out.got[~edge],
                                                                  image[:, ::-1][~edge]):
            yield (f"the image's last {name}, {side} = {size} - 1 = {last}, was never written: "
                   "the guard returns the work-items there too", "return only past the image: "
                   f"if (x >= width || y >= height) return; ({side} = {size} - 1 is the last "
                   f"{name}, inside the image)")


def _middle_column_left_out(out, case, image, code):
    """The image right but for its middle column, never written, on an odd width: a swap of
    column pairs (x and width - 1 - x) by the left half's work-items, x < width / 2, which on an
    odd width leaves out the column that is its own mirror, x = (width - 1) / 2."""
    middle = (case.width - 1) // 2
    column = np.indices(out.unwritten.shape)[1] == middle
    if case.width % 2 == 0 or not np.array_equal(out.unwritten, column) or \
            not np.array_equal(out.got[~column], image[:, ::-1][~column]):
        return
    head = (f"the middle column, x = {middle}, was never written (the rest of the image is "
            "right): ")
    hint = ("give every pixel its work-item: if (x >= width || y >= height) return; out[y * width "
            "+ x] = in[y * width + (width - 1 - x)]; (pairs need the guard x >= (width + 1) / 2, "
            "which keeps the middle column)")
    if re.search(r"\bx\s*>=?\s*width\s*/\s*2\b", code):
        yield (head + f"the guard returns from x = width / 2 = {case.width // 2} on, so the left "
               "half's work-items stored each column pair, x and width - 1 - x, but the width = "
               f"{case.width} is odd, and its middle column, x = (width - 1) / 2 = {middle}, is "
               "its own mirror: it is in neither half", hint)
    yield (head + f"the width = {case.width} is odd, and the middle column, x = (width - 1) / 2 "
           f"= {middle}, is its own mirror (x = width - 1 - x): no work-item stored it", hint)


def _across_the_range(image, got, case):
    """Every pixel read from column get_global_size(0) - 1 - x: the mirror taken across the
    range's width (rounded up to whole work-groups), not the image's (in is followed by JUNK)."""
    width = case.threads[0]
    y, x = np.indices(image.shape)
    flat = np.concatenate([image.ravel(), np.full(width, JUNK, image.dtype)])
    if width != case.width and np.array_equal(got, flat[y * case.width + width - 1 - x]):
        yield (f"every pixel came from column get_global_size(0) - 1 - x = {width - 1} - x: the "
               f"mirror was taken across the range's {width} work-items, not the image's width "
               f"= {case.width}", "the range is rounded up to whole work-groups, so "
               "get_global_size(0) is more than the image's width: " + MIRROR_HINT)


def _across_the_height(image, got, case):
    """Every pixel read from column height - 1 - x of its row: the columns mirrored across the
    image's height, not its width. A read before in (row 0, x > height - 1, on a wide image) is
    left out of the comparison: Oclgrind does not make it, and a GPU reads whatever is there."""
    if case.width == case.height:
        return
    y, x = np.indices(image.shape)
    index = y * case.width + case.height - 1 - x
    flat = np.concatenate([image.ravel(), np.full(case.span(), JUNK, image.dtype)])
    inside = (index >= 0) & (index < flat.size)
    if np.array_equal(got[inside], flat[index[inside]]):
        before = "" if inside.all() else (
            f"; from x = {case.height} on, row 0 read before the start of in")
        yield (f"every pixel came from column height - 1 - x of its row: the columns were "
               f"mirrored across the height = {case.height}, not the width = {case.width} "
               f"(x = 0 read column {case.height - 1}, where its mirror is column "
               f"{case.width - 1}{before})", "the mirror of column x is width - 1 - x (x runs "
               "along the width): " + MIRROR_HINT)


def _from_the_row_above(image, got, case):
    """Rows 1 on each the mirror of the row above: the read in[y * width - 1 - x], the row's end
    taken as y * width (row 0's reads, before in, are left out: Oclgrind does not make them, and
    a GPU reads whatever is there)."""
    if case.height > 1 and np.array_equal(got[1:], image[:-1, ::-1]):
        yield ("every pixel below row 0 came from the row above: in[y * width - 1 - x] takes "
               "the row's end as y * width, where row y ends at (y + 1) * width - 1 (row 0 read before the start "
               f"of in; x = 0, y = 1 read in[{case.width - 1}], row 0's last pixel)",
               "row y starts at y * width: in[y * width + (width - 1 - x)] (the same as "
               "in[(y + 1) * width - 1 - x])")


def _both_sides_mirrored(code):
    """A copy whose code stores at the very index it reads, a mirrored one (a - x in it): each
    work-item copied the pixel at the mirrored column to that same place."""
    store = re.search(r"\bout\s*\[([^\]]*)\]\s*=\s*in\s*\[([^\]]*)\]", code)
    if store and re.sub(r"\s", "", store[1]) == re.sub(r"\s", "", store[2]) and re.search(
            r"-\s*x\b", store[1]):
        yield (f"out is a copy of in: both the store and the read were mirrored "
               f"({' '.join(store.group().split())}), so each work-item copied the pixel at the "
               "mirrored column to that same place", "mirror the read alone: out[y * width + x] "
               "= in[y * width + (width - 1 - x)]")


NOT_FLOAT = {"uchar": np.uint8, "char": np.int8, "ushort": np.uint16, "short": np.int16,
             "int": np.int32, "uint": np.uint32}


def _input_not_float(image, got, case):
    """Every pixel the mirrored element of in read as another type (in declared uchar, say, as
    sepia's): in[i] is then the i-th uchar (int, ...) of the image's bytes, made a float."""
    flat = np.concatenate([image.ravel(), np.full(case.span(), JUNK, image.dtype)])
    y, x = np.indices(image.shape)
    index = y * case.width + case.width - 1 - x
    for name, dtype in NOT_FLOAT.items():
        read = flat.view(dtype)[index]
        if np.array_equal(got, read.astype(np.float32)):
            size, i = np.dtype(dtype).itemsize, case.width - 1
            part = (f"byte {i} of the image, a byte of pixel {i // 4}" if size == 1 else
                    f"the {name} at byte {i * size} of the image, the bits of pixel {i * size // 4}"
                    + (" as an integer" if size == 4 else ", half of them"))
            yield (f"in is declared __global const {name} *in, but the image holds floats: in[i] "
                   f"read {'byte i of the image' if size == 1 else f'the i-th {name} of its bytes'}, not pixel i (x = 0, y = 0 read "
                   f"in[{i}], got {got[0, 0]:g}: {part}, where pixel {i} is {image[0, i]:g})",
                   "declare in as floats: __global const float *in, as the kernel's signature "
                   "gives it (the host passes the image as 4-byte floats)")


def _row_stride_wrong(image, got, case):
    """Every pixel read from in[y * s + (width - 1 - x)], s a row's length other than width:
    width - 1 (its last column), or height (the number of rows), so row y's reads start y * (width
    - s) pixels off (reads past in, where s > width, are left out of the comparison: a GPU reads
    whatever lies there)."""
    w, h = case.width, case.height
    y, x = np.indices(image.shape)
    flat = np.concatenate([image.ravel(), np.full(case.span(), JUNK, image.dtype)])
    for said, stride, apart, why in (
            ("(width - 1)", w - 1, "", "width - 1 is its last column, not its length"),
            ("height", h, f" = y * {h}, not y * width = y * {w}: rows of in were taken height = "
             f"{h} pixels apart, where a row holds width = {w};", "height is how many rows "
             "there are")):
        index = y * stride + w - 1 - x
        inside = index < flat.size
        if stride == w or h < 2 or not np.array_equal(got[inside], flat[index[inside]]):
            continue
        shift = "y pixels" if abs(w - stride) == 1 else f"y * {abs(w - stride)} pixels"
        yield (f"every row was read from y * {said}{apart or ', not y * width:'} row y's reads "
               f"start {shift} too far {'left' if stride < w else 'right'} (x = 0, y = 1 read "
               f"in[{stride + w - 1}], where row 1's last pixel is in[{2 * w - 1}]), so only "
               "row 0 is right", "row y starts at y * width: in[y * width + (width - 1 - x)] "
               f"(a row is width pixels long; {why})")


def _wrong_values(image, got, case, code=""):
    """Mistakes the values show once every pixel was written (``code``: the kernel's, which
    tells a copy made by mirroring both sides of the store)."""
    want = image[:, ::-1]
    if np.array_equal(got, want):
        return
    if np.array_equal(got, image):
        yield from _both_sides_mirrored(code)
        yield "out is a copy of in: the columns were not mirrored", MIRROR_HINT
    if np.array_equal(got[:, 1:], want[:, :-1]):
        yield ("every pixel came from one column too far right (x = 0 read past the end of its "
               "row): width - x is one past the mirrored column",
               "the columns run from 0 to width - 1, so x's mirror is width - 1 - x")
    if np.array_equal(got, np.broadcast_to(want[0], got.shape)):
        yield ("every row of out is row 0's mirror: the read leaves out the row, y * width",
               MIRROR_HINT)
    if np.array_equal(got, image[::-1]):
        yield ("out is upside down: the rows were mirrored, not the columns",
               "keep the row y and mirror the column: " + MIRROR_HINT)
    if np.array_equal(got, image[::-1, ::-1]):
        yield ("out is turned half a turn: both the rows and the columns were mirrored",
               "keep the row y, mirror only the column: " + MIRROR_HINT)
    yield from _across_the_range(image, got, case)
    yield from _row_stride_wrong(image, got, case)
    yield from _input_not_float(image, got, case)
    yield from near.misses("out", got, want, close=np.equal, index_hint=MIRROR_HINT)
    fy, fx = np.argwhere(got != want)[0]
    yield (f"{int((got != want).sum())} of {got.size} pixels are wrong (the first is x = {fx}, "
           f"y = {fy}: got {got[fy, fx]:.6g}, expected {want[fy, fx]:.6g})", MIRROR_HINT)


EXERCISE = OpenCLExercise(
    stub="exercises/mirror.cl", kernel="mirror",
    signature="__global const float *in, __global float *out, int width, int height",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint=INDEX_HINT + "; and " + GUARD_HINT,
    success=f"every pixel is its row's mirror, for every size tried ({len(CASES)} images with "
            "odd sides, two work-group shapes), and nothing written outside the image")

check_mirror_opencl = EXERCISE.check_file          # (path="exercises/mirror.cl")
check_mirror_opencl_kernel = EXERCISE.check_kernel  # (kernel): the same on a built kernel
