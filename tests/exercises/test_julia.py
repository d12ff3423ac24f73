"""The Julia-set checker (helpers.exercises.julia): the solution passes, the stub fails, and each
known mistake fails with the hint written for it. The solution and all its wrong variants are
compiled as one module."""

import contextlib

import numpy as np
import pytest

from kernel_sources import (assert_mistake_named, compile_variant_pairs, simulator_only, solution,
                            stable_file, variant)
from julia_variants import INDEXING

from helpers.exercises import julia as checker
from helpers.sim.settings import settings


KERNEL = solution("julia.cu")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit TIA-julia-1: z_re ** 2 read as z_re * 2 (was '88.2% of the pixels differ from
    # NumPy's ... Hint: compare your loop with the Mandelbrot kernel's: ... old values ...')
    ("squares_doubled",
     variant(KERNEL, ("float re2 = z_re * z_re, im2 = z_im * z_im;",
                      "float re2 = z_re * 2, im2 = z_im * 2;")),
     ["the squares are doubled: re2 = z_re * 2, im2 = z_im * 2, where z_re * z_re and z_im * "
      "z_im belong", "Hint: square each part, float re2 = z_re * z_re, im2 = z_im * z_im;"]),
    # the other wrong step of helpers.exercises.escape that julia's loop can take
    ("im_of_the_squares",
     variant(KERNEL, ("z_im = 2.0f * z_re * z_im + c_im;", "z_im = 2.0f * re2 * im2 + c_im;")),
     ["z_im's step multiplies the squares, z_im = 2.0f * re2 * im2 + c_im, where z_re * z_im "
      "belongs", "Hint: the imaginary part of z*z is 2 * z_re * z_im, from z itself, not its "
      "squares: z_im = 2.0f * z_re * z_im + c_im"]),
    # blind audit TXA-julia-1: im2 = z_im * z_re (was '85.5% of the pixels differ ... old values')
    ("im2_of_z_re", variant(KERNEL, ("im2 = z_im * z_im;", "im2 = z_im * z_re;")),
     ["the square im2 is z_im * z_re, where z_im * z_im belongs", "Hint: square each part"]),
    # blind audits TJA-julia-1, TVA-escape_steps-1: c's part subtracted (was 'N% of the pixels differ')
    *[(f"c_{p}_subtracted", variant(KERNEL, (f"{z} + c_{p};", f"{z} - c_{p};")),
       [f"{z[:4]}'s step subtracts c_{p}, {z} - c_{p}, where z*z + c adds it",
        f"Hint: add c's {part} part, + c_{p}: {z} + c_{p}"])
      for p, z, part in (("im", "z_im = 2.0f * z_re * z_im", "imaginary"),
                         ("re", "z_re = re2 - im2", "real"))],
    # blind audit I16: the rows counted from the bottom (was '64.7% of the pixels differ ...',
    # with the hint about the step)
    ("upside_down", variant(KERNEL, ("float z_im = y_min + y * dy;",
                                     "float z_im = y_min + (height - 1 - y) * dy;")),
     ["the image is upside down", "z_im = y_min + y*dy"]),
    ("no_bounds_guard",
     variant(KERNEL, ("    if (x >= width || y >= height)\n        return;\n", "")),
     ["past the end", "x >= width || y >= height"]),
    ("only_block_0",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x"),
             ("blockIdx.y * blockDim.y + threadIdx.y", "threadIdx.y")),
     ["only block 0's pixels were written", "blockIdx.x * blockDim.x"]),
    ("guard_too_strict_leaves_pixels_unwritten",
     variant(KERNEL, ("x >= width || y >= height", "x >= width - 1 || y >= height")),
     ["never written", "every pixel needs a thread"]),
    ("guard_off_by_one", variant(KERNEL, ("x >= width || y >= height", "x > width || y > height")),
     ["off by one", "(>=, not >)"]),
    ("stores_into_the_next",
     variant(KERNEL, ("iters[y * width + x] = n;", "iters[y * width + x + 1] = n;")),
     ["one too far, the guard is right", "iters[y * width + x]"]),
    # audit G31, G32: z started at the pixel's offset alone; the escape tested on each part
    ("start_without_the_corner",
     variant(KERNEL, ("float z_re = x_min + x * dx;", "float z_re = x * dx;"),
             ("float z_im = y_min + y * dy;", "float z_im = y * dy;")),
     ["x_min and y_min left out: z starts at x*dx + i*(y*dy)", "z_re = x_min + x*dx"]),
    # blind audit AQ (was '93.4% of the pixels differ from NumPy's ... Hint: compare your loop
    # with the Mandelbrot kernel's ...'): z_im started from x_min, the real part's corner
    ("z_im_from_x_min",
     variant(KERNEL, ("float z_im = y_min + y * dy;", "float z_im = x_min + y * dy;")),
     ["z_im = x_min + y*dy: the imaginary part starts from x_min, the real part's corner, where "
      "y_min belongs", "Hint: z_re = x_min + x*dx, z_im = y_min + y*dy: x_min"]),
    ("escape_tested_on_each_part",
     variant(KERNEL, ("if (re2 + im2 > 4.0f)", "if (fabsf(z_re) > 2.0f || fabsf(z_im) > 2.0f)")),
     ["z_re or z_im alone passes 2", "break once re2 + im2 > 4.0f"]),
    # blind audit AL (was 'the guard stops only the threads outside in both x and y (&&), or it
    # compares y with width ...', hedged between two causes): the guard joined with &&
    ("guard_joined_with_and",
     variant(KERNEL, ("x >= width || y >= height", "x >= width && y >= height")),
     ["the guard if (x >= width && y >= height) return; at line ", "joins its tests with &&",
      "Hint: a thread outside in either must return: join the tests with ||"]),
    ("guard_compares_x_with_height",
     variant(KERNEL, ("x >= width || y >= height", "x >= height || y >= width")),
     ["past the end", "x >= width || y >= height"]),
    ("mandelbrot_instead",
     variant(KERNEL, ("float z_re = x_min + x * dx;\n    float z_im = y_min + y * dy;",
              "float z_re = 0.0f, z_im = 0.0f;"),
             ("+ c_im;", "+ (y_min + y * dy);"), ("+ c_re;", "+ (x_min + x * dx);")),
     ["Mandelbrot", "z STARTS at the pixel"]),
    # blind audit L16: z declared int, cut to a whole number at every step (was 'every pixel
    # has the same count ... Hint: set z_re = x_min + x*dx ...', what the learner had written)
    ("z_kept_in_ints",
     variant(KERNEL, ("float z_re = x_min + x * dx;\n    float z_im = y_min + y * dy;",
              "int z_re = x_min + x * dx;\n    int z_im = y_min + y * dy;")),
     ["z is kept in ints: its start and every step's result lost their fraction",
      "Hint: z has fractions: declare its parts float, float z_re = x_min + x*dx"]),
    ("z_starts_at_zero",
     variant(KERNEL, ("float z_re = x_min + x * dx;\n    float z_im = y_min + y * dy;",
              "float z_re = 0.0f, z_im = 0.0f;")),
     ["same count", "z_re = x_min + x*dx"]),
    ("never_escapes", variant(KERNEL, ("        if (re2 + im2 > 4.0f)\n            break;\n", "")),
     ["same count", "no pixel escaped", "end the loop once |z|^2 > 4"]),
    ("step_declares_a_new_z",
     variant(KERNEL, ("        z_im = 2.0f", "        float z_im = 2.0f"),
             ("        z_re = re2", "        float z_re = re2")),
     ["the escape test only ever sees each pixel's start point",
      "or the loop's step declares new z variables",
      "without float: z_im = 2.0f * z_re * z_im + c_im"]),
    # blind audit P16 (was 'z never changes: ... Hint: assign the old variables, without float'):
    # the squares computed once, before the loop; its counts are the hidden z's, so both are named
    ("squares_computed_once",
     variant(KERNEL, ("    while (n < max_iter) {\n        float re2 = z_re * z_re, im2 = z_im * "
                      "z_im;\n", "    float re2 = z_re * z_re, im2 = z_im * z_im;\n"
                                  "    while (n < max_iter) {\n")),
     ["the escape test only ever sees each pixel's start point",
      "re2 = z_re * z_re and im2 = z_im * z_im were computed once, before the loop",
      "at the top of each turn, float re2 = z_re * z_re, im2 = z_im * z_im"]),
    ("stops_at_4", variant(KERNEL, ("if (re2 + im2 > 4.0f)", "if (re2 + im2 >= 4.0f)")),
     ["where |z|^2 starts at exactly 4", "> 4.0f (not >=)"]),
    ("x_and_y_swapped_in_the_point",
     variant(KERNEL, ("x_min + x * dx", "x_min + y * dx"), ("y_min + y * dy", "y_min + x * dy")),
     ["x and y swapped", "x (the column)"]),
    ("re_and_im_swapped",
     variant(KERNEL, ("float z_re = x_min + x * dx;\n    float z_im = y_min + y * dy;",
              "float z_im = x_min + x * dx;\n    float z_re = y_min + y * dy;")),
     ["real and imaginary parts", "z_re = x_min + x*dx"]),
    ("c_re_and_c_im_swapped",
     variant(KERNEL, ("+ c_im;", "+ C_RE;"), ("+ c_re;", "+ c_im;"), ("+ C_RE;", "+ c_re;")),
     ["c_re and c_im are swapped", "add c_re to the real part"]),
    ("stored_transposed", variant(KERNEL, ("iters[y * width + x]", "iters[x * height + y]")),
     ["transposed", "iters[y*width + x]"]),
    ("loop_runs_once_too_often", variant(KERNEL, ("while (n < max_iter)", "while (n <= max_iter)")),
     ["max_iter + 1", "n < max_iter"]),
    # the loop stopped a step early (blind audit TMA-escape_steps-1's mistake in this loop)
    ("loop_stops_a_step_short",
     variant(KERNEL, ("while (n < max_iter)", "while (n < max_iter - 1)")),
     ["never escape count max_iter - 1", "n < max_iter - 1 does", "loop while n < max_iter"]),
    ("counts_before_the_test",
     variant(KERNEL, ("    while (n < max_iter) {\n",
              "    while (n < max_iter) {\n        n++;\n"),
             ("        z_re = re2 - im2 + c_re;\n        n++;\n",
              "        z_re = re2 - im2 + c_re;\n")),
     ["one step too many", "BEFORE taking a step"]),
    ("counts_after_the_step",
     variant(KERNEL, ("        float re2 = z_re * z_re, im2 = z_im * z_im;\n"
              "        if (re2 + im2 > 4.0f)\n            break;\n"
              "        z_im = 2.0f * z_re * z_im + c_im;\n"
              "        z_re = re2 - im2 + c_re;\n",
              "        float re2 = z_re * z_re, im2 = z_im * z_im;\n"
              "        z_im = 2.0f * z_re * z_im + c_im;\n"
              "        z_re = re2 - im2 + c_re;\n"
              "        if (z_re * z_re + z_im * z_im > 4.0f)\n            break;\n")),
     ["one step too few", "count every step taken"]),
    # blind audit V16 (was '83.0% of the pixels differ from NumPy's ... Hint: compare your loop
    # with the Mandelbrot kernel's: the new z_re and z_im must both be computed from the old values')
    ("z_re_updated_before_z_im_is_computed",
     variant(KERNEL, ("        z_im = 2.0f * z_re * z_im + c_im;\n        z_re = re2 - im2 + c_re;\n",
              "        z_re = re2 - im2 + c_re;\n        z_im = 2.0f * z_re * z_im + c_im;\n")),
     ["z_im was computed from the NEW z_re: z_re was updated first",
      "both new parts from the OLD z_re and z_im: z_im = 2.0f * z_re * z_im + c_im first"]),
    ("z_re_computed_from_the_new_z_im",
     variant(KERNEL, ("z_re = re2 - im2 + c_re;", "z_re = z_re * z_re - z_im * z_im + c_re;")),
     ["z_re was computed from the NEW z_im", "then z_re = re2 - im2 + c_re"]),
    # blind audit R2-16: z_im from the column, a copy of z_re's line (was '86.0% ... differ')
    ("imaginary_part_from_the_column", variant(KERNEL, ("y_min + y * dy", "y_min + x * dy")),
     ["z_im = y_min + x*dy: the imaginary part steps with the column x",
      "Hint: z_im goes with y, the row: z_re = x_min + x*dx, z_im = y_min + y*dy"]),
    ("real_part_from_the_row", variant(KERNEL, ("x_min + x * dx", "x_min + y * dx")),
     ["z_re = x_min + y*dx: the real part steps with the row y",
      "Hint: z_re goes with x, the column"]),
    ("real_part_steps_by_dy", variant(KERNEL, ("x_min + x * dx", "x_min + x * dy")),
     ["the real part steps by dy", "z_re = x_min + x*dx"]),
    ("dx_and_dy_swapped", variant(KERNEL, ("x_min + x * dx", "x_min + x * dy"),
                                  ("y_min + y * dy", "y_min + y * dx")),
     ["dx and dy are swapped", "z_re = x_min + x*dx"]),
    ("factor_2_left_out", variant(KERNEL, ("z_im = 2.0f * z_re * z_im", "z_im = z_re * z_im")),
     ["lacks the factor 2", "z_im = 2*z_re*z_im + c_im"]),
    ("im2_added", variant(KERNEL, ("z_re = re2 - im2 + c_re", "z_re = re2 + im2 + c_re")),
     ["adds z_im*z_im", "z_re = z_re*z_re - z_im*z_im"]),
    # blind audit Z32: |z|^2 taken as the real part of z*z (was '61.6% of the pixels differ ...
    # Hint: compare your loop with the Mandelbrot kernel's: the new z_re and z_im ...')
    ("escape_test_of_the_real_part", variant(KERNEL, ("if (re2 + im2 > 4.0f)", "if (re2 - im2 > 4.0f)")),
     ["the escape test takes re2 - im2, the real part of z*z, for |z|^2", "break once re2 + im2 > 4.0f"]),
    ("escape_at_2", variant(KERNEL, ("re2 + im2 > 4.0f", "re2 + im2 > 2.0f")),
     ["stops at |z|^2 > 2", "re2 + im2 > 4.0f"]),
    ("escape_test_on_the_modulus_at_4",
     variant(KERNEL, ("if (re2 + im2 > 4.0f)", "if (sqrtf(re2 + im2) > 4.0f)")),
     ["stops at |z| > 4", "re2 + im2 > 4.0f"]),
    ("c_re_added_to_z_im", variant(KERNEL, ("2.0f * z_re * z_im + c_im", "2.0f * z_re * z_im + c_re")),
     ["z_im's update adds c_re", "c_im to the imaginary part"]),
    ("rows_step_down", variant(KERNEL, ("y_min + y * dy", "y_min - y * dy")),
     ["z_im = y_min - y*dy", "z_im = y_min + y*dy"]),
    ("return_for_break", variant(KERNEL, ("            break;", "            return;")),
     ["only the pixels that never escaped were written", "break, not return"]),
    # blind audit AE (was '3518 of 28623 pixels were never written ... Hint: every pixel needs a
    # thread: x = ...', the indexing right): the count stored only inside the escape test
    ("stored_only_on_escape", variant(KERNEL, ("break;", "{ iters[y * width + x] = n; return; }"),
                                      ("}\n\n    iters[y * width + x] = n;", "}")),
     ["pixels never written are exactly the ones that never escape", "store iters[y * width + x] "
      "= n once, after the loop"]),
    ("c_im_twice", variant(KERNEL, ("z_re = re2 - im2 + c_re;", "z_re = re2 - im2 + c_im;")),
     ["adds c_im to the real part too", "add c_re to the real part"]),
    ("z_re_from_the_thread", variant(KERNEL, ("x_min + x * dx", "x_min + threadIdx.x * dx")),
     ["takes threadIdx.x where it takes x", "x = blockIdx.x * blockDim.x + threadIdx.x"]),
    # audit A: the start point's steps truncated to whole numbers
    ("start_steps_cast_to_int", variant(KERNEL, ("x_min + x * dx", "x_min + (int)(x * dx)"),
                                        ("y_min + y * dy", "y_min + (int)(y * dy)")),
     ["(int)(x*dx) drops the fraction", "no cast to int"]),
    # blind audit X31 and X32 (both were '...% of the pixels differ from NumPy's'): dx and dy
    # taken as the view's width and height; the squares kept in ints
    ("steps_divided_by_the_size", variant(KERNEL, ("x_min + x * dx", "x_min + x * dx / width"),
                                          ("y_min + y * dy", "y_min + y * dy / height")),
     ["z starts at x_min + x*dx/width", "dx is already the step from one pixel to the next",
      "z_re = x_min + x*dx"]),
    ("squares_kept_in_ints", variant(KERNEL, ("float re2 = z_re * z_re", "int re2 = z_re * z_re")),
     ["the squares re2 and im2 are ints", "float re2 = z_re * z_re, im2 = z_im * z_im"]),
    # blind audit: the Mandelbrot habit, the pixel's point added in the step where c belongs
    ("pixel_added_for_c", variant(KERNEL, ("z_im = 2.0f * z_re * z_im + c_im;\n        z_re = re2 - im2 + c_re;",
                                           "z_im = 2.0f * z_re * z_im + (y_min + y * dy);\n"
                                           "        z_re = re2 - im2 + (x_min + x * dx);")),
     ["each step adds the pixel's own point where c belongs", "the same for every pixel"]),
    # blind audit: n counted in the loop's test, the test that ends the loop counted too
    ("counted_in_the_test",
     variant(KERNEL, ("    while (n < max_iter) {\n        float re2 = z_re * z_re, im2 = z_im * z_im;\n"
                      "        if (re2 + im2 > 4.0f)\n            break;\n",
                      "    while (n++ < max_iter && z_re * z_re + z_im * z_im <= 4.0f) {\n"
                      "        float re2 = z_re * z_re, im2 = z_im * z_im;\n"),
             ("        n++;\n    }", "    }")),
     ["every pixel counts one more than the steps taken", "no ++ in the test"]),
    # every thread computes every pixel, the same values: right, but for the race check
    # blind audit AH (was 'threads outside the image wrote past the end of iters ... Hint: no
    # bounds guard, or only half of one'): the store left after the guard's closing brace
    ("store_after_the_guard_s_braces",
     variant(KERNEL, ("    if (x >= width || y >= height)\n        return;\n\n",
                      "    int n = 0;\n    if (x < width && y < height) {\n"),
             ("    int n = 0;\n    while", "    while"), ("    }\n\n    iters", "    }\n    }\n\n    iters")),
     ["the store iters[y * width + x] = n; at line ", "comes after the closing brace of the guard "
      "if (x < width && y < height) at line ", "Hint: move the store inside the braces"]),
    ("flat_guard",
     variant(KERNEL, ("x >= width || y >= height", "y * width + x >= width * height")),
     ["threads with x >= width passed the guard on y*width + x", "guard x and y separately"]),
    ("starts_at_the_pixel_centre",
     variant(KERNEL, ("float z_re = x_min + x * dx;\n    float z_im = y_min + y * dy;",
                      "float z_re = x_min + (x + 0.5f) * dx;\n"
                      "    float z_im = y_min + (y + 0.5f) * dy;")),
     ["z starts at the pixel's centre", "with no 0.5 added"]),
    ("every_thread_does_the_whole_loop",
     variant(KERNEL, ("        return;\n\n", "        return;\n\n    for (int y = 0; y < height; y++)\n"
                                               "    for (int x = 0; x < width; x++) {\n"),
             ("    iters[y * width + x] = n;\n}", "    iters[y * width + x] = n;\n    }\n}")),
     ["two threads drew the same pixel", "every thread did the whole loop",
      "no loop over all the pixels"]),
    # blind audit THA-julia-1 (was 'the kernel did not finish ... (an endless loop?)'): continue
    # where break belongs in the escape test
    ("continue_where_break_belongs",
     variant(KERNEL, ("            break;", "            continue;")),
     ["an escaped point never leaves the loop", "continue skips to the next turn without counting",
      "every point starts outside |z| = 2 ran into its time limit",
      "no point escapes (z = 0, c = 0) counted max_iter = 20 for each",
      "Hint: leave the loop once z has escaped: if (re2 + im2 > 4.0f) break;"]),
    # the same loop with no continue: the escape test guards the step alone, nothing leaves
    ("escape_test_guards_the_step_alone",
     variant(KERNEL, ("        if (re2 + im2 > 4.0f)\n            break;\n"
                      "        z_im = 2.0f * z_re * z_im + c_im;\n"
                      "        z_re = re2 - im2 + c_re;\n        n++;\n",
                      "        if (re2 + im2 <= 4.0f) {\n"
                      "            z_im = 2.0f * z_re * z_im + c_im;\n"
                      "            z_re = re2 - im2 + c_re;\n            n++;\n        }\n")),
     ["an escaped point never leaves the loop: once |z|^2 > 4 the loop goes on to its next turn",
      "Hint: leave the loop once z has escaped: if (re2 + im2 > 4.0f) break;"]),
    # blind audit AC (was '87.4% of the pixels differ ... the new z_re and z_im must both be
    # computed from the old values'): z_im = new_re, the new real part, where new_im belongs
    ("z_im_takes_the_new_re", variant(KERNEL, (
        "z_im = 2.0f * z_re * z_im + c_im;\n        z_re = re2 - im2 + c_re;",
        "float new_re = re2 - im2 + c_re, new_im = 2.0f * z_re * z_im + c_im;\n"
        "        z_re = new_re;\n        z_im = new_re;")),
     ["after each step z_im takes the new REAL part", "z stays on the line z_im = z_re",
      "Hint: store the new imaginary part into z_im: z_im = 2.0f * z_re * z_im + c_im"]),
    # blind audit AN (was '8.6% of the pixels differ ... the new z_re and z_im must both be
    # computed from the old values'): the escape test after the step, so z outside counts 1
    ("escape_test_after_the_step", variant(KERNEL, (
        "        if (re2 + im2 > 4.0f)\n            break;\n", ""), (
        "        n++;\n", "        n++;\n        if (z_re * z_re + z_im * z_im > 4.0f)\n"
                          "            break;\n")),
     ["the pixels whose z starts outside |z| = 2 (|z|^2 > 4 at the pixel's point) count 1, not 0",
      "the escape test comes after the step", "Hint: test z before stepping it"]),
    # blind audit AO (was '40.8% of the pixels differ ... the new z_re and z_im must both be
    # computed from the old values'): two steps a turn, one escape test, n += 2 cut to max_iter
    ("tested_every_second_step", variant(KERNEL, (
        "        n++;\n    }\n", "        re2 = z_re * z_re; im2 = z_im * z_im;\n"
                                  "        z_im = 2.0f * z_re * z_im + c_im;\n"
                                  "        z_re = re2 - im2 + c_re;\n        n += 2;\n    }\n"
                                  "    if (n > max_iter) n = max_iter;\n")),
     ["the pixels that escape after an odd number of steps count one step more (pixel (x=0, "
      "y=0): 2 where 1 is right), the others right: the escape test comes only every second "
      "step", "Hint: test |z|^2 before every step"]),
    *INDEXING,
]


ENDLESS = "an escaped point loops forever: on a GPU the kernel never ends"
RACE = "on a GPU the threads past a row's end race with the next row's first threads: which count a pixel keeps varies"
SIMULATOR_ONLY = {"flat_guard": RACE, "guard_joined_with_and": RACE, "store_after_the_guard_s_braces": RACE,
                  "continue_where_break_belongs": ENDLESS, "escape_test_guards_the_step_alone": ENDLESS}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("julia", {"solution": KERNEL, **{w[0]: w[1] for w in WRONG}})


def run_checker(pair, capsys):
    """Run the checker on a compiled kernel and its simulator twin: (verdict, printed text)."""
    verdict = checker.check_julia_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_inline_solution_passes(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.passed is True and out.startswith("PASS:"), out


def test_stub_fails_saying_only_block_0(capsys):
    assert not checker.check_julia()          # default path: the stub learners start from
    out = capsys.readouterr().out
    assert out.startswith("NOT YET:") and "only block 0's pixels were written" in out, out


@pytest.mark.parametrize("name, source, expected", simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    # every thread's whole loop runs on the simulator until its time limit: a short one here
    slow = name in ("every_thread_does_the_whole_loop", "continue_where_break_belongs",
                    "escape_test_guards_the_step_alone")
    with settings.changed(time_limit=1.0) if slow else contextlib.nullcontext():
        verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, expected)


def test_a_changed_parameter_type_is_named(capsys):
    path = stable_file("julia_double_c_im.cu", variant(KERNEL, ("float c_im", "double c_im")))
    verdict = checker.check_julia(path)
    assert not verdict, capsys.readouterr().out
    assert "parameter 9 of julia, c_im, is declared 'double'" in verdict.problem
    assert "passes 'float'" in verdict.problem


def test_reference_matches_a_plain_python_loop():
    """The vectorized NumPy reference against the definition, pixel by pixel, in float32."""
    width, height, max_iter = 23, 17, 50
    x_min, y_min, dx, dy, c_re, c_im = -1.5, -1.0, 3.0 / width, 2.0 / height, -0.8, 0.156
    ref = checker.julia_reference(width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter)
    f32 = np.float32
    expected = np.zeros((height, width), np.int32)
    with np.errstate(over="ignore", invalid="ignore"):
        for y in range(height):
            for x in range(width):
                zr, zi = f32(x_min) + f32(x) * f32(dx), f32(y_min) + f32(y) * f32(dy)
                n = 0
                while n < max_iter and zr * zr + zi * zi <= f32(4):
                    zr, zi = zr * zr - zi * zi + f32(c_re), f32(2) * zr * zi + f32(c_im)
                    n += 1
                expected[y, x] = n
    assert np.array_equal(ref, expected)


def test_rows_wrapped_by_a_flat_guard_are_named_whichever_thread_drew_last(kernels):
    """Past a row's end the threads of a flat guard race with the next row's first: a GPU may
    keep the right count in all but one of the pixels where the two differ. The trace of the
    launch on the simulator names the mistake then, and no right kernel's."""
    from helpers.exercises.escape import escape_counts, pixel_grid
    from helpers.exercises.kernel import Kernels, Run

    case = checker.CASES[2]
    launch = checker._launch(case)
    width, height, x_min, y_min, dx, dy, c_re, c_im, max_iter = checker._args(case)
    over = checker._grid(case).threads[0] - width
    ref = np.asarray(launch.model)
    past = escape_counts(*pixel_grid(width + over, height, x_min, y_min, dx, dy), c_re, c_im,
                         max_iter)[:-1, width:]   # thread (width + k, y) draws pixel (k, y + 1)
    r, c = np.argwhere(past != ref[1:, :over])[0]
    got = ref.copy()
    got[1 + r, c] = past[r, c]   # the wrapped thread landed last in this one pixel alone

    def named(name):
        run = Run(launch, [], Kernels(*kernels[name]))
        return next(iter(checker._wrapped(case, got, ref, run)), None)
    assert named("flat_guard") is not None
    assert named("solution") is None
