"""The NumPy models of notebook 03's Julia kernel (``cuda_src/exercises/julia.cu``) that
``helpers.exercises.julia`` compares a kernel's escape counts with: loops that step, stop or test
wrongly, and the right counts stored or counted wrongly, each with its verdict; and the launches
on the simulator that tell an escape test that never leaves the loop (``escape_never_leaves``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.escape import escape_counts, stopped_short, wrong_steps
from helpers.exercises.microscope import (accesses_of, body_words, kernel_words, observe,
                                          source_line, stopped)

OLD = ("both new parts from the OLD z_re and z_im: z_im = 2.0f * z_re * z_im + c_im first (it "
       "needs the old z_re), then z_re = re2 - im2 + c_re (re2 and im2 hold the old squares)")


def wrong_loops(re, im, c_re, c_im, max_iter):
    """(counts, problem, hint) of loops whose step or escape test is wrong, z starting right."""
    yield (escape_counts(re, im, c_re, c_im, max_iter, first="re"), "z_im was computed from the "
           "NEW z_re: z_re was updated first, then z_im = 2.0f * z_re * z_im + c_im used it, so "
           "the step is not z*z + c", OLD)
    yield (escape_counts(re, im, c_re, c_im, max_iter, first="im"), "z_re was computed from the "
           "NEW z_im: z_im was updated first, then z_re = z_re*z_re - z_im*z_im + c_re used it, "
           "so the step is not z*z + c", OLD)
    step = "z_re = z_re*z_re - z_im*z_im + c_re and z_im = 2*z_re*z_im + c_im, from the old values"
    for change, problem, hint in (
            (dict(twice=1), "z_im's update lacks the factor 2 (z_im = z_re*z_im + c_im)", step),
            (dict(im2_sign=1), "z_re's update adds z_im*z_im where it subtracts it", step),
            (dict(bound=2), "the loop stops at |z|^2 > 2: |z| > 2 is |z|^2 > 4",
             "break once re2 + im2 > 4.0f"),
            (dict(bound=16), "the loop stops at |z| > 4 (|z|^2 > 16): the escape radius is 2",
             "break once re2 + im2 > 4.0f, that is |z| > 2 (no sqrtf needed)"),
            (dict(int_squares=True), "the squares re2 and im2 are ints: int re2 = z_re * z_re "
             "drops each square's fraction (0.81 becomes 0) at every step, so the escape test and "
             "z_re = re2 - im2 + c_re use whole numbers", "the squares have fractions: float re2 = "
             "z_re * z_re, im2 = z_im * z_im (only n, x and y are int)"),
            (dict(box=True), "the loop stops once z_re or z_im alone passes 2 (a square): "
             "|z| > 2 is the circle re2 + im2 > 4, and z can leave it with both parts below 2",
             "break once re2 + im2 > 4.0f, the square of |z| against 2 * 2")):
        yield escape_counts(re, im, c_re, c_im, max_iter, **change), problem, hint
    yield (_tested_after_the_step(re, im, c_re, c_im, max_iter), "the pixels whose z starts "
           "outside |z| = 2 (|z|^2 > 4 at the pixel's point) count 1, not 0: the escape test "
           "comes after the step, so every pixel takes one step and counts it before its z is "
           "first tested", "test z before stepping it (in a Julia set z starts at the pixel's "
           "point, which may already lie outside): at the top of each turn float re2 = z_re * "
           "z_re, im2 = z_im * z_im; if (re2 + im2 > 4.0f) break; then the step and n++")
    yield _tested_every_second_step(re, im, c_re, c_im, max_iter)
    yield from wrong_steps(re, im, c_re, c_im, max_iter, STEPS)
    yield (_own_loop(re, im, c_re, c_im, max_iter, np.subtract), "the escape test takes re2 - im2, "
           "the real part of z*z, for |z|^2: re2 - im2 > 4 is false whenever im2 >= re2, however "
           "large z grows", "|z|^2 adds the two squares: break once re2 + im2 > 4.0f")
    yield (_own_loop(re, im, c_re, c_im, max_iter, np.add, im_is_re=True), "after each step z_im "
           "takes the new REAL part (z_im = new_re, or re2 - im2 + c_re), where the new imaginary "
           "part 2*z_re*z_im + c_im belongs: from the first step on z_im equals z_re, so z stays "
           "on the line z_im = z_re", "store the new imaginary part into z_im: z_im = 2.0f * z_re "
           "* z_im + c_im (new_im, where you kept it in a variable), and the new real part into "
           "z_re")


STEPS = {   # the wrong steps of helpers.exercises.escape that this kernel's loop can take
    "squares_doubled": lambda wrong, right, at: (
        "the squares are doubled: re2 = z_re * 2, im2 = z_im * 2, where z_re * z_re and z_im * "
        f"z_im belong (z_re ** 2 is z_re times itself; pixel (x={at[1]}, y={at[0]}) counts "
        f"{wrong} with the doubles, {right} with the squares)",
        "square each part, float re2 = z_re * z_re, im2 = z_im * z_im;"),
    "im2_mixed": lambda wrong, right, at: (
        "the square im2 is z_im * z_re, where z_im * z_im belongs, so the escape test re2 + im2 "
        f"and the real step re2 - im2 + c_re take the wrong square (pixel (x={at[1]}, y={at[0]}) "
        f"counts {wrong} with z_im * z_re, {right} with z_im * z_im)",
        "square each part: float re2 = z_re * z_re, im2 = z_im * z_im;"),
    "im_of_squares": lambda wrong, right, at: (
        "z_im's step multiplies the squares, z_im = 2.0f * re2 * im2 + c_im, where z_re * z_im "
        f"belongs (pixel (x={at[1]}, y={at[0]}) counts {wrong} with re2 * im2, {right} with "
        "z_re * z_im)", "the imaginary part of z*z is 2 * z_re * z_im, from z itself, not its "
        "squares: z_im = 2.0f * z_re * z_im + c_im"),
    "c_im_subtracted": lambda wrong, right, at: (
        "z_im's step subtracts c_im, z_im = 2.0f * z_re * z_im - c_im, where z*z + c adds it "
        f"(pixel (x={at[1]}, y={at[0]}) counts {wrong} with - c_im, {right} with + c_im)",
        "add c's imaginary part, + c_im: z_im = 2.0f * z_re * z_im + c_im"),
    "c_re_subtracted": lambda wrong, right, at: (
        "z_re's step subtracts c_re, z_re = re2 - im2 - c_re, where z*z + c adds it (pixel "
        f"(x={at[1]}, y={at[0]}) counts {wrong} with - c_re, {right} with + c_re)",
        "add c's real part, + c_re: z_re = re2 - im2 + c_re"),
}


def _tested_after_the_step(re, im, c_re, c_im, max_iter):
    """Counts of a loop that steps and counts before its escape test: every pixel takes a first
    step (float32, in the kernel's order) and counts it, then goes on as the right loop from
    there, with one turn fewer left."""
    f32 = np.float32
    zr, zi = (np.asarray(a, f32) for a in np.broadcast_arrays(re, im))
    with np.errstate(over="ignore", invalid="ignore"):
        first = (zr * zr - zi * zi + f32(c_re), f32(2) * zr * zi + f32(c_im))
    return 1 + escape_counts(*first, c_re, c_im, max_iter - 1)


def _tested_every_second_step(re, im, c_re, c_im, max_iter):
    """(counts, problem, hint) of a loop that takes two steps a turn and tests |z|^2 once, before
    them (n += 2, cut to max_iter after the loop): a pixel that escapes after an odd number of
    steps takes and counts one step more."""
    wrong = escape_counts(re, im, c_re, c_im, max_iter, every=2)
    right = escape_counts(re, im, c_re, c_im, max_iter)
    y, x = np.argwhere(wrong != right)[0]
    return (wrong, "the pixels that escape after an odd number of steps count one step more "
            f"(pixel (x={x}, y={y}): {wrong[y, x]} where {right[y, x]} is right), the others "
            "right: the escape test comes only every second step, two steps a turn and n += 2, "
            "so a pixel that escapes at the first of the two takes the second too and counts it",
            "test |z|^2 before every step: at the top of each turn float re2 = z_re * z_re, im2 "
            "= z_im * z_im; if (re2 + im2 > 4.0f) break; then one step and n++ (or keep two "
            "steps a turn, n++ after each, and between them break if n >= max_iter or the new "
            "z's re2 + im2 > 4.0f)")


def _own_loop(re, im, c_re, c_im, max_iter, size, im_is_re=False):
    """Counts of a loop that stops once size(re2, im2) > 4, float32 in the kernel's order (a z
    that overflows makes NaN, which never passes the test); ``im_is_re``: z_im takes the new
    real part after each step, where the new imaginary part belongs."""
    f32 = np.float32
    zr, zi = (np.array(a, f32) for a in np.broadcast_arrays(re, im))
    cr, ci = np.asarray(c_re, f32), np.asarray(c_im, f32)
    n, going = np.zeros(zr.shape, np.int32), np.ones(zr.shape, bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(max_iter):
            re2, im2 = zr * zr, zi * zi
            going &= ~(size(re2, im2) > f32(4))
            if not going.any():
                break
            new_re = re2 - im2 + cr
            zi = np.where(going, new_re if im_is_re else f32(2) * zr * zi + ci, zi)
            zr = np.where(going, new_re, zr)
            n += going
    return n


def count_mistakes(ref, width, height, max_iter):
    """Images of the right counts stored transposed, or counted one step off."""
    yield (ref.T.reshape(height, width), "the pixels are stored transposed (iters[x*height + y])",
           "the image is row-major like a NumPy array of shape (height, width): store pixel (x, "
           "y) at iters[y*width + x]")
    inside = ref == max_iter
    yield (np.where(inside, max_iter + 1, ref),
           "pixels that never escape hold max_iter + 1: the loop runs one step too many",
           "loop while n < max_iter (not <=), so that the count stops at max_iter")
    yield stopped_short(ref, max_iter)
    yield (np.where(inside, ref, ref + 1), "escaping pixels count one step too many (off by one)",
           "n starts at 0, test |z|^2 > 4 BEFORE taking a step, and count only the steps taken")
    yield (ref + 1, "every pixel counts one more than the steps taken, those that never escape "
           "too (max_iter + 1): n starts at 1, or is counted in the loop's test (n++ < max_iter "
           "counts the test that ends the loop as well)", "n starts at 0 and counts only the "
           "steps taken: while (n < max_iter && ...) { one step; n++; }, no ++ in the test")
    yield (np.where(inside, ref, ref - 1), "escaping pixels count one step too few (off by one)",
           "count every step taken, including the one after which |z|^2 > 4 is seen")


def one_index(width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter):
    """Images of kernels whose start point takes both parts from one index: z_im from the column
    x (a copy of z_re's line), or z_re from the row y, float32 as the kernel computes them."""
    f32 = np.float32
    cols = np.broadcast_to(np.arange(width, dtype=f32)[None, :], (height, width))
    rows = np.broadcast_to(np.arange(height, dtype=f32)[:, None], (height, width))
    for part, (re, im), wrong in (
            ("z_im", (cols, cols), "z_im = y_min + x*dy: the imaginary part steps with the "
             "column x, so z_im, like z_re, changes along a row and not down the image"),
            ("z_re", (rows, rows), "z_re = x_min + y*dx: the real part steps with the row y, so "
             "z_re, like z_im, changes down the image and not along a row")):
        start = (f32(x_min) + re * f32(dx), f32(y_min) + im * f32(dy))
        yield (escape_counts(*start, c_re, c_im, max_iter), wrong,
               f"{part} goes with {'y, the row' if part == 'z_im' else 'x, the column'}: "
               "z_re = x_min + x*dx, z_im = y_min + y*dy")


ESCAPED = dict(width=4, height=1, block=(4, 1, 1), view=(3.0, 3.0, 4.0, 4.0), c=(0.0, 0.0),
               max_iter=20)
"""A launch whose every point starts outside |z| = 2 (z = 3 + 3i on): escaped before a step."""
BOUNDED = dict(ESCAPED, view=(0.0, 0.0, 0.0, 0.0))
"""A launch where no point escapes: z = 0 and c = 0 stay 0, every pixel counts max_iter."""


def escape_never_leaves(kernels, launch):
    """A kernel stopped at its time limit where, on the simulator, a launch of points that have
    all escaped before a step (ESCAPED) runs into the limit too, and one where no point escapes
    (BOUNDED) ends, each pixel counting max_iter: the escape test does not leave the loop, so an
    escaped point tests the same z for ever (named a continue where the kernel's text has one).
    ``launch``: julia's, a case to its ``Launch``."""
    if stopped(kernels, launch(ESCAPED), key="escaped points") is None:
        return
    seen = observe(kernels, launch(BOUNDED), key="no point escapes", racecheck=False)
    max_iter = BOUNDED["max_iter"]
    if seen.error is not None or not (seen.outs[0].got == max_iter).all():
        return
    skips = ("in the escape test, continue skips to the next turn without counting or stepping"
             if "continue" in body_words(kernels) else
             "once |z|^2 > 4 the loop goes on to its next turn without counting or stepping")
    yield (f"an escaped point never leaves the loop: {skips}, so the loop tests the same z again "
           "and again and n never reaches max_iter (on the simulator, a launch where every point "
           "starts outside |z| = 2 ran into its time limit, and one where no point escapes "
           f"(z = 0, c = 0) counted max_iter = {max_iter} for each)",
           "leave the loop once z has escaped: if (re2 + im2 > 4.0f) break; (continue goes on "
           "to the loop's next turn, break leaves the loop)")


def stored_only_on_escape(run, escaped, tolerance):
    """Only the pixels that escape written, and right, the ones that never escape (their count
    max_iter) never: the store runs only inside the escape test; its line from a trace of the
    launch on the simulator, where its stores come from one line."""
    unwritten, got, ref = run.out.unwritten, run.out.got, run.model
    if not unwritten.any() or np.mean(unwritten == escaped) > tolerance or \
            np.mean((got != ref)[~unwritten]) > tolerance:
        return
    kept = accesses_of(run.kernel, run.launch, "stores on escape", got.size)
    lines = set() if kept is None else set(kept["line"][kept["write"] & ~kept["shared"]].tolist())
    at = f" at line {lines.pop()}" if len(lines) == 1 else ""
    yield (f"the {int(unwritten.sum())} pixels never written are exactly the ones that never "
           f"escape (their count is max_iter): the only store{at} runs when a pixel escapes, "
           "inside the escape test, so a thread whose loop ends at n == max_iter writes nothing",
           "break out of the loop on escape and store iters[y * width + x] = n once, after the "
           "loop, for every pixel: a pixel that never escapes counts max_iter")


def store_after_the_guard(kernels, past, grid):
    """Every thread outside the image wrote (``past``: the elements past the end of iters, those
    of a launch with no guard, ``grid``'s) where the kernel's body (its simulated twin's source)
    stores into iters only after the closing brace of an if { ... } that tests width or height:
    the guard's braces hold the work but not the store, which every thread runs."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if set(np.asarray(past).ravel().tolist()) != grid.unguarded() or \
            (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    try:
        stores = [s for s in range(body + 1, end - 1) if words[s:s + 2] == ["iters", "["]
                  and words[closing(tokens, s + 1) + 1] == "="]
        guards = [(k, close, closing(tokens, close + 1)) for k in range(body + 1, end - 1)
                  if words[k:k + 2] == ["if", "("] and words[(close := closing(tokens, k + 1)) + 1]
                  == "{" and {"width", "height"} & set(words[k + 2:close])]
    except Unreadable:
        return
    for k, close, brace in guards:
        if stores and brace < stores[0]:
            store = source[tokens[stores[0]].start:tokens[words.index(";", stores[0])].end]
            yield (f"threads outside the image wrote past the end of iters: the store {store} at "
                   f"line {source_line(source, tokens[stores[0]].start)} comes after the closing "
                   f"brace of the guard {source[tokens[k].start:tokens[close].end]} at line "
                   f"{source_line(source, tokens[k].start)} (its }} at line "
                   f"{source_line(source, tokens[brace].start)}), so every thread runs it, those "
                   "outside the image too: past the end of iters" + (", and past a row's end "
                   "into the next row's first pixels" if grid.threads[0] > grid.width else ""),
                   "move the store inside the braces, before the "
                   "guard's }, or leave first: if (x >= width || y >= height) return; then the "
                   "loop and the store")
            return
