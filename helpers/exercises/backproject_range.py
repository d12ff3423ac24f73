"""Checker for the exercise of notebook 10: ``cuda_src/exercises/backproject_range.cu``.

``backproject_range``: pixel (u, v) of depth d (``uint16`` mm) is ``Z = d * depth_scale, X = (u -
cx) Z / fx, Y = (v - cy) Z / fy`` in three planes, NumPy's float32 to the bit, kept when ``d > 0``
and ``z_min <= Z <= z_max``, else NaN in all three (so the poison is another value), with fx != fy,
cx != cy, depths 0 and at both ends of the range. The last case runs on the simulator,
race-checked (a kernel in which every thread does the image writes each point many times)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from helpers.ch10.point_cloud import backproject
from helpers.exercises import near
from helpers.exercises.backproject_range_bits import last_bits
from helpers.exercises.backproject_range_models import (
    DEPTH_SCALE, FORMULA_HINT, NAN_HINT, converted_twice, infinite_marks, interleaved_nans,
    interleaved_points, n_too_large, points_unwritten, range_anded, some_planes_nan, wrong_models)
from helpers.exercises.backproject_range_ends import ends_dropped, range_in_double
from helpers.exercises.backproject_range_overwritten import nans_at_plane_starts, nans_overwritten
from helpers.exercises.backproject_range_rows import block_sides_swapped, v_steps_by_the_width
from helpers.exercises.backproject_range_scale import scale_ignored
from helpers.exercises.backproject_range_stores import planes_apart
from helpers.exercises.common import Input, Output, close
from helpers.exercises.coverage import Grid, Words, never_written, past_the_end, reached
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import kernel_words, observe, source_line, written_twice
from helpers.exercises.sepia_guard import Layout, read_before_the_guard
from helpers.exercises.verdict import matches
from helpers.exercises.origin import Wrong

Z_MIN_MM, Z_MAX_MM = 500, 4000
Z_MIN, Z_MAX = np.float32(Z_MIN_MM) * DEPTH_SCALE, np.float32(Z_MAX_MM) * DEPTH_SCALE
"""The ends of the range as float32 depths that some pixels reach exactly (rounded as the kernel
rounds them), so that "<" for "<=" shows. Each case gives its z_min (``z_min_mm``): at z_min = 0
a hole's Z = 0 lies in the range, so only the hole test drops it."""
WIDE = np.finfo(np.float32).max  # a z_max that keeps every finite depth
POISON = np.float32(-3.0e38)  # never a coordinate: a value still equal to it was never written
CASES = [
    dict(width=45, height=37, block=(16, 16, 1), fx=52.0, fy=47.5, cx=21.7, cy=19.4, seed=1,
         z_min_mm=Z_MIN_MM),
    # z_min = 0 (trust every measured depth): a hole's Z = 0 is in the range, so a kernel that
    # leaves out the hole test, counting on z < z_min to drop Z = 0, keeps holes here
    dict(width=70, height=29, block=(32, 8, 1), fx=66.0, fy=71.25, cx=37.2, cy=12.9, seed=2,
         z_min_mm=0),
    # last, a small one, race-checked on the simulator: it names a thread doing the whole image
    dict(width=21, height=10, block=(16, 8, 1), fx=30.0, fy=27.5, cx=10.3, cy=4.6, seed=3,
         z_min_mm=Z_MIN_MM, observe=True),
]
INTRINSICS = ("fx", "fy", "cx", "cy")

INDEX_HINT = ("u = blockIdx.x * blockDim.x + threadIdx.x (the column), "
              "v = blockIdx.y * blockDim.y + threadIdx.y (the row), i = v * width + u")
GUARD_HINT = ("the grid is rounded up to whole blocks, so some threads lie outside the image: "
              "return at once if (u >= width || v >= height)")
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT, array="xyz", col="u", row="v")


def _draw(rng):
    """The grader's cases: other odd sides on the shipped blocks, intrinsics, depth images."""
    drawn = []
    for shipped in CASES[:-1]:   # as many as the shipped cases launched on the backend
        block = pick(rng, [case["block"] for case in CASES[:-1]])
        width, height = awkward(rng, block[0], 10, 120), awkward(rng, block[1], 10, 120)
        fx, fy = (float(rng.integers(160, 320)) / 4 for _ in range(2))
        drawn.append(dict(width=width, height=height, block=block, fx=fx, fy=fy + (fx == fy),
                          cx=round(width * float(rng.uniform(0.4, 0.6)), 1),
                          cy=round(height * float(rng.uniform(0.4, 0.6)), 1),
                          seed=int(rng.integers(3, 1 << 30)),
                          z_min_mm=shipped["z_min_mm"]))
    return drawn


def z_min(case) -> np.float32:
    """The case's z_min in metres, as a float32."""
    return np.float32(case["z_min_mm"]) * DEPTH_SCALE


def depth_image(case) -> np.ndarray:
    """The case's depth image: random millimetres, 15% zeros, 3% each at, just inside and just
    outside both ends of the range, and 1% at 3 mm (too near: a kernel that compares
    millimetres with the range in metres keeps those)."""
    rng = np.random.default_rng(case["seed"])
    shape = (case["height"], case["width"])
    depth, share = rng.integers(1, 6000, shape), rng.random(shape)
    depth[share < 0.15] = 0
    for k, value in enumerate(end + d for end in (Z_MIN_MM, Z_MAX_MM) for d in (-1, 0, 1)):
        depth[(share >= 0.15 + 0.03 * k) & (share < 0.18 + 0.03 * k)] = value
    depth[(share >= 0.33) & (share < 0.34)] = 3
    return depth.astype(np.uint16)


def reference(depth, fx, fy, cx, cy, xyz=None, ranged=None, low=Z_MIN):
    """(xyz (3, h, w) float32 with NaN where no point, kept (h, w) bool), as the kernel with
    z_min = ``low``; or, for a wrong kernel's model, with ``xyz`` its points
    (``point_cloud.backproject`` of other depths) and ``ranged`` what it compared with z_min and
    z_max (by default its Z)."""
    xyz = backproject(depth, fx, fy, cx, cy, DEPTH_SCALE) if xyz is None else xyz
    ranged = xyz[2] if ranged is None else ranged
    kept = (depth > 0) & (ranged >= low) & (ranged <= Z_MAX)
    return np.where(kept, xyz, np.float32(np.nan)).astype(np.float32), kept


def _grid(case):
    return Grid(case["height"], case["width"], case["block"])


def _where(case):
    low = f", z_min = {z_min(case):g} m" if z_min(case) != Z_MIN else ""
    return (f"{_grid(case).where()}, fx = {case['fx']}, fy = {case['fy']}, cx = {case['cx']}, "
            f"cy = {case['cy']}{low}")


def _guard(case) -> int:
    """Room after xyz for any index a plausible wrong kernel computes: four spans, so that a
    kernel whose n is three planes (Z at xyz[6 n + i]) writes into it, never past it."""
    return 4 * _grid(case).span()


def _launch(case):
    grid, depth = _grid(case), depth_image(case)
    xyz = Output((3, grid.height, grid.width), guard=_guard(case), poisons=(POISON,))
    return Launch((Input(depth, grid.span()), xyz, np.int32(grid.width),
                   np.int32(grid.height), *(np.float32(case[k]) for k in INTRINSICS),
                   DEPTH_SCALE, z_min(case), Z_MAX), block=case["block"], grid=grid.grid, model=depth)


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), "each thread does its own pixel and no other: "
                         f"{INDEX_HINT}; no loop over the whole image", items="pixels")


def _mistakes(case, run):
    depth, got, low = run.model, run.out.got, z_min(case)
    intrinsics = [case[k] for k in INTRINSICS]
    want, kept = reference(depth, *intrinsics, low=low)
    n = got[0].size   # Z's stores past the end are pixels i >= n, as one plane's would be
    yield from n_too_large(run.out.past, run.out.unwritten, 3 * n + _guard(case),
                           int(np.prod(_grid(case).threads)))
    yield from past_the_end(run.out.past - 2 * n, _grid(case), WORDS, GUARD_HINT)
    yield from points_unwritten(run.out.unwritten, got, kept)
    yield from interleaved_nans(run.out.unwritten, got, kept)
    yield from interleaved_points(got, want)
    yield from nans_at_plane_starts(run.out.unwritten, got, kept)
    yield from _unwritten(run.out.unwritten, case, kept, run.kernel)
    yield from matches(got, _wrong_depths(depth, intrinsics, low),
                       lambda got, model: np.allclose(got, model, 1e-5, 1e-6, equal_nan=True))
    yield from _whole_metres(run.kernel, case, got, depth, low)
    yield from nans_overwritten(run.kernel, got, kept, backproject(depth, *intrinsics, DEPTH_SCALE),
                                _launch(CASES[-1]))
    yield from infinite_marks(got, kept, depth)
    yield from _tests_joined(run.kernel, np.isnan(got), depth, low)
    yield from _every_depth_dropped(run.kernel, case, np.isnan(got))
    yield from range_anded(run.kernel, got, depth, intrinsics)
    yield from some_planes_nan(got, kept, depth)
    yield from range_in_double(run.kernel, _launch(case), np.isnan(got), (low, Z_MAX))
    yield from _wrong_nans(np.isnan(got), kept, depth, low)
    if not close(got[:, kept], want[:, kept]):
        yield from matches(got, wrong_models(depth, intrinsics, kept),
                           lambda got, model: close(got[:, kept], model[:, kept]))
        bad = ~np.isclose(got, want, rtol=1e-5, atol=1e-6) & kept
        for plane in np.flatnonzero(bad.any(axis=(1, 2))):   # a plane's formula: its values
            yield from near.values("XYZ"[plane], got[plane][kept].astype(np.float64),
                                   want[plane][kept].astype(np.float64), near.Tolerance(near.within()))
        plane, fv, fu = np.argwhere(bad)[0]
        yield Wrong(f"{int(bad.sum())} values differ from NumPy's (the first: {'XYZ'[plane]} of "
                    f"pixel u = {fu}, v = {fv}: got {got[plane, fv, fu]:.6g}, expected "
                    f"{want[plane, fv, fu]:.6g})", FORMULA_HINT, "xyz",
                    np.ravel_multi_index((plane, fv, fu), got.shape))
    yield from scale_ignored(run.kernel, _launch(case), got)
    yield from _read_before_the_guard(case, run.kernel)
    yield from last_bits(run.kernel, got, depth, intrinsics, kept)


def _read_before_the_guard(case, kernels):
    """Every point right, but depth read above the bounds guard (the kernel's text): past its end."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, _, _, end = text
    yield from read_before_the_guard(_grid(case), source[:tokens[end].end], kernels.simulated.name,
                                     functools.partial(source_line, source),
                                     layout=Layout(1, "pixels", "u", "v", "xyz"))


def _unwritten(unwritten, case, kept, kernels):
    """Mistakes that leave parts of xyz unwritten: the holes, some planes of a dropped pixel, a
    plane, the index, the guard (``kernels``: the kernel's, launched again on the simulator)."""
    if not unwritten.any():
        return
    if unwritten.all():
        yield ("nothing was written: xyz still holds the poison the checker filled it with",
               "every thread writes its pixel's X, Y and Z (or NaN) into the three planes")
    yield from planes_apart(unwritten, case, kept)
    holes = depth_image(case) == 0
    if holes.any() and np.array_equal(unwritten.any(axis=0), holes) and unwritten[:, holes].all():
        v, u = np.argwhere(holes)[0]
        yield (f"the {int(holes.sum())} holes (depth 0, the first u = {u}, v = {v}) were never "
               "written, in any plane, and every other pixel was: the kernel returns for a hole "
               "without writing its NaN, so the cloud's holes hold whatever xyz held before",
               'a hole is no point either: write nanf("") into all three planes before '
               "returning, as for a Z outside [z_min, z_max]: if (depth[i] == 0 || z < z_min || "
               'z > z_max) { xyz[i] = xyz[n + i] = xyz[2 * n + i] = nanf(""); return; }')
    planes, at_dropped = np.array(list("XYZ")), unwritten[:, ~kept].all(axis=1)
    if not unwritten[:, kept].any() and at_dropped.any() and not at_dropped.all():
        missing = " and ".join(planes[at_dropped])
        yield (f"at the pixels that are not points, only {' and '.join(planes[~at_dropped])} got "
               f"NaN: {missing} {'were' if ' and ' in missing else 'was'} never written there",
               "a pixel that is not a point is NaN in all three planes: " + NAN_HINT)
    per_plane = unwritten.reshape(3, -1).all(axis=1)
    if per_plane.any() and not per_plane.all():
        yield (f"the {', '.join(planes[per_plane])} plane of xyz was never written", "X goes to "
               "xyz[i], Y to xyz[n + i] and Z to xyz[2 * n + i], with n = width * height")
    pixel = unwritten.any(axis=0)
    yield from v_steps_by_the_width(~pixel, case, kernels, _launch, INDEX_HINT)
    yield from block_sides_swapped(~pixel, _grid(case), INDEX_HINT)
    yield from reached(~pixel, _grid(case), WORDS)
    yield from never_written(pixel, WORDS)


def _wrong_depths(depth, intrinsics, low):
    """(xyz, problem, hint) of kernels whose depth is wrong, their NaNs too (so these come
    before the rules of which pixels are points)."""
    for xyz, ranged, problem, hint in (
            (backproject(depth, *intrinsics, 1), None, "Z is in millimetres: depth[i] was used "
             "without depth_scale, so it was also compared with z_min and z_max (metres) in "
             "millimetres, and nearly every pixel came out NaN", "multiply the depth by "
             "depth_scale first: z = depth[i] * depth_scale (metres), then test z < z_min || "
             "z > z_max"),
            (None, depth.astype(np.float32), "the range was tested in two units: the pixels kept "
             "are those whose depth in millimetres lies between z_min and z_max in metres, as "
             "when depth[i] is compared with them, or z with the limits times depth_scale (the "
             "same test), so nearly every pixel lies past z_max and came out NaN", "z_min and "
             "z_max are metres already, like z = depth[i] * depth_scale: compare z with them "
             "exactly as passed in, z < z_min || z > z_max, with no depth_scale on the limits"),
            ):
        yield reference(depth, *intrinsics, xyz=xyz, ranged=ranged, low=low)[0], problem, hint


def _whole_metres(kernels, case, got, depth, low):
    """Z in whole metres (depth[i] / 1000 in ints, or z declared int): told apart by the case
    launched again on the simulator with depth_scale = 0.01 and the range [0, FLT_MAX], where
    the division still gives depth / 1000 and the int z gives depth * 0.01 cut."""
    intrinsics = [case[k] for k in INTRINSICS]
    model = reference(depth, *intrinsics, xyz=backproject(depth // 1000, *intrinsics, 1), low=low)
    if not np.allclose(got, model[0], 1e-5, 1e-6, equal_nan=True):
        return
    launch, scale = _launch(case), np.float32(0.01)
    again = dataclasses.replace(launch, args=(*launch.args[:-3], scale, np.float32(0), WIDE))
    seen = observe(kernels, again, key="depth_scale 0.01", racecheck=False)
    z, measured = None if seen.error else seen.outs[0].got[2], depth > 0
    cut = np.trunc(depth.astype(np.float32) * scale)
    v, u = np.argwhere(model[1] & (depth % 1000 > 0))[0]
    d, metres = int(depth[v, u]), float(np.float32(depth[v, u]) * DEPTH_SCALE)
    if z is not None and np.array_equal(z[measured], cut[measured]):
        yield (f"z is declared int, so depth[i] * depth_scale ({metres:g} m for {d} mm) is cut "
               f"to a whole number of metres ({int(metres)} m) when stored in it, and X, Y and Z "
               "come from the cut z", "declare z a float, as depth_scale is: float z = "
               "depth[i] * depth_scale")
    elif z is not None and np.array_equal(z[measured], depth[measured] // 1000):
        yield (f"Z came out in whole metres ({d} mm gave {d // 1000} m): depth[i] / 1000 divides "
               "two integers, which drops the fraction", "multiply by the float depth_scale: "
               "z = depth[i] * depth_scale")
    yield (f"Z came out in whole metres ({d} mm gave {d // 1000} m): the depth was cut to a whole "
           "number before X, Y and Z were computed", "keep z a float: float z = depth[i] * "
           "depth_scale")


def _tests_joined(kernels, nan, depth, low):
    """The hole test and the range test joined with &&: with z_min > 0 the holes (Z = 0 < z_min)
    NaN and every measured depth kept, as with no range test; with z_min = 0 (the second case,
    launched on the simulator) the holes kept too, where a kernel without the range test still
    drops them."""
    z = depth.astype(np.float32) * DEPTH_SCALE
    if low <= 0 or not np.array_equal(nan.all(axis=0), depth == 0) or \
            (nan.any(axis=0) != nan.all(axis=0)).any() or not (z > Z_MAX).any():
        return
    launch = _launch(dict(CASES[1], observe=True))
    seen = observe(kernels, launch, key="z_min 0", racecheck=False)
    if seen.error is not None or not (launch.model == 0).any() or np.isnan(seen.outs[0].got).any():
        return
    yield ("points outside [z_min, z_max] were kept, and with z_min = 0 the holes (depth 0) too: "
           "only a pixel that is a hole AND out of range was dropped, as the hole test and the "
           "range test joined with && do (depth[i] == 0 && (z < z_min || z > z_max)), where "
           "either one alone makes the pixel no point", "join the three tests with ||: "
           "if (depth[i] == 0 || z < z_min || z > z_max), then " + NAN_HINT)


def _every_depth_dropped(kernels, case, nan):
    """Every pixel NaN: the case launched again on the simulator with the range [0, FLT_MAX],
    which keeps every measured depth. Its Z depth[i] / depth_scale: the depth divided by the
    scale; every pixel NaN again: the range test holds for any z, its bounds swapped."""
    if not nan.any(axis=0).all():
        return
    launch = _launch(case)
    wide = dataclasses.replace(launch, args=(*launch.args[:-2], np.float32(0), WIDE))
    seen = observe(kernels, wide, key="range 0 to FLT_MAX", racecheck=False)
    if seen.error is not None:
        return
    got, depth, measured = seen.outs[0].got, launch.model, launch.model > 0
    if measured.any() and np.allclose(got[2][measured], depth[measured] / DEPTH_SCALE, 1e-5):
        v, u = np.argwhere(measured)[0]
        z = got[2, v, u]
        yield (f"every pixel came out NaN: z = depth[i] / depth_scale is {1 / DEPTH_SCALE ** 2:.0e} "
               f"times the depth in metres (depth {depth[v, u]} mm gave Z = {z:.6g} m, with the "
               f"range opened to [0, {WIDE:.3g}] on the simulator), past z_max = {Z_MAX:g} m, "
               "so the range test drops every point", "depth_scale is metres per millimetre: "
               "multiply by it, z = depth[i] * depth_scale")
    yield from converted_twice(kernels, launch, got[2], WIDE)
    if np.isnan(got).all():
        yield (f"every pixel came out NaN, the measured depths in [z_min, z_max] too, and again "
               f"with the range opened to [0, {WIDE:.3g}] on the simulator: the range test drops "
               "every depth (with its bounds swapped, z < z_max || z > z_min, it holds for any z)",
               "drop a point only below z_min or above z_max: z < z_min || z > z_max")


def _wrong_nans(nan, kept, depth, low):
    """Mistakes in which pixels are points (with z_min = ``low``), every pixel NaN in all planes or
    in none (``some_planes_nan`` names the others)."""
    some, z = nan.any(axis=0), depth.astype(np.float32) * DEPTH_SCALE
    zero_kept, far_kept, near_kept = ((depth == 0) & ~some, (depth > 0) & (z > Z_MAX) & ~some,
                                      (depth > 0) & (z < low) & ~some)
    if zero_kept.any() and low <= 0:
        yield (f"{int(zero_kept.sum())} holes (depth 0) were kept as points at the camera's "
               f"centre (X = Y = Z = 0): the depth == 0 test is missing; with z_min = {low:g} m "
               "a hole's Z = 0 lies in the range, so the range test does not drop it",
               "depth 0 means the camera measured nothing there, whatever the range: test "
               "depth[i] == 0 || z < z_min || z > z_max, and for any of them " + NAN_HINT)
    if zero_kept.any():
        yield (f"{int(zero_kept.sum())} pixels with no measurement (depth 0) were kept as points "
               "(at X = Y = Z = 0, the camera's centre)", "depth 0 means the camera measured "
               "nothing there: test depth[i] == 0 and " + NAN_HINT)
    if far_kept.any() and near_kept.any():
        yield ("points outside [z_min, z_max] were kept: the range filter is missing",
               "a point with z < z_min or z > z_max is not kept either: " + NAN_HINT)
    if far_kept.any() or near_kept.any():
        yield (f"points {'farther than z_max' if far_kept.any() else 'nearer than z_min'} were "
               "kept", "test both ends: z < z_min || z > z_max")
    dropped = kept & some
    if dropped.any() and ((z == low) | (z == Z_MAX))[dropped].all():
        yield ends_dropped(z, dropped, kept & ~some, (low, Z_MAX))
    if dropped.any():
        fv, fu = np.argwhere(dropped)[0]
        yield (f"{int(dropped.sum())} pixels with a depth inside [z_min, z_max] came out NaN "
               f"(the first is u = {fu}, v = {fv}, depth {depth[fv, fu]} mm)",
               "only depth 0 and Z outside [z_min, z_max] make NaN; keep every other pixel")


def _chained_range(kernel, record):
    """The range test written as mathematics writes it, z_min <= z <= z_max (the compiler's
    record of a chained comparison), confirmed by the first case's points: C reads it as
    (z_min <= z) <= z_max, 0 or 1 against z_max, true for every depth, so the kernel keeps
    every measured pixel, as a model of that test does."""
    if record.kind != "chained comparison":   # a ! on a comparison's left side: the general words
        return None
    case = CASES[0]
    try:
        next(EXERCISE.run(kernel, _launch(case)))
        return None
    except StopIteration as stop:
        run = stop.value
    if run is None:
        return None
    depth, low = run.model, z_min(case)
    z = depth.astype(np.float32) * DEPTH_SCALE
    chain = (z >= low).astype(np.float32) <= Z_MAX
    model, _ = reference(depth, *(case[k] for k in INTRINSICS), ranged=np.where(chain, low, -1),
                         low=low)
    out = (depth > 0) & ((z < low) | (z > Z_MAX))
    if not out.any() or not np.allclose(run.out.got, model, 1e-5, 1e-6, equal_nan=True):
        return None
    v, u = np.argwhere(out)[0]
    return (f"the range test at line {record.line} chains two comparisons, z_min <= z <= z_max, "
            "which C does not read as mathematics does: it is (z_min <= z) <= z_max, and "
            f"z_min <= z is 0 or 1, never above z_max = {Z_MAX:g} m, so the test holds for every "
            f"depth: all {int(out.sum())} measured pixels outside [z_min, z_max] were kept as "
            f"points (the first u = {u}, v = {v}, z = {z[v, u]:g} m, with z_min = {low:g} m)",
            "test each end with its own comparison and join them: if (depth[i] == 0 || z < z_min "
            "|| z > z_max), or !(z_min <= z && z <= z_max)")


EXERCISE = KernelExercise(
    stub="exercises/backproject_range.cu", kernel="backproject_range",
    signature="const unsigned short *depth, float *xyz, int width, int height, float fx, "
              "float fy, float cx, float cy, float depth_scale, float z_min, float z_max",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint=GUARD_HINT + "; and read only depth[i] of your own pixel",
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    compared=_chained_range,
    success=f"every point matches NumPy's back-projection, and exactly the pixels with no "
            f"measurement or outside [z_min, z_max] are NaN (z_min = {Z_MIN_MM / 1000:g} m and "
            f"0 m, z_max = {Z_MAX_MM / 1000:g} m; {len(CASES) - 1} images whose sides are not "
            "multiples of the block; each pixel written by one thread, nothing written outside "
            "the image)")

check_backproject_range = EXERCISE.check_file          # (path="exercises/backproject_range.cu")
check_backproject_range_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
