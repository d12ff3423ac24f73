"""The NumPy models of notebook 03's escape_steps kernel (``cuda_src/exercises/escape_steps.cu``)
that ``helpers.exercises.escape_steps`` compares a kernel's counts with: the escape loop in
float32 with one of its usual mistakes when asked (``counts``), and the verdicts of the wrong
steps and the wrong tests of |z|^2 that it models."""

from __future__ import annotations

import numpy as np

from helpers.exercises.escape import escape_counts

STEP_HINT = ("one step: re = z_re*z_re - z_im*z_im + c_re[i]; z_im = 2*z_re*z_im + c_im[i]; "
             "z_re = re; k++")


def counts(c_re, c_im, max_iter, start_at_c=False, new_re_in_im=False, strict=False, bound=4,
           size_sign=1, whole=False, c_of_k=False, comma=False, whole_re=False, taxicab=False,
           new_im_in_re=False, sum_squared=False, re_twice=False, re_of_difference=False,
           re_mixed=False, re_swapped=False, re_doubled=False):
    """The escape counts, in float32 in the kernel's order, of every point; with one of the
    loop's usual mistakes when asked (z starting at c, the new z_re used for z_im, a loop that
    stops at |z|^2 = 4, another ``bound`` for |z|^2, z_re^2 - z_im^2 for it (``size_sign=-1``:
    fma(z_re, z_re, -z_im^2), which overflows a step after z_im^2 does), z
    kept in ints (``whole``: each new part truncated), step k adding c_re[k] + i c_im[k]
    (``c_of_k``: the arrays read past their end give 0, the launch's spare elements)), the new
    real part stored in z_im and z_re left as it was (``comma``: C's z_re, z_im = a, b;), the
    new real part truncated alone (``whole_re``: int re = ...)), |z_re| + |z_im| <= 2 for the
    test (``taxicab``)), z_im updated first and the new z_im used for z_re (``new_im_in_re``), (z_re + z_im)^2 for |z|^2
    (``sum_squared``), z_re for z_im in z_im's step, 2 * z_re * z_re (``re_twice``), the real
    step's (z_re - z_im)^2 for z_re^2 - z_im^2 (``re_of_difference``), z_im * z_re for z_im *
    z_im in the real step alone (``re_mixed``), z_im^2 - z_re^2 for the real step's squares
    (``re_swapped``), z_re * 2 - z_im * 2 for them (``re_doubled``)."""
    f32 = np.float32
    zr, zi = (c_re.copy(), c_im.copy()) if start_at_c else (np.zeros_like(c_re),) * 2
    k = np.zeros(c_re.size, np.int32)
    going = np.ones(c_re.size, bool)
    spare = np.zeros(max(max_iter - c_re.size, 0), f32)
    cks = np.concatenate([c_re, spare]), np.concatenate([c_im, spare])
    with np.errstate(over="ignore", invalid="ignore"):
        for step in range(max_iter):
            cr, ci = (cks[0][step], cks[1][step]) if c_of_k else (c_re, c_im)
            size = (zr * zr + zi * zi) if size_sign == 1 else \
                (zr.astype(np.float64) * zr - zi * zi)   # fused, as a GPU and the simulator do
            size = (zr + zi) * (zr + zi) if sum_squared else size
            going &= (size < f32(bound)) if strict else (size <= f32(bound))
            going &= (np.abs(zr) + np.abs(zi) <= f32(2)) if taxicab else going
            re = (zr - zi) * (zr - zi) + cr if re_of_difference else zr * zr - zi * zi + cr
            im = f32(2) * (re if new_re_in_im else zr) * (zr if re_twice else zi) + ci
            re = zr * zr - im * im + cr if new_im_in_re else re
            re = zr * zr - zi * zr + cr if re_mixed else re
            re = zi * zi - zr * zr + cr if re_swapped else re
            re = zr * f32(2) - zi * f32(2) + cr if re_doubled else re
            re, im = (np.trunc(re), np.trunc(im)) if whole else (re, im)
            re = np.trunc(re) if whole_re else re
            re, im = (zr, re) if comma else (re, im)
            zi = np.where(going, im, zi)
            zr = np.where(going, re, zr)
            k += going
    return k



def tested_every_second_step(got, model, max_iter, tolerance):
    """Counts of a loop that takes two steps a turn and tests |z|^2 once, before them (k += 2,
    cut to max_iter after the loop): a point that escapes after an odd number of steps takes
    and counts one step more. ``model``: (c_re, c_im, the right counts)."""
    c_re, c_im, want = model
    zero = np.zeros_like(c_re)
    if np.mean(got != escape_counts(zero, zero, c_re, c_im, max_iter, every=2)) > tolerance:
        return
    p = int(np.argmax((got != want) & (want % 2 == 1)))
    yield (f"the points that escape after an odd number of steps count one step more (point {p}: "
           f"got {got[p]}, expected {want[p]}), the others right: the loop tests |z|^2 only every "
           "second step, two steps a turn and k += 2, so a point that escapes at the first of the "
           "two takes the second too and counts it", "test |z|^2 before every step: one step a "
           "turn, while (k < max_iter && z_re * z_re + z_im * z_im <= 4.0f) { one step; k++; } "
           "(c_re[i] and c_im[i] may still be read once, before the loop), or keep two steps a "
           "turn, k++ after each, and between them the loop's test again: if (k >= max_iter || "
           "z_re * z_re + z_im * z_im > 4.0f) break;")


def read_at_thread_index(got, model, max_iter, block, tolerance):
    """Counts of a step that reads c_re, c_im or both at threadIdx.x, the thread's place in its
    block, where the point's index i belongs: from the second block on, each point takes that
    part from the first block's point of the same place. ``model``: (c_re, c_im, the right
    counts); nothing where one block holds every point (the counts are then right)."""
    c_re, c_im, want = model
    if c_re.size <= block:
        return
    place = np.arange(c_re.size) % block
    for re, im, part in ((c_re[place], c_im[place], "c_re and c_im"), (c_re[place], c_im, "c_re"),
                         (c_re, c_im[place], "c_im")):
        wrong = counts(re, im, max_iter)
        if np.mean(got != wrong) > tolerance:
            continue
        p = int(np.argmax((got == wrong) & (wrong != want)))
        both = part == "c_re and c_im"
        whose, like = (("got the counts of", f"as point {p % block} does") if both else
                       (f"took {part} from", f"with point {p % block}'s {part}"))
        yield (f"points {block} on {whose} the first block's points (point {p} counts {got[p]}, "
               f"{like}, where NumPy's count is {want[p]}): {part} {'were' if both else 'was'} "
               "read at threadIdx.x, the thread's place in its block, where the point's own index "
               f"i belongs, so every block of {block} threads read the first block's points",
               "read the thread's own point: c_re[i] and c_im[i], with i = blockIdx.x * "
               "blockDim.x + threadIdx.x, the index of the guard and of the store")
        return


STEPS = {   # the wrong steps of helpers.exercises.escape that this kernel's loop can take
    "c_im_in_re": lambda wrong, right, at: (
        "the real step adds c_im[i] where c_re[i] belongs: float re = z_re*z_re - z_im*z_im + "
        f"c_im[i], so each point follows c_im + i*c_im (point {at[0]} counts {wrong} with "
        f"c_im[i], {right} with c_re[i])",
        "the real part adds the point's real part: re = z_re*z_re - z_im*z_im + c_re[i]"),
    "c_re_in_im": lambda wrong, right, at: (
        "the imaginary step adds c_re[i] where c_im[i] belongs: z_im = 2*z_re*z_im + c_re[i], "
        f"so each point follows c_re + i*c_re (point {at[0]} counts {wrong} with c_re[i], {right} "
        "with c_im[i])", "the imaginary part adds the point's imaginary part: z_im = 2.0f * z_re * "
        "z_im + c_im[i]"),
    "c_re_subtracted": lambda wrong, right, at: (
        "the real step subtracts c_re[i] where it adds it: float re = z_re*z_re - z_im*z_im - "
        f"c_re[i], so each point follows -c_re + i*c_im (point {at[0]} counts {wrong} with - "
        f"c_re[i], {right} with + c_re[i])",
        "add the point's real part: re = z_re*z_re - z_im*z_im + c_re[i]"),
}


def step_models(c_re, c_im, max_iter, want):
    """(counts, problem, hint) of a step that takes the wrong part of z: the new z_re in z_im's
    step, the new z_im in z_re's, (z_re - z_im)^2, z_im * z_re, z_im^2 - z_re^2 or z_re * 2 -
    z_im * 2 in z_re's, z_re for z_im in z_im's."""
    yield (counts(c_re, c_im, max_iter, new_re_in_im=True), "z_im is computed from the NEW z_re",
           "keep the new real part in a temporary: " + STEP_HINT)
    yield (counts(c_re, c_im, max_iter, new_im_in_re=True), "z_re is computed from the NEW "
           "z_im: z_im was updated first, so the real part's z_im*z_im took this step's new "
           "imaginary part, where both parts come from the z before the step",
           "compute the new real part first, into a temporary, from the old z: " + STEP_HINT)
    def first_difference(got, right):
        """Where ``got`` first differs from the right counts, told against ``right`` (what gives
        them, with its verb)."""
        p = int(np.argmax(got != want))
        return f"(point {p}, c = {c_re[p]:g}{c_im[p]:+g}i: {got[p]} steps, where {right} {want[p]})"

    diff = counts(c_re, c_im, max_iter, re_of_difference=True)
    yield (diff, "the real step squares the difference, (z_re - z_im) * (z_re - z_im), where "
           "z_re * z_re - z_im * z_im belongs: (z_re - z_im)^2 adds -2 * z_re * z_im to it "
           + first_difference(diff, "z_re * z_re - z_im * z_im gives"), "z_re^2 - z_im^2 is the "
           "difference of the squares, each part times itself: float re = z_re * z_re - z_im * "
           "z_im + c_re[i];")
    mixed = counts(c_re, c_im, max_iter, re_mixed=True)
    yield (mixed, "the real step subtracts z_im * z_re where z_im * z_im belongs, the square of "
           "the imaginary part: float re = z_re*z_re - z_im*z_re + c_re[i] "
           + first_difference(mixed, "z_im * z_im gives"), "the real part of z*z is z_re^2 - "
           "z_im^2, each part times itself: float re = z_re*z_re - z_im*z_im + c_re[i];")
    swapped = counts(c_re, c_im, max_iter, re_swapped=True)
    yield (swapped, "the real step computes z_im * z_im - z_re * z_re, the squares in the wrong "
           "order: z_im^2 - z_re^2 is the negative of z*z's real part, z_re^2 - z_im^2 "
           + first_difference(swapped, "z_re * z_re - z_im * z_im gives"), "the real part of "
           "z*z is z_re^2 - z_im^2, the real part's square first: float re = z_re * z_re - z_im "
           "* z_im + c_re[i];")
    doubled = counts(c_re, c_im, max_iter, re_doubled=True)
    yield (doubled, "the real step doubles z_re and z_im, z_re * 2 - z_im * 2, where their "
           "squares belong, z_re * z_re - z_im * z_im "
           + first_difference(doubled, "the squares give"), "a square is the number times "
           "itself: float re = z_re * z_re - z_im * z_im + c_re[i];")
    twice = counts(c_re, c_im, max_iter, re_twice=True)
    yield (twice, "z_im's step multiplies z_re by itself, 2 * z_re * z_re: the counts are those "
           f"of z_im = 2 * z_re^2 + c_im (point 0, c = {c_re[0]:g}{c_im[0]:+g}i: {twice[0]} steps, "
           f"where 2 * z_re * z_im gives {want[0]})", "the imaginary part of z*z is 2 * z_re * "
           "z_im: z_im = 2.0f * z_re * z_im + c_im[i]")


def size_models(c_re, c_im, max_iter):
    """(counts, problem, hint) of a loop whose test takes another bound or another size for
    |z|^2."""
    yield (counts(c_re, c_im, max_iter, bound=2), "the points escape too early: the loop stops "
           "once |z|^2 passes 2, where |z| passing 2 is the rule", "|z| <= 2 is |z|^2 <= 4: loop "
           "while z_re * z_re + z_im * z_im <= 4.0f")
    yield (counts(c_re, c_im, max_iter, taxicab=True), "the points escape too early: the "
           "counts are those of a loop that tests |z_re| + |z_im| <= 2, which stops before |z| "
           "passes 2 (|z| is the square root of z_re^2 + z_im^2)", "|z| <= 2 is |z|^2 <= 4: "
           "loop while z_re * z_re + z_im * z_im <= 4.0f")
    yield (counts(c_re, c_im, max_iter, bound=16), "the points escape too late: the loop goes on "
           "until |z| passes 4 (|z|^2 passes 16), where |z| passing 2 is the rule", "|z| <= 2 is "
           "|z|^2 <= 4, no square root needed: loop while z_re * z_re + z_im * z_im <= 4.0f")
    yield (counts(c_re, c_im, max_iter, sum_squared=True), "the loop's test takes (z_re + "
           "z_im)^2, the square of the sum, for |z|^2, which is the sum of the squares, z_re^2 + "
           "z_im^2: (z_re + z_im)^2 adds 2 * z_re * z_im to it, and is 0 wherever z_im = -z_re",
           "|z|^2 squares each part alone: loop while z_re * z_re + z_im * z_im <= 4.0f")


def loop_without_braces(kernels, got):
    """A while or for loop with no braces, the statements after its one statement indented as
    that one (``unbraced_loop``): C takes the first statement alone for the body, and the rest
    runs once, after the loop. ``got``: the counts, for the verdict."""
    from helpers.exercises.unbraced import unbraced_loop

    if (loop := unbraced_loop(kernels)) is None:
        return
    stuck = ", which changes nothing its test reads (on a GPU it may never end)" \
        if loop.stuck else ""
    counted = f"every count is {got[0]}" if (got == got[0]).all() else "the counts are wrong"
    yield (f"the {loop.keyword} at line {loop.line} has no braces, so its body is the one "
           f"statement {loop.body} (line {loop.body_line}), and lines {loop.after[0]} to "
           f"{loop.after[1]}, indented as if in the loop, run once, after it; the loop repeats "
           f"that one statement alone{stuck}, so {counted}",
           f"C does not go by indentation: wrap the loop's body in braces, {loop.header} "
           "{ ... }, around the whole step and k++")


def counted_once_more(kernels, got, want, max_iter, tolerance):
    """Every count one more than the steps taken, the points that never escape too (max_iter +
    1): the counter ends one above the steps; where a while loop's test steps it (the kernel's
    words, its simulated twin's source), that ++, which counts the test that ends the loop too."""
    if np.mean(got != want + 1) > tolerance:
        return
    found = _stepped_in_the_test(kernels)
    said = f"every count is one too many, the points that never escape too (they count " \
           f"max_iter + 1 = {max_iter + 1}): "
    if found is None:
        yield (said + "k ends one above the steps taken (k starts at 1 and the loop runs while k "
               "<= max_iter, say, or the store adds 1)", "k starts at 0 and counts only the steps "
               "taken: while (k < max_iter && ...) { one step; k++; }, then steps[i] = k;")
        return
    test, k = found
    yield (said + f"the {k}++ in the loop's test, {test}, steps {k} each time the test is made, "
           f"the last one too, which fails and ends the loop, so {k} counts one more than the "
           "steps taken", f"test {k} < max_iter with no ++ in it, and count each step in the "
           f"body: while ({k} < max_iter && z_re * z_re + z_im * z_im <= 4.0f) {{ one step; "
           f"{k}++; }}")


def _stepped_in_the_test(kernels):
    """(the text "while (...)", the name it steps) of the kernel's first while loop whose test
    holds a ++ (its simulated twin's source); None where there is none or the text cannot be
    read."""
    from helpers.exercises.microscope import kernel_words
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for j in range(body + 1, end - 1):
        if words[j] != "while" or words[j + 1] != "(":
            continue
        try:
            close = closing(tokens, j + 1)
        except (Unreadable, ValueError, IndexError):
            return None
        steps = [m for m in range(j + 2, close) if words[m] == "++"]
        if steps:
            m = steps[0]
            name = words[m - 1] if words[m - 1].isidentifier() else words[m + 1]
            return source[tokens[j].start:tokens[close].end], name
    return None


def size_cut_to_int(kernels, got, model, max_iter, tolerance):
    """Counts of a loop that goes on while |z|^2 < 5, the step right: |z|^2 cut to a whole number
    before the test (an int holds it: 4.5 is 4, and 4 > 4 is false), so a point whose |z|^2
    lies between 4 and 5 takes a step more. ``model``: (c_re, c_im, the right counts)."""
    c_re, c_im, want = model
    cut = counts(c_re, c_im, max_iter, strict=True, bound=5)
    if np.mean(cut != want) <= tolerance or np.mean(got != cut) > tolerance:
        return
    p = int(np.argmax(got != want))
    held = _int_compared(kernels)
    where = (f"{held[0]} at line {held[1]}" if held else "an int that holds it (int size2 = "
             "z_re * z_re + z_im * z_im;, say)")
    yield (f"points whose |z|^2 lies between 4 and 5 took a step too many (point {p} counts "
           f"{got[p]}, expected {want[p]}), the step being right: {where} cuts |z|^2 to a whole "
           "number, so 4.5 becomes 4, the test 4 > 4 is false, and the point goes on until "
           "|z|^2 reaches 5", "keep |z|^2 a float: float size2 = z_re * z_re + z_im * z_im; "
           "if (size2 > 4.0f) break; (or test z_re * z_re + z_im * z_im <= 4.0f in the loop's "
           "test)")


def _int_compared(kernels):
    """(the text "int name = ...;", its line) of the kernel body's first int declared from a
    product and compared later with a number (size2 > 4); None where there is none or the text cannot be
    read."""
    from helpers.exercises.microscope import kernel_words, source_line

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for j in range(body + 1, end - 3):
        if words[j] != "int" or words[j + 2] != "=" or ";" not in words[j + 3:end]:
            continue
        stop = words.index(";", j + 3)
        compared = any(words[m] == words[j + 1] and words[m + 1] in ("<", "<=", ">", ">=")
                       and words[m + 2][:1].isdigit() for m in range(stop, end - 2))
        if "*" in words[j + 3:stop] and compared:
            return source[tokens[j].start:tokens[stop].end], source_line(source, tokens[j].start)
    return None
