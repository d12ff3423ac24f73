"""The escape-time model that the escape-time exercises share (helpers/exercises/escape):
its counts against a loop written out pixel by pixel, and the results it remembers."""

import numpy as np

from helpers.exercises import escape

f32 = np.float32


def one_pixel(z_re, z_im, c_re, c_im, max_iter):
    """Notebook 03's loop for one pixel, in float32."""
    count = 0
    while count < max_iter and z_re * z_re + z_im * z_im <= f32(4):
        z_re, z_im = z_re * z_re - z_im * z_im + c_re, f32(2) * z_re * z_im + c_im
        count += 1
    return count


def test_the_counts_are_the_loop_s_pixel_by_pixel():
    re, im = escape.pixel_grid(17, 11, -2.0, -1.25, 0.15, 0.23)
    got = escape.escape_counts(np.zeros_like(re), np.zeros_like(im), re, im, 40)
    want = [[one_pixel(f32(0), f32(0), re[y, x], im[y, x], 40) for x in range(17)]
            for y in range(11)]
    assert np.array_equal(got, want) and 0 < got.min() < got.max() == 40


def test_a_result_asked_again_is_a_copy_of_the_first_and_other_arguments_are_not_mixed_up():
    re, im = escape.pixel_grid(9, 7, -1.5, -1.0, 0.3, 0.3)
    first = escape.escape_counts(re, im, f32(-0.8), f32(0.156), 30)
    first[...] = -1                                    # a caller's changes stay its own
    again = escape.escape_counts(re, im, f32(-0.8), f32(0.156), 30)
    assert np.array_equal(again, escape._counts(re, im, f32(-0.8), f32(0.156), 30))
    assert not np.array_equal(again, escape.escape_counts(re, im, f32(-0.8), f32(0.156), 30,
                                                          twice=1))
    assert not np.array_equal(again, escape.escape_counts(im, re, f32(-0.8), f32(0.156), 30))
    assert sum(a.nbytes for a in escape._remembered.values()) <= escape.REMEMBERED_BYTES


def one_wrong_pixel(name, z_re, z_im, c_re, c_im, max_iter):
    """The Julia kernel's loop for one pixel, in float32, with one of escape.WRONG_STEPS in it:
    it breaks at re2 + im2 > 4.0f, which a NaN never passes."""
    count = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while count < max_iter:
            re2, im2 = ((z_re * f32(2), z_im * f32(2)) if name == "squares_doubled" else
                        (z_re * z_re, z_im * (z_re if name == "im2_mixed" else z_im)))
            if re2 + im2 > f32(4):
                break
            z_im = f32(2) * (re2 * im2 if name == "im_of_squares" else z_re * z_im) + \
                (-c_im if name == "c_im_subtracted" else c_re if name == "c_re_in_im" else c_im)
            z_re = re2 + (im2 if name == "im2_added" else -im2) + \
                (c_im if name == "c_im_in_re" else -c_re if name == "c_re_subtracted" else c_re)
            count += 1
    return count


def test_each_wrong_step_is_the_kernel_s_loop_with_it_pixel_by_pixel():
    re, im = escape.pixel_grid(17, 11, -2.0, -1.25, 0.15, 0.23)
    for name, change in escape.WRONG_STEPS.items():
        got = escape.escape_counts(re, im, f32(-0.8), f32(0.156), 60, **change)
        want = [[one_wrong_pixel(name, re[y, x], im[y, x], f32(-0.8), f32(0.156), 60)
                 for x in range(17)] for y in range(11)]
        assert np.array_equal(got, want), name
        assert not np.array_equal(got, escape.escape_counts(re, im, f32(-0.8), f32(0.156), 60))
    doubled = escape.escape_counts(re, im, f32(-0.8), f32(0.156), 60, squares_doubled=True)
    assert (doubled == 60).any()   # z grew to NaN there, and the loop went on
