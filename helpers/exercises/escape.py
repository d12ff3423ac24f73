"""Notebook 03's escape-time loop in NumPy, float32 in the kernels' order: the model that the
Mandelbrot and Julia exercises (``escape_steps``, ``mandelbrot_rows``, ``julia``) share."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

REMEMBERED_BYTES = 64 << 20   # results kept, oldest dropped first: a check's models of its cases
_remembered: OrderedDict[tuple, np.ndarray] = OrderedDict()


def escape_counts(z_re, z_im, c_re, c_im, max_iter: int, **change) -> np.ndarray:
    """The escape counts (see ``_counts``), a copy of a result computed before where the same
    arguments came again: a check computes each of its wrong kernels' models (a few
    milliseconds each) until one matches, and a learner's next check asks for the same ones
    (the three escape-time exercises' models of all their cases: 83, 5.3 MiB, in their tests)."""
    digest = hashlib.blake2b(digest_size=16)
    for a in (z_re, z_im, c_re, c_im):
        a = np.ascontiguousarray(a, np.float32)
        digest.update(repr(a.shape).encode())
        digest.update(a.tobytes())
    key = (digest.digest(), max_iter, tuple(sorted(change.items())))
    if key not in _remembered:
        _remembered[key] = _counts(z_re, z_im, c_re, c_im, max_iter, **change)
        while sum(a.nbytes for a in _remembered.values()) > REMEMBERED_BYTES:
            _remembered.popitem(last=False)
    _remembered.move_to_end(key)
    return _remembered[key].copy()


def _counts(z_re, z_im, c_re, c_im, max_iter: int, bound=4, twice=2,
            im2_sign=-1, box=False, whole=False, first=None,
            int_squares=False, squares_doubled=False, im_of_squares=False,
            c_in_re="re", c_in_im="im", c_im_sign=1, c_re_sign=1, im2_mixed=False,
            every=1) -> np.ndarray:
    """Steps of z -> z*z + c until |z|^2 > ``bound`` (at most ``max_iter``), element by element,
    in float32 in the kernels' order; on the pixels still running only, so its cost falls as
    they escape. ``twice`` and ``im2_sign``: the step's z_im = twice*z_re*z_im + c_im and
    z_re = z_re^2 + im2_sign*z_im^2 + c_re (other values: a wrong kernel's model); ``box``: the
    escape tested on each part, |z_re| or |z_im| above sqrt(bound) (a wrong kernel's too);
    ``whole``: z kept in ints, its start and every step's result truncated toward 0;
    ``int_squares``: the squares re2 and im2 kept in ints, truncated toward 0 at each step (z
    itself a float), a wrong kernel's model; ``squares_doubled``, ``im_of_squares``,
    ``c_in_re``, ``c_in_im``, ``c_im_sign`` and ``c_re_sign``: the wrong steps of
    ``WRONG_STEPS`` (squares doubled, z may grow to inf - inf = NaN, which the kernels' break
    at re2 + im2 > 4.0f never passes); ``first``: "re" or "im", that part updated first and
    the other computed from its NEW value (z_im = 2*z_re*z_im + c_im after z_re changed;
    z_re = z_re*z_re - z_im*z_im + c_re after z_im changed), a wrong kernel's model;
    ``im2_mixed``: im2 = z_im * z_re (a wrong kernel's; re2 + im2 stays small while z grows
    along z_im = -z_re, to inf - inf = NaN); ``every``: |z|^2 tested only before every
    ``every``-th step (a wrong kernel's, two steps a test: a point that escapes between two
    tests takes the steps up to the next, and counts them)."""
    f32 = np.float32
    arrays = np.broadcast_arrays(*(np.asarray(a, f32) for a in (z_re, z_im, c_re, c_im)))
    shape, (zr, zi, cr, ci) = arrays[0].shape, (a.ravel() for a in arrays)
    counts, idx = np.zeros(zr.size, np.int32), np.arange(zr.size)  # idx: the pixels running
    cut = np.trunc if whole else (lambda a: a)
    zr, zi = cut(zr), cut(zi)
    cr, ci = (ci if c_in_re == "im" else cr), (cr if c_in_im == "re" else ci)
    ci = ci * np.float32(c_im_sign)
    cr = cr * np.float32(c_re_sign)
    with np.errstate(over="ignore", invalid="ignore"):   # a huge c may overflow: it escapes
        for step in range(max_iter):
            re2, im2 = (zr * f32(2), zi * f32(2)) if squares_doubled else (zr * zr, zi * zi)
            im2 = zi * zr if im2_mixed else im2
            if int_squares:
                re2, im2 = np.trunc(re2), np.trunc(im2)
            size = re2 + im2                 # doubled, it may be NaN: break at > 4 goes on
            going = (~(size > f32(bound)) if squares_doubled or im2_mixed else
                     size <= f32(bound)) \
                if not box else \
                (np.abs(zr) <= f32(np.sqrt(bound))) & (np.abs(zi) <= f32(np.sqrt(bound)))
            going |= step % every != 0       # between two tests every pixel takes its step
            if not going.all():              # drop the pixels that escaped
                idx, zr, zi, cr, ci, re2, im2 = (a[going] for a in (idx, zr, zi, cr, ci, re2, im2))
                if idx.size == 0:
                    break
            if first == "re":
                zr = cut(re2 + f32(im2_sign) * im2 + cr)
                zi = cut(f32(twice) * zr * zi + ci)
                counts[idx] += 1
                continue
            zi = cut(f32(twice) * (re2 * im2 if im_of_squares else zr * zi) + ci)
            zr = cut(re2 + f32(im2_sign) * (zi * zi if first == "im" else im2) + cr)
            counts[idx] += 1
    return counts.reshape(shape)


WRONG_STEPS = {
    "squares_doubled": dict(squares_doubled=True),  # re2 = z_re * 2, im2 = z_im * 2
    "im_of_squares": dict(im_of_squares=True),      # z_im = 2.0f * re2 * im2 + c_im
    "c_im_in_re": dict(c_in_re="im"),               # z_re = re2 - im2 + c_im
    "c_re_in_im": dict(c_in_im="re"),               # z_im = 2.0f * z_re * z_im + c_re
    "c_im_subtracted": dict(c_im_sign=-1),          # z_im = 2.0f * z_re * z_im - c_im
    "c_re_subtracted": dict(c_re_sign=-1),          # z_re = re2 - im2 - c_re
    "im2_added": dict(im2_sign=1),                  # z_re = re2 + im2 + c_re
    "im2_mixed": dict(im2_mixed=True),              # im2 = z_im * z_re
}
"""Wrong steps of the escape loop that the three exercises share, each the change to
``escape_counts`` that models it; each exercise names them in its own words (``wrong_steps``)."""


def wrong_steps(z_re, z_im, c_re, c_im, max_iter: int, words: dict):
    """(counts, problem, hint) of each wrong step that ``words`` names, in its order: a name of
    WRONG_STEPS, and a function of (the wrong count, the right count, the index) at the first
    element where the two differ that gives the exercise's (problem, hint)."""
    right = escape_counts(z_re, z_im, c_re, c_im, max_iter)
    for name, say in words.items():
        wrong = escape_counts(z_re, z_im, c_re, c_im, max_iter, **WRONG_STEPS[name])
        at = np.unravel_index(int(np.argmax(wrong != right)), wrong.shape)
        yield wrong, *say(int(wrong[at]), int(right[at]), tuple(int(i) for i in at))


def stopped_short(ref, max_iter: int, counter: str = "n"):
    """(counts, problem, hint) of a loop whose test stops it a step before max_iter (``counter``
    < max_iter - 1): every count capped at max_iter - 1, the points that never escape one short,
    the others as they were."""
    return (np.minimum(ref, max_iter - 1), f"the points that never escape count max_iter - 1 = "
            f"{max_iter - 1}, not max_iter = {max_iter}, and the others are right: the loop's "
            f"test stops it a step early, as {counter} < max_iter - 1 does",
            f"loop while {counter} < max_iter: {counter} counts the steps taken, up to max_iter")


def pixel_grid(width, height, x_min, y_min, dx, dy, fused=False):
    """(re, im) float32 arrays of shape (height, width): re = x_min + x*dx, im = y_min + y*dy,
    the product rounded to float32 before the sum; ``fused``: each rounded once, as a GPU's
    fused multiply-add computes it (nvcc contracts a*b + c into one by default, and so does the
    simulator where the CPU has the instruction)."""
    f32, f64 = np.float32, np.float64
    if fused:   # the product of two float32s is exact in float64: one rounding, at the end
        re = (np.arange(width) * f64(f32(dx)) + f64(f32(x_min))).astype(f32)
        im = (np.arange(height) * f64(f32(dy)) + f64(f32(y_min))).astype(f32)
    else:
        re = f32(x_min) + np.arange(width, dtype=f32) * f32(dx)
        im = f32(y_min) + np.arange(height, dtype=f32) * f32(dy)
    return (np.broadcast_to(re[None, :], (height, width)),
            np.broadcast_to(im[:, None], (height, width)))
