"""The NumPy models of notebook 03's Julia kernel (``cuda_src/exercises/julia.cu``) whose start
point is wrong: pixel (x, y) must start at z = (x_min + x*dx) + i*(y_min + y*dy); these step from
the corner wrongly, leave it out, take the other part's corner, or cut or shift the step, each
with its verdict, for ``helpers.exercises.julia`` to compare a kernel's escape counts with."""

from __future__ import annotations

import numpy as np

from helpers.exercises.escape import escape_counts, pixel_grid


def wrong_starts(width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter):
    """(counts, problem, hint) of kernels whose start point steps wrongly from (x_min, y_min), or
    from the wrong corner (``corners_mixed``)."""
    for steps, problem in (((dy, dx), "dx and dy are swapped: z starts at (x_min + x*dy) + "
                            "i*(y_min + y*dx)"), ((dy, dy), "z_re = x_min + x*dy: the real part "
                            "steps by dy"), ((dx, dx), "z_im = y_min + y*dx: the imaginary part "
                            "steps by dx"), ((dx, -dy), "z_im = y_min - y*dy: the rows step down "
                            "from y_min, not up")):
        yield (escape_counts(*pixel_grid(width, height, x_min, y_min, *steps), c_re, c_im,
                             max_iter), problem,
               "z_re = x_min + x*dx (dx steps along a row), z_im = y_min + y*dy")
    yield (escape_counts(*pixel_grid(width, height, x_min, y_min, dx / width, dy / height), c_re,
                         c_im, max_iter),
           "z starts at x_min + x*dx/width + i*(y_min + y*dy/height): dx is already the step "
           "from one pixel to the next, (x_max - x_min) / width, so dividing by width again "
           "squeezes the whole image into the view's corner", "z_re = x_min + x*dx, z_im = "
           "y_min + y*dy: the kernel gets dx and dy as the steps between pixels")
    yield from corners_mixed(width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter)
    for corner, problem in (((0, 0), "x_min and y_min left out: z starts at x*dx + i*(y*dy)"),
                            ((0, y_min), "x_min left out: z_re = x*dx"),
                            ((x_min, 0), "y_min left out: z_im = y*dy")):
        yield (escape_counts(*pixel_grid(width, height, *corner, dx, dy), c_re, c_im, max_iter),
               f"{problem}, the pixel's offset from the view's corner, not its point",
               "z starts at the pixel's point, the corner plus the offset: z_re = x_min + x*dx, "
               "z_im = y_min + y*dy")
    f32 = np.float32
    re, im = (f32(low) + np.trunc(np.arange(size, dtype=f32) * f32(step))
              for low, size, step in ((x_min, width, dx), (y_min, height, dy)))
    yield (escape_counts(*np.broadcast_arrays(re[None, :], im[:, None]), c_re, c_im, max_iter),
           "z starts at x_min + (int)(x*dx) + i*(y_min + (int)(y*dy)): (int)(x*dx) drops the "
           "fraction, so the start moves only in whole steps and whole runs of pixels share it",
           "x*dx is already a float (an int times a float): z_re = x_min + x*dx, z_im = y_min + "
           "y*dy, with no cast to int")
    re, im = (f32(low) + (np.arange(size, dtype=f32) + f32(0.5)) * f32(step)
              for low, size, step in ((x_min, width, dx), (y_min, height, dy)))
    yield (escape_counts(*np.broadcast_arrays(re[None, :], im[:, None]), c_re, c_im, max_iter),
           "z starts at the pixel's centre, x_min + (x + 0.5)*dx + i*(y_min + (y + 0.5)*dy): "
           "half a step off the point the chapter gives pixel (x, y)",
           "pixel (x, y) is the point x_min + x*dx + i*(y_min + y*dy), with no 0.5 added: "
           "z_re = x_min + x*dx, z_im = y_min + y*dy")


def corners_mixed(width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter):
    """(counts, problem, hint) of a start whose real or imaginary part (or both) begins from the
    other part's corner, x_min for y_min; nothing where the two corners are equal."""
    if x_min == y_min:
        return
    for corner, problem in (
            ((x_min, x_min), "z_im = x_min + y*dy: the imaginary part starts from x_min, the real "
             "part's corner, where y_min belongs"),
            ((y_min, y_min), "z_re = y_min + x*dx: the real part starts from y_min, the "
             "imaginary part's corner, where x_min belongs"),
            ((y_min, x_min), "x_min and y_min are swapped: z starts at (y_min + x*dx) + "
             "i*(x_min + y*dy)")):
        yield (escape_counts(*pixel_grid(width, height, *corner, dx, dy), c_re, c_im, max_iter),
               problem, "z_re = x_min + x*dx, z_im = y_min + y*dy: x_min is the corner of the "
               "real part (the columns), y_min that of the imaginary part (the rows)")
