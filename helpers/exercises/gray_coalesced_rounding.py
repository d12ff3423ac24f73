"""gray_coalesced's grey values a level off NumPy's: bt601_gray's rounding (the weighted sum
+ 0.5f, truncated by the cast) done another way. A GPU's fused multiply-adds may land a sum that
lies within ``SLACK`` of the .5 where the rounding steps on either side, so a right kernel may be
a level off there, and only there: a level off anywhere else is a mistake, named by its model
(truncated, rounded twice) or, where none fits, by where it lies."""

from __future__ import annotations

import numpy as np

from helpers.exercises.gray_coalesced_models import half_outside_the_cast


def reference(rgb, weights=(0.299, 0.587, 0.114), half=0.5):  # bt601_gray's grey, in float32
    r, g, b = (rgb[..., c].astype(np.float32) for c in range(3))
    wr, wg, wb = (np.float32(w) for w in weights)
    return (wr * r + wg * g + wb * b + np.float32(half)).astype(np.uint8)


def _weighted_sum(rgb):
    """Each pixel's weighted sum, exact (float64): where it lies against the steps of rounding."""
    return rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114])


SLACK = 0.01
"""How near a weighted sum may lie to the fraction where its grey value steps (.5 rounded, .0
truncated) for a GPU's fused multiply-adds to land it on either side: a level off there only."""


def _off_by_rounding(got, rgb, half):
    """(how many grey values are one level off NumPy's, the first telling pixel in words) where
    every grey value is bt601_gray's with + ``half`` for its + 0.5f (the model, exact but within
    ``SLACK`` of a whole number, where it steps): 0.0 truncates, one below NumPy's where the
    fraction is .5 or more; 1.0 rounds up, one above where it is below .5. A right kernel is off
    by a level only within ``SLACK`` of .5. None where the grey values are not the model's."""
    want, model = reference(rgb).astype(int), reference(rgb, half=half).astype(int)
    exact = _weighted_sum(rgb)
    fraction = exact - np.floor(exact)
    step = np.minimum(fraction, 1 - fraction) < SLACK
    off = np.abs(got.astype(int) - model)
    telling = (model != want) & ~step & (np.abs(fraction - 0.5) >= SLACK)
    if not telling.any() or np.where(step, off > 1, off > 0).any():
        return None
    first, level = np.flatnonzero(telling.ravel())[0], 1 if half > 0.5 else -1
    return (int((got.astype(int) == want + level).sum()), f"pixel {first}'s weighted sum "
            f"{exact.ravel()[first]:.2f} became {model.ravel()[first]}, not {want.ravel()[first]}")


def _rounded_up(got, rgb):
    """Every grey value one above NumPy's where the weighted sum's fraction is below .5: + 0.5f
    and then a conversion that rounds to the nearest too (__float2uint_rn, rintf), or + 1.0f."""
    found = _off_by_rounding(got, rgb, 1.0)
    if found:
        yield (f"grey values were rounded up, not to the nearest ({found[0]} of {got.size} pixels "
               "one above, where the weighted sum's fraction is below .5): the + 0.5f moves the "
               "sum up half a level, and the conversion after it rounded to the nearest again "
               "(__float2uint_rn, rintf) instead of dropping the fraction as the cast to unsigned "
               f"char does ({found[1]})", "round once: the stub's cast truncates, and the + 0.5f "
               "before it makes that the nearest level: return (unsigned char)(0.299f * r + "
               "0.587f * g + 0.114f * b + 0.5f); (or __float2uint_rn of the sum alone, without "
               "the + 0.5f)")


def rounded_wrong(got, rgb, kernels):
    """Grey values a level off NumPy's that a right kernel's are not: the weighted sum
    truncated (one below), rounded up (one above), or off elsewhere than at a step."""
    yield from _truncated(got, rgb, kernels)
    yield from _rounded_up(got, rgb)
    yield from off_a_level(got, rgb)


def _truncated(got, rgb, kernels):
    """bt601_gray without its + 0.5f: every grey value the weighted sum truncated, one below
    NumPy's where its fraction is .5 or more (``_off_by_rounding``)."""
    found = _off_by_rounding(got, rgb, 0.0)
    if not found:
        return
    below, shown = f"{found[0]} of {got.size} pixels one below", found[1]
    outside = half_outside_the_cast(kernels)
    if outside:
        yield (f"grey values were truncated, not rounded ({below}): the + 0.5f is outside the "
               f"cast: {outside} truncates the sum to unsigned char first, then adds 0.5 to the "
               f"whole number, and the return to unsigned char drops that 0.5 again ({shown})",
               "move the + 0.5f inside the cast's parentheses, so that it is added before the "
               "conversion: return (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);")
    yield (f"grey values were truncated, not rounded ({below}): bt601_gray's + 0.5f is missing, "
           f"so the conversion to unsigned char drops the fraction ({shown})",
           "round to the nearest grey level: return (unsigned char)(0.299f * r + 0.587f * g + "
           "0.114f * b + 0.5f);, the stub's bt601_gray line")


def off_a_level(got, rgb):
    """Grey values one level off NumPy's where the weighted sum lies more than ``SLACK`` from
    the .5 at which rounding steps (a constant added, a rounding of another kind), in a kernel
    whose values are nowhere further off (those are the other models')."""
    want = reference(rgb).astype(int)
    exact = _weighted_sum(rgb)
    off = (got.astype(int) - want).ravel()
    far = (np.abs(off) == 1) & (np.abs(exact - np.floor(exact) - 0.5) >= SLACK).ravel()
    if not far.any() or (np.abs(off) > 1).any():
        return
    first, above = np.flatnonzero(far)[0], int((off[far] > 0).sum())
    yield (f"{int(far.sum())} of {got.size} grey values are a level off NumPy's ({above} above, "
           f"{int(far.sum()) - above} below) where the weighted sum lies far from the .5 at which "
           f"rounding steps: pixel {first}'s sum {exact.ravel()[first]:.2f} is grey "
           f"{want.ravel()[first]}, and the kernel wrote {got.ravel()[first]}",
           "compute the grey value as bt601_gray does, adding and rounding nothing else: "
           "return (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);")
