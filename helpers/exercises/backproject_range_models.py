"""The NumPy models of notebook 10's back-projection (``cuda_src/exercises/backproject_range.cu``)
that ``helpers.exercises.backproject_range`` compares a kernel's points with: formulas with a known
mistake, each with its verdict; and the detectors of NaN marks put in the wrong places (or
infinities or zeros for NaN, or in some planes alone)."""

from __future__ import annotations

import numpy as np

from helpers.ch10.point_cloud import backproject
from helpers.exercises.microscope import kernel_words

DEPTH_SCALE = np.float32(0.001)
FORMULA_HINT = "X = (u - cx) * z / fx and Y = (v - cy) * z / fy, with z = depth[i] * depth_scale"
NAN_HINT = 'write nanf("") into xyz[i], xyz[n + i] and xyz[2 * n + i], then return'


def some_planes_nan(got, kept, depth):
    """(problem, hint) where some pixels are NaN in some planes and not in the others: which are
    NaN and which not, where every such pixel has the same ones; Z alone not NaN there, holding
    the pixel's depth z, is the store of Z run for every pixel, after the NaNs."""
    nan = np.isnan(got)
    partial = nan.any(axis=0) & ~nan.all(axis=0)
    if not partial.any():
        return
    at, count = nan[:, partial], int(partial.sum())
    where = (f"the {count} pixels that are not points" if np.array_equal(partial, ~kept) else
             f"{count} pixels")
    if not (at == at[:, :1]).all():
        yield (f"at {where} only some of X, Y and Z are NaN",
               "a pixel that is not a point is NaN in all three planes: " + NAN_HINT)
        return
    planes = np.array(list("XYZ"))
    nans, others = " and ".join(planes[at[:, 0]]), " and ".join(planes[~at[:, 0]])
    said = (f"at {where} only some of X, Y and Z are NaN: {nans} "
            f"{'are' if ' and ' in nans else 'is'} NaN, {others} not")
    z = depth.astype(np.float32) * DEPTH_SCALE
    if others == "Z" and np.allclose(got[2][partial], z[partial], 1e-6, 0):
        holes = int((depth[partial] == 0).sum())
        held = ", ".join(words for k, words in (
            (holes, f"0 at the {holes} holes"),
            (count - holes, f"the measured depth at the {count - holes} outside [z_min, z_max]"))
            if k)
        yield (f"{said}: Z holds the pixel's depth z = depth[i] * depth_scale ({held}): the "
               "store xyz[2 * n + i] = z ran for these pixels too, after their NaNs",
               'write nanf("") into the Z plane there too, xyz[2 * n + i], and return before the '
               "point's stores (or store Z in the point's branch alone)")
        return
    yield said, "a pixel that is not a point is NaN in all three planes: " + NAN_HINT


def _transposed(shape, cx, cy, fx, fy, z):
    """X and Y of a kernel whose index is i = u * height + v: pixel i's depth with the u and v
    of the thread that reached it (u = i / height, v = i % height)."""
    thread_u, thread_v = np.divmod(np.arange(z.size).reshape(shape), shape[0])
    thread_u, thread_v = thread_u.astype(np.float32), thread_v.astype(np.float32)
    return (thread_u - cx) * z / fx, (thread_v - cy) * z / fy


def _one_slip(u, v, z, fx, fy, cx, cy):
    """(X, Y, problem, hint) of formulas with one slip: parentheses left out (in X, Y or both),
    the pixel's centre (u + 0.5, v + 0.5), X from the row or Y from the column."""
    x, y = (u - cx) * z / fx, (v - cy) * z / fy
    bare_x, bare_y = u - cx * z / fx, v - cy * z / fy
    bare = ("without parentheses, * and / go before -, so only {0} was scaled: {1} = {2} - {0} * z "
            "/ {3}", "subtract first: {1} = ({2} - {0}) * z / {3}")
    for got_x, got_y, names in ((bare_x, y, ("cx", "X", "u", "fx")), (x, bare_y, ("cy", "Y", "v", "fy"))):
        yield got_x, got_y, *(text.format(*names) for text in bare)
    yield (bare_x, bare_y, "without parentheses, * and / go before -, so only cx and cy were "
           "scaled: X = u - cx * z / fx", "subtract first: " + FORMULA_HINT)
    yield ((u + np.float32(0.5) - cx) * z / fx, (v + np.float32(0.5) - cy) * z / fy,
           "X and Y were computed from the pixel's centre, u + 0.5 and v + 0.5, but cx and cy "
           "count from the pixel itself: pixel (u, v) is at u and v", FORMULA_HINT)
    yield (x, (u - cy) * z / fy, "Y was computed from the column u, not the row v",
           "Y goes down the image, with the row: Y = (v - cy) * z / fy")
    yield ((v - cx) * z / fx, y, "X was computed from the row v, not the column u",
           "X goes across the image, with the column: X = (u - cx) * z / fx")


def _inverted(u, v, z, fx, fy, cx, cy, kept):
    """(X, Y, problem, hint) of u = fx X / Z + cx inverted the wrong way, (u - cx) / z * fx, in
    X, Y or both, with the values of the first point."""
    x, y = (u - cx) * z / fx, (v - cy) * z / fy
    with np.errstate(divide="ignore", invalid="ignore"):  # depth 0: not a point, not compared
        bad_x, bad_y = (u - cx) / z * fx, (v - cy) / z * fy
    fv, fu = np.argwhere(z > 0 if kept is None else kept)[0]
    shown = f"(pixel u = {fu}, v = {fv}: got {{:.6g}}, expected {{:.6g}})"
    for got_x, got_y, name, form, f, right, wrong, hint in (
            (bad_x, y, "X was", "(u - cx) / z * fx", "fx", x, bad_x, "X = (u - cx) * z / fx"),
            (x, bad_y, "Y was", "(v - cy) / z * fy", "fy", y, bad_y, "Y = (v - cy) * z / fy"),
            (bad_x, bad_y, "X and Y were", "(u - cx) / z * fx and (v - cy) / z * fy", "fx and fy",
             x, bad_x, FORMULA_HINT)):
        yield (got_x, got_y, f"{name} computed as {form}: divided by the depth and multiplied by "
               f"{f}, the other way round " + shown.format(wrong[fv, fu], right[fv, fu]),
               f"going back from u = fx * X / Z + cx multiplies by the depth and divides by {f}: "
               + hint)


def _other_centre(u, v, z, fx, fy, cx, cy):
    """(X, Y, problem, hint) of one plane offset by the other's part of the principal point."""
    yield ((u - cx) * z / fx, (v - cx) * z / fy, f"Y subtracted cx = {cx:g}, the principal "
           f"point's column, where cy = {cy:g}, its row, belongs: Y = (v - cx) * z / fy, not "
           "(v - cy) * z / fy", "Y goes down the image, with cy: Y = (v - cy) * z / fy")
    yield ((u - cy) * z / fx, (v - cy) * z / fy, f"X subtracted cy = {cy:g}, the principal "
           f"point's row, where cx = {cx:g}, its column, belongs: X = (u - cy) * z / fx, not "
           "(u - cx) * z / fx", "X goes across the image, with cx: X = (u - cx) * z / fx")


def _raw_depth(u, v, depth, fx, fy, cx, cy):
    """(xyz, problem, hint) of X, Y or both computed from the raw depth[i] (millimetres), Z
    right, or Z stored as the raw depth, X and Y right: those planes 1 / depth_scale = 1000
    times too large."""
    raw, z = depth.astype(np.float32), depth.astype(np.float32) * DEPTH_SCALE
    x, y, raw_x, raw_y = (u - cx) * z / fx, (v - cy) * z / fy, (u - cx) * raw / fx, (v - cy) * raw / fy
    times = f"{1 / DEPTH_SCALE:.0f} (1 / depth_scale) times too large"
    use = "use z = depth[i] * depth_scale (metres), not depth[i]: "
    yield (np.stack([raw_x, raw_y, z]), f"X and Y used the raw depth[i] (millimetres) where z = "
           f"depth[i] * depth_scale (metres) belongs: they are {times}, while Z is right",
           use + FORMULA_HINT.split(", with")[0])
    for plane, xy, formula in (("X", (raw_x, y), "X = (u - cx) * z / fx"),
                               ("Y", (x, raw_y), "Y = (v - cy) * z / fy")):
        yield (np.stack([*xy, z]), f"{plane} used the raw depth[i] (millimetres) where z = "
               f"depth[i] * depth_scale (metres) belongs: it is {times}", use + formula)
    yield (np.stack([x, y, raw]), f"Z was stored as the raw depth[i] (millimetres) where z = "
           f"depth[i] * depth_scale (metres) belongs: it is {times}, while X and Y are right",
           "store z, the depth in metres: xyz[2 * n + i] = z")


def _projected(u, v, z, fx, fy, cx, cy):
    """(xyz, problem, hint) of X (or Y) multiplied by its focal length where it is divided by it,
    as projecting a point (u = fx X / Z + cx) does: that plane f^2 times too large."""
    x, y = (u - cx) * z / fx, (v - cy) * z / fy
    for plane, xy, f, formula in (("X", ((u - cx) * z * fx, y), fx, "X = (u - cx) * z / fx"),
                                  ("Y", (x, (v - cy) * z * fy), fy, "Y = (v - cy) * z / fy")):
        name = "f" + "xy"["XY".index(plane)]
        yield (np.stack([*xy, z]), f"{plane} was multiplied by the focal length {name} where it "
               f"is divided by it, so it is {name}^2 = {f * f:g} times too large: "
               f"multiplying by {name} is projection's step ({formula[5:6]} - c{name[1]} = "
               f"{name} * {plane} / Z), and back-projection undoes it",
               "divide by the focal length: " + formula)


def _image_centre(u, v, z, fx, fy, cx, cy):
    """(xyz, problem, hint) of X and Y measured from the image's centre, (width / 2, height / 2)
    in ints (or in floats), where (cx, cy) belongs."""
    height, width = u.shape
    for half_w, half_h in ((width // 2, height // 2), (width / 2, height / 2)):
        mx, my = np.float32(half_w), np.float32(half_h)
        yield (np.stack([(u - mx) * z / fx, (v - my) * z / fy, z]),
               f"X and Y were measured from the image's centre, (width / 2, height / 2) = "
               f"({half_w:g}, {half_h:g}), not from the principal point (cx, cy) = ({cx:g}, "
               f"{cy:g}), where the optical axis meets the image: near the centre, but not on it",
               "the principal point is cx, cy, not the image's centre: " + FORMULA_HINT)


def _offsets_cut(u, v, z, fx, fy, cx, cy):
    """(xyz, problem, hint) of the offsets u - cx, v - cy (both, or one) kept in ints, cut."""
    x, y, cut_x, cut_y = (u - cx) * z / fx, (v - cy) * z / fy, np.trunc(u - cx) * z / fx, np.trunc(v - cy) * z / fy
    for xy, names in (((cut_x, cut_y), "X and Y were"), ((cut_x, y), "X was"), ((x, cut_y), "Y was")):
        yield (np.stack([*xy, z]), f"{names} computed from the offsets u - cx and v - cy cut to "
               f"whole numbers ({np.trunc(-cx):g} for u = 0, where u - cx = {-cx:g}; cx = {cx:g}, cy = "
               f"{cy:g}): an int offset (int du = u - cx) drops the principal point's fraction",
               "keep the offsets in floats, float du = u - cx (or write (u - cx) in the "
               "formula): " + FORMULA_HINT)


def _no_depth(u, v, z, fx, fy, cx, cy, kept):
    """(X, Y, problem, hint) of X (or Y) alone not multiplied by z, the ray's slope: shown at the
    first pixel kept (``kept``: the pixels that are points, or None)."""
    r, c = np.argwhere(kept)[0] if kept is not None and kept.any() else (0, 0)
    x, y = (u - cx) * z / fx, (v - cy) * z / fy
    for plane, xy, at, f, c0 in (("X", ((u - cx) / fx, y), "u", "fx", "cx"),
                                 ("Y", (x, (v - cy) / fy), "v", "fy", "cy")):
        k = "XY".index(plane)
        yield (*xy, f"{plane} was not multiplied by the depth z: {plane} of pixel u = {c}, v = "
               f"{r} is ({at} - {c0}) / {f} = {xy[k][r, c]:g}, the ray's slope, where ({at} - "
               f"{c0}) * z / {f} = {(x, y)[k][r, c]:g} belongs (z = {z[r, c]:g})",
               f"the point lies z along its ray: {plane} = ({at} - {c0}) * z / {f}")


def wrong_models(depth, intrinsics, kept=None):
    """(xyz, problem, hint) of kernels with a known mistake in the formula, in this order
    (``kept``: the pixels that are points, where a problem shows its values)."""
    fx, fy, cx, cy = map(np.float32, intrinsics)
    v, u = np.indices(depth.shape).astype(np.float32)
    z = depth.astype(np.float32) * DEPTH_SCALE
    with np.errstate(divide="ignore", invalid="ignore"):  # depth 0: those pixels are not compared
        inverse = ((u - cx) / fx / z, (v - cy) / fy / z)
    order = "the camera's intrinsics are applied in the wrong order"
    for x, y, problem, hint in (
            ((v * np.float32(depth.shape[1]) + u - cx) * z / fx, (v - cy) * z / fy,
             "X was computed from i, the pixel's place in memory (i = v * width + u), not from "
             "its column u", "X goes across the image, with the column: X = (u - cx) * z / fx"),
            ((v - cx) * z / fx, (u - cy) * z / fy,
             "X was computed from the row v and Y from the column u: u and v are swapped",
             "u is the column (X, across the image), v the row (Y, down): " + FORMULA_HINT),
            ((u / fx - cx) * z, (v / fy - cy) * z,
             order + ": the principal point is subtracted after dividing by the focal length",
             "subtract cx from u first, then divide by fx: (u - cx) * z / fx, not (u / fx - cx) "
             "* z"),
            (u * z / fx - cx, v * z / fy - cy,
             order + ": the principal point is subtracted from the result (u * z / fx - cx)",
             "cx is in pixels, like u: subtract it from u before scaling, (u - cx) * z / fx"),
            ((u - cx) * z / fy, (v - cy) * z / fx, "fx and fy are swapped",
             "fx (and cx) go with u and X, fy (and cy) with v and Y: " + FORMULA_HINT),
            ((u - cx) * z / fx, (v - cy) * z / fx, "Y was divided by fx, the focal length "
             "across the image, where fy belongs", "Y goes down the image, with fy: Y = (v - cy) "
             "* z / fy"),
            ((u - cx) * z / fy, (v - cy) * z / fy, "X was divided by fy, the focal length down "
             "the image, where fx belongs", "X goes across the image, with fx: X = (u - cx) * z "
             "/ fx"),
            ((u - cy) * z / fx, (v - cx) * z / fy, "cx and cy are swapped",
             "cx is the column of the image's centre, cy its row: " + FORMULA_HINT),
            ((u - cx) * z * fx, (v - cy) * z * fy, "X and Y are multiplied by the focal length "
             "instead of divided", "a pixel offset becomes metres by multiplying by the "
             "depth and DIVIDING by the focal length: " + FORMULA_HINT),
            (*inverse, "X and Y are divided by the depth", "projecting divides by Z (u = fx X "
             "/ Z + cx); going back multiplies by it: " + FORMULA_HINT),
            ((v - cy) * z / fy, (u - cx) * z / fx, "the X and Y planes are swapped",
             "X goes to xyz[i], Y to xyz[n + i]: " + FORMULA_HINT),
            ((u - cx) * z / fx, (cy - v) * z / fy, "Y has the wrong sign: (cy - v) where (v - cy) "
             "belongs", "Y points down the image, as v grows: Y = (v - cy) * z / fy"),
            ((cx - u) * z / fx, (v - cy) * z / fy, "X has the wrong sign: (cx - u) where (u - cx) "
             "belongs", "X points right, as u grows: X = (u - cx) * z / fx"),
            ((u - cx) / fx, (v - cy) / fy, "X and Y were not multiplied by the depth: (u - cx) / "
             "fx is only the ray's slope", "the point lies z along its ray: " + FORMULA_HINT),
            (*_transposed(depth.shape, cx, cy, fx, fy, z), "the pixel's index ran down the columns, "
             "i = u * height + v: thread (u, v) read and stored another pixel's depth, but "
             "computed X and Y from its own u and v", "the image is stored row after row: i = v * width + u"),
            *_one_slip(u, v, z, fx, fy, cx, cy), *_inverted(u, v, z, fx, fy, cx, cy, kept),
            *_other_centre(u, v, z, fx, fy, cx, cy), *_no_depth(u, v, z, fx, fy, cx, cy, kept)):
        yield np.stack([x, y, z]), problem, hint
    yield from _raw_depth(u, v, depth, fx, fy, cx, cy)
    yield from _projected(u, v, z, fx, fy, cx, cy)
    yield from _image_centre(u, v, z, fx, fy, cx, cy)
    yield from _offsets_cut(u, v, z, fx, fy, cx, cy)
    yield (backproject(depth, *intrinsics, 1), "the coordinates are in millimetres, 1000 times "
           "too large", "multiply the depth by depth_scale first: z = depth[i] * depth_scale "
           "(metres)")


def points_unwritten(unwritten, got, kept):
    """Every pixel that is a point never written, every other one NaN in all three planes: the
    return after the NaN stores ran for every pixel (an if without braces)."""
    if kept.any() and np.array_equal(unwritten.any(axis=0), kept) and unwritten[:, kept].all() \
            and np.isnan(got[:, ~kept]).all():
        yield ("only the pixels that are not points were written (NaN), the points never: the "
               "return after the NaN stores ran for every pixel, as an if without braces covers "
               "only the one statement after it", "put braces around what the if does, the NaN "
               "stores and the return: if (...) { ...; return; }")


def interleaved_nans(unwritten, got, kept):
    """The dropped pixels' NaNs stored as interleaved points, at xyz[3 * i + c]: their places in
    the planes never written but where such a NaN landed (a point's place may hold its own)."""
    dropped, flat_dropped = np.flatnonzero(~kept.ravel()), np.tile(~kept.ravel(), 3)
    stray = (3 * dropped[:, None] + np.arange(3)).ravel()
    expected = flat_dropped & ~np.isin(np.arange(flat_dropped.size), stray)
    if expected.any() and np.array_equal(unwritten.ravel(), expected) \
            and np.isnan(got.ravel()[stray[flat_dropped[stray]]]).all():
        yield ("the NaNs of the pixels that are not points went to xyz[3 * i], xyz[3 * i + 1] "
               "and xyz[3 * i + 2], as if each pixel's X, Y and Z lay side by side, but xyz is "
               "three planes of n = width * height floats: their places in the planes were never "
               "written", "a pixel that is not a point is NaN in all three planes: " + NAN_HINT)


def infinite_marks(got, kept, depth):
    """Pixels that are not points marked INFINITY, or 0 (some a measured depth), not NaN."""
    marks, zero = got[:, ~kept], not np.isinf(got[:, ~kept]).all()
    if kept.all() or np.isnan(got).any() or zero and not ((marks == 0).all() and depth[~kept].any()):
        return
    held = ("0 in X, Y and Z, not NaN, the out-of-range depths as well as the holes: 0, 0, 0 is a "
            "point, at the camera's centre," if zero else "infinity (INFINITY), not NaN: an "
            "infinity is a number, a point infinitely far away,")
    yield (f"the {int((~kept).sum())} pixels that are not points hold {held} that a tool reading "
           'the cloud keeps (and np.isnan does not find), where NaN is the mark of "no point '
           'here"', "mark them NaN" + ", not 0" * zero + ": " + NAN_HINT)


def n_too_large(past, unwritten, end: int, threads: int):
    """n taken larger than one plane's pixels, m > width * height: X right at xyz[i], Y and Z at
    xyz[m + i] and xyz[2 m + i], so Z runs past the end of xyz's 3 n floats (as far as the
    buffer's ``end``, guard included, shows). m a whole k >= 2 times n is xyz's length taken for
    n (k = 3); m = ``threads``, the threads the grid launched, counts the grid rounded up."""
    n = unwritten[0].size
    written = np.union1d(np.flatnonzero(~unwritten.ravel()[n:]) + n, np.asarray(past).ravel())
    if not written.size or unwritten[0].any():
        return
    m = int(written[0])
    stored = np.union1d(np.arange(m, m + n), np.arange(2 * m, 2 * m + n))
    if m <= n or not np.array_equal(written, stored[stored < end]):
        return
    hint = ("n = width * height, the pixels of one plane: X goes to xyz[i], Y to xyz[n + i] and Z "
            "to xyz[2 * n + i]")
    if m % n == 0:
        k = m // n
        yield (f"n is {k} times too large: Y and Z were stored {k} * {n} and {2 * k} * {n} "
               f"elements after X (xyz[{k} * {n} + i], xyz[{2 * k} * {n} + i]), past the end of "
               f"xyz's 3 * {n} floats, and its Y and Z planes were never written", hint)
        return
    why = (f": n = {m} is the number of threads launched, gridDim.x * blockDim.x * gridDim.y * "
           "blockDim.y, which the grid, rounded up to whole blocks, makes more than the pixels"
           if m == threads else "")
    yield (f"Y and Z were stored {m} and 2 * {m} elements after X (xyz[{m} + i], xyz[2 * {m} + "
           f"i]), not n = width * height = {n} apart, so Z ran past the end of xyz's 3 * {n} "
           f"floats{why}", hint)


def _outside(three, end):
    """Whether the three words compare a value as lying past ``end`` ("z_min": below it,
    "z_max": above it): z < z_min, z_min > z, z > z_max, z_max < z (or with =)."""
    below, above = ("<", "<="), (">", ">=")
    if end == "z_max":
        below, above = above, below
    return len(three) == 3 and (three[2] == end and three[1] in below or
                                three[0] == end and three[1] in above)


def range_anded(kernels, got, depth, intrinsics):
    """Every measured pixel kept, as by a kernel with no range filter, and the kernel's text
    joining "below z_min" and "above z_max" with &&: a test no z meets."""
    xyz = backproject(depth, *intrinsics, DEPTH_SCALE)
    unfiltered = np.where(depth > 0, xyz, np.float32(np.nan))
    if not np.allclose(got, unfiltered, 1e-5, 1e-6, equal_nan=True) or \
            (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for k in range(body + 4, end - 3):
        left, right = words[k - 3:k], words[k + 1:k + 4]
        if words[k] == "&&" and (_outside(left, "z_min") and _outside(right, "z_max") or
                                 _outside(left, "z_max") and _outside(right, "z_min")):
            test = source[tokens[k - 3].start:tokens[k + 3].end]
            yield (f"points outside [z_min, z_max] were kept, as a kernel without the range "
                   f"filter keeps them: the filter is there, but its two ends are joined with "
                   f"&&, {test}, which is never true (no z is below z_min and above z_max at "
                   "once), so it drops no point", "join the two ends with ||: a point is "
                   "dropped when either fails, z < z_min || z > z_max")
            return


def interleaved_points(got, want):
    """Every pixel's X, Y and Z stored side by side, at xyz[3 * i + c] (NumPy's (N, 3) layout),
    its NaNs too, where xyz is three planes: the right points, their floats in that order."""
    model = want.reshape(3, -1).T.reshape(want.shape)
    if np.allclose(got, model, 1e-5, 1e-6, equal_nan=True) and \
            not np.allclose(got, want, 1e-5, 1e-6, equal_nan=True):
        n, x = want[0].size, got.ravel()
        yield (f"every pixel's X, Y and Z went side by side to xyz[3 * i], xyz[3 * i + 1] and "
               f"xyz[3 * i + 2] (pixel 1's X, Y, Z at xyz[3], xyz[4], xyz[5]: {x[3]:.4g}, "
               f"{x[4]:.4g}, {x[5]:.4g}), its NaNs too, as in NumPy's (N, 3) array, but xyz is "
               f"three planes of n = width * height floats (n = {n}), X's first, then Y's, then Z's",
               "store pixel i's coordinates a plane apart: xyz[i] = X, xyz[n + i] = Y, "
               "xyz[2 * n + i] = Z (and the NaNs: " + NAN_HINT + ")")


def converted_twice(kernels, launch, z, wide):
    """Every pixel NaN, and Z 1000 times too small with the range opened to [0, ``wide``] (``z``,
    its plane): millimetres turned into metres twice. Told apart by the case launched again with
    depth_scale = 0.01: an extra / 1000 gives depth * 0.01 / 1000, depth_scale applied twice
    depth * 0.01 * 0.01."""
    import dataclasses

    from helpers.exercises.microscope import observe

    depth = launch.model
    measured = depth > 0
    metres = depth.astype(np.float32) * DEPTH_SCALE
    if not measured.any() or not np.allclose(z[measured], metres[measured] / 1000, 1e-5):
        return
    scale = np.float32(0.01)
    again = dataclasses.replace(launch, args=(*launch.args[:-3], scale, np.float32(0), wide))
    seen = observe(kernels, again, key="depth_scale 0.01, range 0 to FLT_MAX", racecheck=False)
    z01 = None if seen.error else seen.outs[0].got[2][measured]
    d = depth[measured].astype(np.float32) * scale
    how, hint = ("the millimetres were turned into metres twice", ", and nothing else")
    if z01 is not None and np.allclose(z01, d / 1000, 1e-5):
        how, hint = ("z was divided by 1000 after depth_scale, which had already turned "
                     "millimetres into metres", ", with no / 1000")
    elif z01 is not None and np.allclose(z01, d * scale, 1e-5):
        how, hint = ("depth_scale was applied twice (depth[i] * depth_scale * depth_scale)",
                     ", once")
    v, u = np.argwhere(measured)[0]
    yield (f"every pixel came out NaN: Z is 1000 times too small (depth {depth[v, u]} mm gave Z = "
           f"{z[v, u]:.4g} m, where depth[i] * depth_scale is {metres[v, u]:.4g} m, with the range "
           f"opened to [0, {wide:.3g}] on the simulator): {how}, so every Z lies below z_min and "
           "the range test drops every point", "depth_scale is metres per millimetre already: "
           "z = depth[i] * depth_scale" + hint)

