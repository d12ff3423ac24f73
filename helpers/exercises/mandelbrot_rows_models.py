"""The NumPy models of notebook 03's row-per-block Mandelbrot kernel
(``cuda_src/exercises/mandelbrot_rows.cu``) that ``helpers.exercises.mandelbrot_rows`` compares a
kernel's image with: the right image, and images of mistakes in c or in the count, each with its
verdict; and the writes past iters that a row or a store index of the wrong shape makes."""

from __future__ import annotations

from math import isqrt

import numpy as np

from helpers.exercises.escape import escape_counts, pixel_grid, stopped_short, wrong_steps
from helpers.exercises.microscope import (STOPPED_AFTER, body_words, kernel_words, observe,
                                          source_line, stopped)

VIEW = (-2.2, -1.2, 1.0, 1.2)       # x_min, y_min, x_max, y_max: the chapter's view


def args(case):
    """The case's x_min, y_min, dx and dy: the chapter's view on its image."""
    width, height = case[:2]
    x_min, y_min, x_max, y_max = VIEW
    return x_min, y_min, (x_max - x_min) / width, (y_max - y_min) / height


def reference(case, steps=None, x_of=None, im_of_x=False, fused=False):
    """NumPy's image for the case: int32 counts of shape (height, width); with ``steps``, (dx,
    dy) in place of the case's, ``x_of(x)``, the column each pixel's c takes its real part
    from, and ``im_of_x``, c's imaginary part y_min + x * dy, of the column x (the mistakes'
    models); ``fused``: c computed as a GPU's fused multiply-add does (``pixel_grid``)."""
    width, height, _, max_iter = case[:4]
    x_min, y_min, *dxy = args(case)
    re, im = pixel_grid(width, height, x_min, y_min, *(steps or dxy), fused=fused)
    if x_of is not None:
        re = re[:, x_of(np.arange(width))]
    if im_of_x:
        im = pixel_grid(width, height, y_min, x_min, *(steps or dxy)[::-1])[0]
    return escape_counts(np.zeros_like(re), np.zeros_like(im), re, im, max_iter)


def returned_on_escape(case, ref, got, drawn, tolerance):
    """(problem, hint) where the pixels drawn are those a loop that leaves the kernel (return) on
    escape draws: each thread's pixels x = t, t + blockDim.x, ... of its row up to its first that
    escapes (ref < max_iter), that one and the rest not; a pixel or two (a GPU's fused
    multiply-adds near the set's edge) may differ."""
    width, height, block, max_iter = case[:4]
    model = np.zeros_like(drawn)
    inside = ref == max_iter
    for t in range(min(block, width)):
        mine = inside[:, t::block]                    # each row's pixels of thread t, in turn
        model[:, t::block] = np.cumprod(mine, axis=1).astype(bool)
    bad = int((drawn != model).sum())
    if drawn.all() or not model.any() or bad > max(2, tolerance * model.sum()) or \
            np.mean(got[drawn] != ref[drawn]) > tolerance:
        return
    rows, cols = np.nonzero(~drawn)
    y, x = int(rows[0]), int(cols[0])
    steps = f"{ref[y, x]} step" + ("s" if ref[y, x] != 1 else "")
    yield (f"{int((~drawn).sum())} of {got.size} pixels were never drawn (the first at x = {x}, "
           f"y = {y}, which escapes after {steps}): each thread drew its pixels only "
           "until its first that escapes, that one and the rest of its row never: on |z|^2 > 4 "
           "the thread leaves the kernel (return), where only the while loop should end (break)",
           "on escape, leave the while loop with break;, not return;, so that iters[y * width + "
           "x] = n stores the pixel and the thread goes on to its next x")


def wrong_images(case, kernel=None):
    """(image, problem, hint) of the known mistakes in c and in the count: julia's dx and dy
    models, one step too many or short, n counted before the escape test (told apart from n
    starting at 1 by ``kernel``'s words), the count or z carried from pixel to pixel, c's real
    part from threadIdx.x, c's imaginary part from the column x."""
    dx, dy, block = *args(case)[2:], case[2]
    step = "c_re = x_min + x * dx (dx steps along a row), c_im = y_min + y * dy"
    yield (reference(case, (dy, dx)), "dx and dy are swapped: c = (x_min + x*dy) + "
           "i*(y_min + y*dx)", step)
    yield reference(case, (dy, dy)), "c_re = x_min + x*dy: the real part steps by dy", step
    yield reference(case, (dx, dx)), "c_im = y_min + y*dx: the imaginary part steps by dx", step
    ref, max_iter = reference(case), case[3]
    yield (np.where(ref == max_iter, max_iter + 1, ref), f"the points that never escape count "
           f"max_iter + 1 = {max_iter + 1} steps, one past max_iter = {max_iter}: the loop runs "
           "while n <= max_iter, one step too many", "loop while n < max_iter: n counts 0 to "
           "max_iter - 1, so no count passes max_iter")
    yield stopped_short(ref, max_iter)
    yield escaped_at_2(case, ref)
    yield counted_early(ref, max_iter, body_words(kernel))
    re, im = pixel_grid(case[0], case[1], *args(case))
    yield from wrong_steps(np.zeros_like(re), np.zeros_like(im), re, im, max_iter, STEPS)
    yield re_updated_first(re, im, ref, max_iter)
    yield carried_counts(case, ref)
    yield carried_z(case)
    yield c_im_of_the_column(case, ref)
    yield c_im_going_down(case, ref)
    yield c_im_of_row_0(case, body_words(kernel))
    yield (reference(case, x_of=lambda x: x % block), "c's real part takes threadIdx.x where "
           "it takes x: the pixels of each stretch of blockDim.x repeat the first stretch's",
           "c_re = x_min + x * dx, with the loop's x")


STEPS = {   # the wrong steps of helpers.exercises.escape that this kernel's loop can take
    "squares_doubled": lambda wrong, right, at: (
        "the squares are doubled: re2 = z_re * 2, im2 = z_im * 2, where z_re * z_re and z_im * "
        f"z_im belong (pixel x = {at[1]}, y = {at[0]} counts {wrong} with the doubles, {right} "
        "with the squares)", "square each part, float re2 = z_re * z_re, im2 = z_im * z_im;"),
    "im_of_squares": lambda wrong, right, at: (
        "z_im's step multiplies the squares, z_im = 2.0f * re2 * im2 + c_im, where z_re * z_im "
        f"belongs (pixel x = {at[1]}, y = {at[0]} counts {wrong} with re2 * im2, {right} with "
        "z_re * z_im)", "the imaginary part of z*z is 2 * z_re * z_im, from z itself, not its "
        "squares: z_im = 2.0f * z_re * z_im + c_im"),
    "c_im_in_re": lambda wrong, right, at: (
        "z_re's step adds c_im where c_re belongs, z_re = re2 - im2 + c_im, so each pixel "
        f"follows the point c_im + i*c_im (pixel x = {at[1]}, y = {at[0]} counts {wrong} with "
        f"c_im, {right} with c_re)", "c = c_re + i*c_im: the real part adds c_re, z_re = re2 - "
        "im2 + c_re"),
    "im2_added": lambda wrong, right, at: (
        "z_re's step adds im2 where it subtracts it, z_re = re2 + im2 + c_re, so z_re grows by "
        f"|z|^2 each step (pixel x = {at[1]}, y = {at[0]} counts {wrong} with + im2, {right} "
        "with - im2)", "the real part of z*z is z_re^2 - z_im^2: z_re = re2 - im2 + c_re"),
    "im2_mixed": lambda wrong, right, at: (
        "the square im2 is z_im * z_re, where z_im * z_im belongs, so the escape test re2 + im2 "
        f"and the real step re2 - im2 + c_re take the wrong square (pixel x = {at[1]}, y = "
        f"{at[0]} counts {wrong} with z_im * z_re, {right} with z_im * z_im)",
        "square each part: float re2 = z_re * z_re, im2 = z_im * z_im;"),
    "c_re_subtracted": lambda wrong, right, at: (
        "z_re's step subtracts c_re, z_re = re2 - im2 - c_re, where z*z + c adds it, so each "
        f"pixel follows the point -c_re + i*c_im (pixel x = {at[1]}, y = {at[0]} counts {wrong} "
        f"with - c_re, {right} with + c_re)", "add c's real part, + c_re: z_re = re2 - im2 + c_re"),
}


def counted_early(ref, max_iter, words=()):
    """(image, problem, hint) of n++ above the escape test, or n starting at 1, which give the
    same image: each pixel that escapes counts the step whose test ended the loop, one more
    than NumPy's; those that never escape still stop at max_iter. Which of the two is read from
    the kernel body's ``words`` (``microscope.body_words``); both are named where neither shows."""
    image = np.where(ref < max_iter, ref + 1, ref)
    y, x = np.argwhere(image != ref)[0] if (image != ref).any() else (0, 0)
    seen = (f"every pixel that escapes counts one step more than NumPy's (pixel x = {x}, y = {y} "
            f"counts {image[y, x]}, where it escapes after {ref[y, x]} step"
            f"{'' if ref[y, x] == 1 else 's'}), the points that never escape max_iter = "
            f"{max_iter} as they should")
    test = "the escape test, if (re2 + im2 > 4.0f) break;"
    after = ("count a step once it is taken: n++ at the end of the loop's body, after z_re = re2 "
             "- im2 + c_re;")
    words = list(words)
    starts_at_1 = any(words[k:k + 4] == ["n", "=", "1", ";"] for k in range(len(words)))
    brk = words.index("break") if "break" in words else len(words)
    counted = [k for k in range(brk) if words[k:k + 2] in (["n", "++"], ["++", "n"])
               or words[k:k + 3] == ["n", "+=", "1"]]
    if starts_at_1 and not counted:
        return image, f"{seen}: n starts at 1 (int n = 1;)", ("start n at 0: int n = 0; (n "
                                                              "counts the steps taken)")
    if counted and not starts_at_1:
        return (image, f"{seen}: n counts the step whose test ends the loop, as n++ comes "
                f"before {test}", after)
    return (image, f"{seen}: n counts the step whose test ends the loop: either n++ comes "
            f"before {test}, or n starts at 1", f"start n at 0 and {after}")


def escaped_at_2(case, ref):
    """(image, problem, hint) of the escape test re2 + im2 > 2.0f: the radius 2 taken for |z|^2,
    so the points stop once |z| passes sqrt(2), not 2."""
    re, im = pixel_grid(case[0], case[1], *args(case))
    zero = np.zeros_like(re)
    image = escape_counts(zero, zero, re, im, case[3], bound=2)
    y, x = np.argwhere(image != ref)[0] if (image != ref).any() else (0, 0)
    return (image, "the points escape too early: the escape test re2 + im2 > 2.0f stops the loop "
            "once |z|^2 passes 2, that is |z| past 1.41, where the rule is |z| past 2 (pixel x "
            f"= {x}, y = {y} counts {image[y, x]}, where NumPy's loop counts {ref[y, x]})",
            "|z| > 2 is |z|^2 > 4: break once re2 + im2 > 4.0f (re2 + im2 is the square of |z|)")


def re_updated_first(re, im, ref, max_iter):
    """(image, problem, hint) of z_re updated before z_im: z_im = 2.0f * z_re * z_im + c_im
    then takes the new z_re, not the old one, so the step is not z*z + c."""
    zero = np.zeros_like(re)
    image = escape_counts(zero, zero, re, im, max_iter, first="re")
    y, x = np.argwhere(image != ref)[0] if (image != ref).any() else (0, 0)
    return (image, "z_im's step takes the NEW z_re: z_re = re2 - im2 + c_re comes first, so "
            "z_im = 2.0f * z_re * z_im + c_im multiplies the real part just computed, not the "
            f"old one, and the step is not z*z + c (pixel x = {x}, y = {y} counts "
            f"{image[y, x]}, where z*z + c counts {ref[y, x]})",
            "update z_im first, z_im = 2.0f * z_re * z_im + c_im, while z_re is still the old "
            "one, then z_re = re2 - im2 + c_re (re2 and im2 hold the old squares)")


def carried_counts(case, ref):
    """(image, problem, hint) of n set to 0 once per thread, before the loop along the row (z
    still set back per pixel): each pixel's loop counts on from the thread's previous pixel's
    n, so a thread's counts add up along its pixels x, x + blockDim.x, ..., until max_iter."""
    width, height, block, max_iter = case[:4]
    passes = -(-width // block)
    own = np.zeros((height, passes * block), ref.dtype)
    own[:, :width] = ref
    image = np.minimum(own.reshape(height, passes, block).cumsum(axis=1), max_iter)
    image = image.reshape(height, -1)[:, :width]
    later = np.zeros_like(image, bool)
    later[:, block:] = (ref[:, block:] > 0) & (image[:, :-block] > 0) & (image[:, block:] < max_iter)
    y, x = np.argwhere(later)[0] if later.any() else (0, min(block, width - 1))
    return (image, f"each pixel's count starts where the thread's previous pixel's ended: n is "
            "set to 0 once, before the loop along the row, so a thread's counts add up along "
            f"its pixels x, x + {block}, ... (pixel x = {x}, y = {y} holds {image[y, x]} = "
            f"{image[y, x - block]}, the count of pixel x = {x - block}, + its own "
            f"{ref[y, x]}), until they reach max_iter = {max_iter}",
            "set n = 0 inside the loop along the row, next to z_re and z_im: int n = 0; at the "
            "start of each pixel")


def carried_z(case):
    """(image, problem, hint) of z set to 0 once per thread, before the loop along the row (n
    still set back per pixel): each pixel's loop starts from the z the thread's previous pixel
    ended with, so after a pixel that escaped the thread's next pixels stop at once (count 0)."""
    width, height, block, max_iter = case[:4]
    x_min, y_min, dx, dy = args(case)
    re, im = pixel_grid(width, height, x_min, y_min, dx, dy)
    image = np.zeros((height, width), np.int32)
    zr, zi = np.zeros((2, height, block), np.float32)
    for start in range(0, width, block):
        xs = slice(start, min(start + block, width))
        cols = xs.stop - start
        image[:, xs], zr[:, :cols], zi[:, :cols] = _steps_from(
            zr[:, :cols], zi[:, :cols], re[:, xs], im[:, xs], max_iter)
    ref = reference(case)
    zero = np.zeros_like(image, bool)
    zero[:, block:] = (image[:, block:] == 0) & (ref[:, block:] > 0) & (image[:, :-block] < max_iter)
    y, x = np.argwhere(zero)[0] if zero.any() else (0, min(block, width - 1))
    return (image, "each pixel's z starts where the thread's previous pixel's ended: z_re and "
            "z_im are set to 0 once, before the loop along the row (n is set back per pixel), so "
            "after a pixel that escaped, the thread's next pixels start escaped and count 0 "
            f"(pixel x = {x}, y = {y} holds {image[y, x]}, where its own count is {ref[y, x]}: "
            f"the thread's previous pixel, x = {x - block}, escaped after {image[y, x - block]} "
            f"step{'' if image[y, x - block] == 1 else 's'})",
            "set z_re = z_im = 0 inside the loop along the row, next to n: "
            "float z_re = 0.0f, z_im = 0.0f; at the start of each pixel")


def _steps_from(zr, zi, cr, ci, max_iter):
    """The escape loop in float32, in the kernel's order, from z = (zr, zi): the counts, and the
    z each pixel ended with (an escaped z as it was when the loop stopped)."""
    f32 = np.float32
    zr, zi = np.array(zr, f32), np.array(zi, f32)
    counts = np.zeros(zr.shape, np.int32)
    going = np.ones(zr.shape, bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(max_iter):
            re2, im2 = zr * zr, zi * zi
            going &= re2 + im2 <= f32(4)
            if not going.any():
                break
            zi = np.where(going, f32(2) * zr * zi + ci, zi)
            zr = np.where(going, re2 - im2 + cr, zr)
            counts += going
    return counts, zr, zi


def c_im_of_the_column(case, ref):
    """(image, problem, hint) of c's imaginary part taken from the column x, not the row y: c_im
    = y_min + x * dy, the real and imaginary parts both the column's."""
    image, dy = reference(case, im_of_x=True), args(case)[3]
    y, x = np.argwhere(image != ref)[0] if (image != ref).any() else (0, 1)
    return (image, "c's imaginary part takes the column x where it takes the row y: c_im = "
            f"y_min + x * dy, so pixel x = {x}, y = {y} took c_im = {VIEW[1] + x * dy:.4g}, row "
            f"{x}'s, where its own is {VIEW[1] + y * dy:.4g}, and counts {image[y, x]}, not "
            f"{ref[y, x]}",
            "c_im = y_min + y * dy, with the block's row y (the column x is for c_re)")


def c_im_going_down(case, ref):
    """(image, problem, hint) of c's imaginary part stepping down from y_min, c_im = y_min - y *
    dy (rows taken to go down the picture): row 0 right, row y at y_min - y * dy, below the view.
    """
    height, dy = case[1], args(case)[3]
    image = reference(case, (args(case)[2], -dy))
    y, x = np.argwhere(image != ref)[0] if (image != ref).any() else (1, 0)
    low, mine = np.float32(VIEW[1]) - np.float32(y) * np.float32(dy), VIEW[1] + y * dy
    return (image, "c's imaginary part goes down from y_min, c_im = y_min - y * dy: row y took "
            f"c_im = y_min - y * dy, below the view's bottom (y_min = {VIEW[1]:g}), so only row 0 "
            f"is right (pixel x = {x}, y = {y} took c_im = {low:.4g}, where its own is "
            f"{mine:.4g}, and counts {image[y, x]}, not {ref[y, x]}; row {height - 1} took "
            f"{VIEW[1] - (height - 1) * dy:.4g})", "c_im = y_min + y * dy: row 0 is the view's "
            f"bottom, y_min, and the rows go up by dy to y_max = {VIEW[3]:g} (which way up the "
            "picture is shown is the plot's business)")


def c_im_of_row_0(case, words=()):
    """(image, problem, hint) of c's imaginary part row 0's, y_min, in every block (dy taken as
    0), each row stored in its place: from blockIdx.y, 0 in a grid of (height, 1), where the
    kernel body's ``words`` hold it (y = blockIdx.y draws row 0 alone, told earlier)."""
    by_y = any(words[j:j + 3] == ["blockIdx", ".", "y"] for j in range(len(words)))
    why = (": it takes blockIdx.y, which is 0 in every block of a grid of (height, 1)" if by_y
           else ", where row y's is y_min + y * dy")
    return (reference(case, (args(case)[2], 0)), "every row of iters holds row 0's counts: each "
            "block stored its own row, but drew row 0's points: c_im is y_min, row 0's, in every "
            f"block{why}", "c_im = y_min + y * dy, with y = blockIdx.x, the block's row")


def store_swapped(failure, guard_rows):
    """A write past iters by thread t of block b (row y = b) at element x * width + y, x = t +
    m * blockDim.x below width, m at least 1 (the simulator runs a block's threads one after
    another: thread 0 goes past the end on a later pass along its row, at x = m * blockDim.x):
    the store's coordinates swapped, iters[x * width + y]. (Thread t's first pass, x = t, writes
    where a block and thread with their roles swapped would too, y = threadIdx.x, x =
    blockIdx.x: so it is left to that verdict.)"""
    err, launch = failure.error, failure.launch
    if failure.kind != "out of bounds" or not err.is_write or not failure.block or \
            launch is None or err.block is None or err.thread is None or err.offset is None:
        return
    (y, t), step, width = (err.block[0], err.thread[0]), failure.block[0], int(launch.args[1])
    element, height = err.offset // 4, err.allocation[1] // 4 // width - guard_rows
    x = (element - y) // width if width else 0
    if width and x * width + y == element and t < x < width and (x - t) % step == 0 and \
            element >= width * height:
        yield (f"thread {t} of block {y} drew pixel (x = {x}, y = {y}) at iters[x * width + y] = "
               f"iters[{element}], past the end of the image's {width * height} pixels "
               f"({width}x{height}): the store's x and y are swapped (NumPy's [x, y] habit), so x "
               "picks the row and y the column", "row y starts at y * width, and x is the "
               "column in it: iters[y * width + x] = n")


def row_times_width(b, t, element, size, guard_rows):
    """Thread t of block b wrote its first pixel at b * width * width + t: row b * width, past
    the image (y = blockIdx.x * width, the row's start taken for the row)."""
    width = isqrt((element - t) // b) if b and element >= t else 0
    if width > 1 and b * width * width + t == element and size % width == 0 and \
            b * width >= size // width - guard_rows:
        yield (f"block {b} drew row {b * width} = {b} * width, past the image: y took the "
               "row's start in iters (blockIdx.x * width) for the row's number; y = blockIdx.x, "
               "and the store iters[y * width + x] multiplies by width once")


def stored_ahead(case, run, ref, tolerance):
    """Every count stored blockDim.x pixels on, flat: the first blockDim.x elements of iters
    never written, as many past its end written, every other the count of the pixel blockDim.x
    before it. Where the kernel's text has a statement x += blockDim.x; before the store, the
    step came first (a while loop's); else the store's index added blockDim.x."""
    width, height, block = case[:3]
    out, size = run.out, width * height
    if not np.array_equal(out.past, np.arange(size, size + block)) or not np.array_equal(
            np.flatnonzero(out.unwritten), np.arange(block)) or \
            np.mean(out.got.ravel()[block:] != ref.ravel()[:-block]) > tolerance:
        return
    where = (f"row 0's pixels 0 to {block - 1} were never written, each row's last {block} "
             f"counts went into the next row's first {block} pixels, and the last row's past "
             "the end of iters")
    step = _step_before_the_store(run.kernel)
    if step:
        yield (f"each pixel's count was stored blockDim.x = {block} pixels further on: {step[0]}"
               f" += blockDim.x at line {step[1]} comes before the store at line {step[2]}, so the "
               f"count goes to the thread's next pixel: {where}", "store first, then step: iters[y * "
               f"width + {step[0]}] = n; then {step[0]} += blockDim.x; (a for loop's step runs "
               "after its body)")
    yield (f"each pixel's count was stored blockDim.x = {block} pixels further on, at its x + "
           f"blockDim.x, so {where}", "store each count at its own pixel: iters[y * width + x] = n;")


def _step_before_the_store(kernels):
    """(the variable, the line of its statement x += blockDim.x;, the line of the store into
    iters after it) in the kernel's text, or None where there is no such statement before the
    store (a for loop's step, in its header, is followed by ")")."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    stores = [j for j in range(body, end - 1) if words[j:j + 2] == ["iters", "["]]
    steps = [j for j in range(body + 1, stores[-1] if stores else body)
             if words[j] == "+=" and words[j + 1:j + 5] == ["blockDim", ".", "x", ";"]]
    if not steps:
        return None
    return (words[steps[-1] - 1], *(source_line(source, tokens[j].start)
                                    for j in (steps[-1], stores[-1])))


def escape_never_leaves(kernels, launch, case):
    """A kernel stopped at its time limit that, on the simulator, ends with max_iter = 1 (no
    point escapes before its first step: z starts at 0), each pixel counting 1, and runs into
    the limit again with max_iter = 2, where the view's points with |c| > 2 escape after one
    step: the escape test does not leave the loop (named a continue where the kernel's text has
    one). ``launch``: the exercise's, a case to its ``Launch``."""
    from helpers.sim.settings import settings

    width, height, block = case[:3]
    with settings.changed(time_limit=STOPPED_AFTER):
        seen = observe(kernels, launch((width, height, block, 1)), key="max_iter = 1",
                       racecheck=False)
    if seen.error is not None or not (seen.outs[0].got == 1).all() or \
            stopped(kernels, launch((width, height, block, 2)), key="max_iter = 2") is None:
        return
    skips = ("in the escape test, continue skips to the next turn without counting or stepping"
             if "continue" in body_words(kernels) else
             "once |z|^2 > 4 the loop goes on to its next turn without counting or stepping")
    yield (f"an escaped point never leaves the loop: {skips}, so the loop tests the same z again "
           "and again and n never reaches max_iter (on the simulator, the kernel ended with "
           "max_iter = 1, each pixel counting 1, and ran into its time limit with max_iter = 2, "
           f"where the points with |c| > 2, such as the corner {VIEW[0]}{VIEW[1]:+}i, escape "
           "after one step)", "leave the loop once z has escaped: if (re2 + im2 > 4.0f) break; "
           "(continue goes on to the loop's next turn, break leaves the loop)")
