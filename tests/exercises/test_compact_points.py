"""The compact_points checker (notebook 10): the solution and two unusual right kernels pass, the
stub and the usual mistakes of a compaction's scatter fail, each with the verdict that names it.
The solution and all its variants are compiled as one module."""

import pytest

from kernel_sources import ROOT, compile_variant_pairs, simulator_only, solution, variant

from helpers.exercises import catalog
from helpers.exercises import compact_points as checker

KERNEL = solution("compact_points.cu")
INDEX = "int i = blockIdx.x * blockDim.x + threadIdx.x;"
HOLE = "    if (!(xyz[2 * n + i] > 0.0f))\n        return;\n"
GUARD = "    if (i >= n)\n        return;\n"
STORES = ("points[3 * k] = xyz[i];", "points[3 * k + 1] = xyz[n + i];",
          "points[3 * k + 2] = xyz[2 * n + i];")

# name: (replacements in the solution, words of the verdict's problem, words of its hint)
WRONG = {
    "pixel_index": ([("int k = slot[i];", "int k = i;")], "at their pixel's row i", "slot[i]"),
    # every point one row down: row 0 is never written, the last point lands one past the list
    # (blind audit R2-9: was 'the kernel wrote past the end of points (730 rows) ... Hint: the
    # point of valid pixel i is row slot[i] of points: int k = slot[i]')
    "slot_of_the_next_pixel": ([("int k = slot[i];", "int k = slot[i + 1];")],
                               "every point landed one row after its slot: row 0 was never "
                               "written, row r + 1 holds the point of row r, and the last point "
                               "went to row 730", "slot is an exclusive sum: slot[i] counts the "
                               "points before pixel i, which is its row"),
    "holes_kept": ([(HOLE, "")], "holes were written into the list", "NaN > 0.0f is false"),
    # blind audit TA-compact_points-1: the hole test rewritten z <= 0.0f, false for NaN (was the
    # missing test's 'holes were written into the list ... Hint: a hole's Z is NaN, and NaN >
    # 0.0f is false ...', silent on the kernel's own test)
    "hole_test_less_or_equal": ([(HOLE, "    if (xyz[2 * n + i] <= 0.0f)\n        return;\n")],
                                "the hole test lets NaN through, as xyz[2 * n + i] <= 0.0f does",
                                "return when !(xyz[2 * n + i] > 0.0f), which is true for NaN"),
    # blind audit TFA-compact_points-1: NumPy-style z == NAN, never true (was the missing test's
    # 'holes were written into the list ... Hint: a hole's Z is NaN, and NaN > 0.0f is false ...')
    "hole_test_equal_to_nan": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (xyz[2 * n + i] == NAN)")],
                               "the hole test compares with NAN, xyz[2 * n + i] == NAN, which is "
                               "never true: NaN equals nothing", "isnan(xyz[2 * n + i])"),
    # blind audit TOA-compact_points-1: Z's plane taken to start at 3 * n (was 'the kernel
    # crashed ... a read of xyz ... Hint: threads past the end must do nothing ...', both right)
    "z_plane_at_three_n": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (!(xyz[3 * n + i] > 0.0f))")],
                           "read xyz[3 * n + i] = xyz[3128] (n = 1000, pixel i = 128), past the "
                           "end of xyz", "Z is xyz[2 * n + i]"),
    # blind audit TPA-compact_points-1: Z read at xyz[2 * (n + i)], a parenthesis slip (was 'the
    # kernel crashed ... a read of xyz ... Hint: threads past the end must do nothing ...', both
    # right)
    "z_read_at_twice_n_plus_i": ([(STORES[2], "points[3 * k + 2] = xyz[2 * (n + i)];")],
                                 "read xyz[2 * (n + i)] = xyz[3130] (n = 1000, pixel i = 565), "
                                 "past the end of xyz", "Z is xyz[2 * n + i]"),
    # blind audit TWA-compact_points-1: Y read at xyz[n * i], * for + (was 'the kernel crashed:
    # ... a read of xyz ... Hint: threads past the end must do nothing ...', both right)
    "y_read_at_n_times_i": ([(STORES[1], "points[3 * k + 1] = xyz[n * i];")],
                            "read xyz[n * i] = xyz[4000] (n = 1000, pixel i = 4), past the end "
                            "of xyz", "Y is xyz[n + i]"),
    "no_bounds_guard": ([(GUARD, "")], "threads past n wrote points past the end",
                        "if (i >= n) return;"),
    # blind audit TKA-compact_points-1: the guard compares with 3 * n, the length of xyz (was
    # 'threads past n wrote points past the end of the list: the bounds guard is missing ...',
    # though the kernel has one)
    "guard_at_three_n": ([("if (i >= n)", "if (i >= 3 * n)")],
                         "the guard is i >= 3 * n: threads n to 3 * n - 1 pass it",
                         "if (i >= n) return;"),
    # blind audit TRA-compact_points-1: the hole test before the bounds guard (was 'the kernel
    # failed on the simulator: ... a read of xyz[120] ... Hint: ... (a guard like if (i < n) ...)')
    "hole_test_before_the_guard": ([(GUARD + HOLE, HOLE + GUARD)],
                                   "thread i = 40, past n = 40, read xyz[2 * n + i] = xyz[120] in "
                                   "the hole test, before the bounds guard",
                                   "put the bounds guard first"),
    "guard_lets_n_through": ([("if (i >= n)", "if (i > n)")], "the guard lets i == n through",
                             "if (i >= n) return;"),
    # blind audit TYA-compact_points-1: the guard one pixel early, i >= n - 1 (it passed: every
    # cloud's last pixel was a hole; a cloud whose last pixel is a point shows it)
    "guard_stops_at_n_minus_1": ([("if (i >= n)", "if (i >= n - 1)")],
                                 "the last pixel, i = n - 1 = 1000, a point, was never written: "
                                 "row 678 of points, the last, still holds the poison",
                                 "if (i >= n) return; (i = n - 1 goes on)"),
    "z_x_swapped": ([(STORES[0], "points[3 * k] = xyz[2 * n + i];"),
                     (STORES[2], "points[3 * k + 2] = xyz[i];")],
                    "each row holds Z, Y, X", "row k is X, Y, Z"),
    # blind audit TQA-compact_points-1: Y and Z swapped (was '730 of 730 points are wrong (the
    # first is row 0: got [...], expected [...]) ... Hint: row slot[i] is X, Y, Z of pixel i ...')
    "y_z_swapped": ([(STORES[1], "points[3 * k + 1] = xyz[2 * n + i];"),
                     (STORES[2], "points[3 * k + 2] = xyz[n + i];")],
                    "each row holds X, Z, Y: Z (xyz[2 * n + i]) was stored in points[3 * k + 1] "
                    "and Y (xyz[n + i]) in points[3 * k + 2]",
                    "points[3 * k + 1] = xyz[n + i], points[3 * k + 2] = xyz[2 * n + i]"),
    # blind audit TGA-compact_points-1: Y read at the row k, not the pixel i (was '721 of 730
    # points are wrong (the first is row 9: ...) ... Hint: row slot[i] is X, Y, Z of pixel i:
    # xyz[i], xyz[n + i], xyz[2 * n + i]', all three reads)
    "y_read_at_the_row": ([(STORES[1], "points[3 * k + 1] = xyz[n + k];")],
                          "Y, column 1 of each row, was read as xyz[n + k], at the point's row "
                          "k = slot[i], not at its pixel i", "Y is xyz[n + i]"),
    # blind audit TIA-compact_points-1: Y and Z read as the next pixels' X, xyz[i + 1] and
    # xyz[i + 2] (was '730 of 730 points are wrong (the first is row 0: ...) ... Hint: row
    # slot[i] is X, Y, Z of pixel i: ...', silent on the two reads)
    "y_z_read_next_to_x": ([(STORES[1], "points[3 * k + 1] = xyz[i + 1];"),
                            (STORES[2], "points[3 * k + 2] = xyz[i + 2];")],
                           "Y, Z, columns 1, 2 of each row, were read as xyz[i + 1], xyz[i + 2], "
                           "the X of the pixels after i: xyz holds three planes of n floats",
                           "Y is xyz[n + i], Z is xyz[2 * n + i]"),
    "read_as_interleaved": ([("= xyz[i];", "= xyz[3 * i];"), ("xyz[n + i];", "xyz[3 * i + 1];"),
                             ("= xyz[2 * n + i];", "= xyz[3 * i + 2];")],
                            "read as xyz[3 * i]", "Y xyz[n + i]"),
    "one_float_a_point": ([("points[3 * k]", "points[k]"), ("points[3 * k + 1]", "points[k + 1]"),
                           ("points[3 * k + 2]", "points[k + 2]")],
                          "one a point", "points[3 * k] = X"),
    # blind audit Z18: NumPy's ~ for not, ~(Z > 0) is -1 or -2, true for every pixel (was
    # 'nothing was written ... Hint: ... int k = slot[i]'); a test true for holes and points alike
    "hole_test_by_numpy_s_not": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (~(xyz[2 * n + i] > 0.0f))")],
                                 "the hole test is true for every pixel",
                                 "if (!(xyz[2 * n + i] > 0.0f)) return;"),
    "hole_test_not_below_0": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (!(xyz[2 * n + i] < 0.0f))")],
                              "the hole test is true for every pixel",
                              "if (!(xyz[2 * n + i] > 0.0f)) return;"),
    # audit G17: the hole test reads Z as if xyz were interleaved, xyz[3 * i + 2]
    "hole_test_interleaved": ([(HOLE, HOLE.replace("xyz[2 * n + i]", "xyz[3 * i + 2]"))],
                              "the hole test read xyz[3 * i + 2]", "Z is xyz[2 * n + i]"),
    # blind audit AM (its hint was 'Z is xyz[2 * n + i] (n = 1000): return when ...', silent
    # on the copies, read side by side too): the hint gives all three planes
    "hole_test_and_copies_interleaved": ([(HOLE, HOLE.replace("xyz[2 * n + i]", "xyz[3 * i + 2]")),
                                          ("= xyz[i];", "= xyz[3 * i];"),
                                          ("xyz[n + i];", "xyz[3 * i + 1];"),
                                          ("= xyz[2 * n + i];", "= xyz[3 * i + 2];")],
                                         "the hole test read xyz[3 * i + 2]",
                                         "X is xyz[i], Y is xyz[n + i], Z is xyz[2 * n + i]"),
    "y_never_written": ([(STORES[1], "")], "points were never written", "slot[i]"),
    "y_from_x": ([(STORES[1], "points[3 * k + 1] = xyz[i];")], "Y, column 1 of each row, was "
                 "read from the X plane", "points[3 * k + 1] = xyz[n + i]"),
    # blind audit THA-compact_points-1: Z from the Y plane (was '730 of 730 points are wrong (the
    # first is row 0: ...) ... Hint: row slot[i] is X, Y, Z of pixel i: ...', all three reads)
    "z_from_y": ([(STORES[2], "points[3 * k + 2] = xyz[n + i];")],
                 "Z, column 2 of each row, was read from the Y plane, xyz[n + i], where Z is "
                 "xyz[2 * n + i]: every point's Z equals its Y (row 0: got [",
                 "points[3 * k + 2] = xyz[2 * n + i]"),
    "block_index_left_out": ([(INDEX, "int i = threadIdx.x;")], "exactly those of the pixels",
                             "i = threadIdx.x leaves out blockIdx.x * blockDim.x"),
    "block_and_thread_swapped": ([(INDEX, "int i = threadIdx.x * blockDim.x + blockIdx.x;")],
                                 "i = threadIdx.x * blockDim.x + blockIdx.x never reaches",
                                 "blockIdx.x and threadIdx.x are swapped"),
    "grid_dim_for_block_dim": ([(INDEX, "int i = blockIdx.x * gridDim.x + threadIdx.x;")],
                               "i = blockIdx.x * gridDim.x + threadIdx.x never reaches",
                               "blockDim.x apart"),
    "hole_test_on_x": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (!(xyz[i] > 0.0f))")],
                       "the hole test reads X", "Z is xyz[2 * n + i]"),
    "hole_test_on_y": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (!(xyz[n + i] > 0.0f))")],
                       "the hole test reads Y", "Z is xyz[2 * n + i]"),
    "slot_minus_one": ([("int k = slot[i];", "int k = slot[i] - 1;")], "before the start",
                       "slot is an exclusive sum"),
    # audit 3: the rows as three planes n apart, as xyz is; the hole test on the slot; the
    # previous pixel's slot (slot[-1] for i = 0: a row before the start of points)
    "points_as_planes": ([(STORES[0], "points[k] = xyz[i];"),
                          (STORES[1], "points[n + k] = xyz[n + i];"),
                          (STORES[2], "points[2 * n + k] = xyz[2 * n + i];")],
                         "three planes n apart", "points[3 * k + 1] = Y"),
    "hole_test_on_the_slot": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (slot[i] == 0)")],
                              "the hole test let holes through", "NaN > 0.0f is false"),
    # blind audit AB (was 'holes were written into the list: the last pixel, a hole, wrote row
    # 730, one past the end ... Hint: a hole's Z is NaN ...', silent on why only the last hole
    # got through): the hole told from the slots, slot[i + 1] == slot[i], which reads slot[n]
    "hole_test_from_the_next_slot": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (slot[i + 1] == slot[i])")],
                                     "for the last pixel, i = n - 1, that is slot[n], past the end "
                                     "of slot's n elements",
                                     "test the pixel itself: a hole's Z is NaN"),
    # blind audit AD (was 'holes were written into the list: the last pixel, a hole, wrote row
    # 730, one past the end ... Hint: a hole's Z is NaN ...', silent on the kernel's own test):
    # the hole told from the slot before, slot[i] == slot[i - 1], true when pixel i - 1 is a hole
    "hole_test_from_the_slot_before": ([("if (!(xyz[2 * n + i] > 0.0f))",
                                         "if (i > 0 && slot[i] == slot[i - 1])")],
                                       "the hole test looks at the pixel before i, not at pixel i: "
                                       "slot[i] == slot[i - 1] holds when pixel i - 1 is a hole",
                                       "test the pixel itself: return when !(xyz[2 * n + i] > 0.0f)"),
    # the same rows from the Z of the pixel before
    "hole_test_on_the_pixel_before": ([("if (!(xyz[2 * n + i] > 0.0f))",
                                        "if (i > 0 && !(xyz[2 * n + i - 1] > 0.0f))")],
                                      "the hole test looks at the pixel before i, not at pixel i",
                                      "test the pixel itself: return when !(xyz[2 * n + i] > 0.0f)"),
    "slot_of_the_pixel_before": ([("int k = slot[i];", "int k = slot[i - 1];")],
                                 "before the start", "slot[i - 1] reads before slot's start"),
    # every thread does the whole cloud, as a Python loop would: the right rows, each written by
    # every thread (it passed): the race-checked case on the simulator names it
    "every_thread_does_the_cloud": ([("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n" + GUARD
                                      + HOLE, "    for (int i = 0; i < n; i++) {\n"
                                      "    if (!(xyz[2 * n + i] > 0.0f))\n        continue;\n"),
                                     (STORES[2], STORES[2] + "\n    }")],
                                    "two threads wrote points[", "no loop over the whole cloud"),
    # blind audit N9: the row kept in an unsigned short, as the depth image's pixels are: it
    # wraps at 65536, and the points of rows 65536 on overwrite rows 0 on
    "row_in_an_unsigned_short": ([("int k = slot[i];", "unsigned short k = slot[i];")],
                                 "k wrapped at 65536", "keep it an int"),
    # ... and in a short, or a signed char: past 32767 (127) it wraps to a negative row
    "row_in_a_short": ([("int k = slot[i];", "short k = slot[i];")],
                       "is more than a 16-bit short holds (32767 at most), so k wrapped to",
                       "keep it an int"),
    "row_in_a_signed_char": ([("int k = slot[i];", "signed char k = slot[i];")],
                             "pixel 179's point, row slot[179] = 128, was written outside "
                             "points: 128 is more than an 8-bit signed char holds (127 at most), "
                             "so k wrapped to 128 - 256 = -128", "keep it an int"),
    # blind audit P9: the hole test inverted, the points return and the holes write (holes that
    # share a slot write the same NaNs into it)
    "hole_test_inverted": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (xyz[2 * n + i] > 0.0f)")],
                           "the hole test is inverted: the valid pixels returned",
                           "return for the holes, when !(xyz[2 * n + i] > 0.0f)"),
    # blind audit AC (was 'the ! at line 13 applies to the left side of the comparison only: C
    # reads !x < width as (!x) < width ... Hint: ... if (x >= width || y >= height) return;', a
    # guard the kernel does not have): the hole test's ! on Z alone, true for Z == 0 only
    "hole_test_not_on_z_alone": ([("if (!(xyz[2 * n + i] > 0.0f))", "if (!xyz[2 * n + i] > 0.0f)")],
                                 "C reads !xyz[2 * n + i] > 0.0f as (!xyz[2 * n + i]) > 0.0f",
                                 "if (!(xyz[2 * n + i] > 0.0f)) return;"),
    # blind audit AE (was 'holes were written into the list: the last pixel, a hole, wrote row
    # 730, one past the end ... Hint: a hole's Z is NaN ...', a test the kernel has right): the
    # hole test an if without braces around the three stores, so it guards X's alone
    "if_without_braces_around_the_stores": ([(HOLE, ""), ("    int k = slot[i];\n",
                                              "    int k = slot[i];\n    if (xyz[2 * n + i] > 0.0f)\n    "),
                                             (STORES[1], "    " + STORES[1]),
                                             (STORES[2], "    " + STORES[2])],
                                            "the holes wrote Y and Z, columns 1 and 2 of their "
                                            "row, but not X", "braces"),
    # blind audit E42: the row scaled to floats twice, k = 3 * slot[i], then points[3 * k]
    "row_scaled_twice": ([("int k = slot[i];", "int k = 3 * slot[i];")],
                         "a write of points", "the row was scaled to floats twice"),
}
# a write before the start of points: on a GPU it lands in another allocation, or crashes
SIMULATOR_ONLY = {"slot_minus_one": "writes before the start of points",
                  "slot_of_the_pixel_before": "reads slot[-1], writes before the start of points",
                  "row_scaled_twice": "writes far past the end of points",
                  "if_without_braces_around_the_stores": "a hole and the next point both write "
                                                         "Y and Z of one row: on a GPU which one "
                                                         "lands varies; the last hole writes "
                                                         "past the end of points",
                  "row_in_an_unsigned_short": "two threads write each of the first rows: on a "
                                              "GPU which one lands varies",
                  "row_in_a_short": "writes before the start of points",
                  "row_in_a_signed_char": "writes before the start of points",
                  "z_plane_at_three_n": "reads a plane's length past the end of xyz: on a GPU it "
                                        "reads what lies there, or crashes",
                  "y_read_at_n_times_i": "reads up to n * n floats past the end of xyz: on "
                                         "a GPU it reads what lies there, or faults",
                  "z_read_at_twice_n_plus_i": "reads up to n floats past the end of xyz: on a "
                                              "GPU it reads what lies there, or crashes"}
RIGHT = {
    "nan_test_by_isnan": [(HOLE, "    if (isnan(xyz[2 * n + i]))\n        return;\n")],
    "grid_stride_with_a_store_block": [
        (GUARD + HOLE, ""), ("    int k = slot[i];\n", "    for (; i < n; i += blockDim.x * gridDim.x) {\n"
                                                        "        float z = xyz[2 * n + i];\n"
                                                        "        if (z != z) continue;\n"
                                                        "        int k = slot[i];\n"),
        (STORES[2], STORES[2] + "\n    }")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL,
               **{name: variant(KERNEL, *r) for name, r in RIGHT.items()},
               **{name: variant(KERNEL, *w[0]) for name, w in WRONG.items()}}
    return compile_variant_pairs("compact_points", sources)


def test_stub_as_shipped_is_not_yet(capsys):
    verdict = checker.check_compact_points()
    assert not verdict.passed and "at their pixel's row i" in verdict.problem, verdict
    assert catalog.as_shipped(catalog.find("compact_points")) == (
        ROOT / "cuda_src" / "exercises" / "compact_points.cu").read_text()


@pytest.mark.parametrize("name", ["solution", *sorted(RIGHT)])
def test_right_kernels_pass(kernels, name, capsys):
    verdict = checker.check_compact_points_kernel(*kernels[name])
    assert verdict.passed is True, verdict


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_verdict(kernels, name, capsys):
    _, problem, hint = WRONG[name]
    verdict = checker.check_compact_points_kernel(*kernels[name])
    assert verdict.passed is False
    assert problem in verdict.problem and hint in verdict.hint, verdict


def test_the_grader_s_cases_pass_the_solution(kernels, capsys):
    verdict = checker.check_compact_points_kernel(*kernels["solution"], hidden=7)
    assert verdict.passed and "2 cases of the grader's own" in verdict.problem, verdict
