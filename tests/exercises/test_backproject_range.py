"""The back-projection exercise (notebook 10): the solution passes, the stub and known-wrong
kernels fail, each with the hint that names its mistake (the wrong kernels are variants of the
shipped solution, all compiled as one module)."""

import numpy as np
import pytest

from backproject_range_variants import KERNEL, MARKS, NAN, POINTS, RIGHT
from kernel_sources import compile_variant_pairs, simulator_only, stable_file, variant

from helpers.exercises.backproject_range import (
    CASES, Z_MAX, check_backproject_range, check_backproject_range_kernel, depth_image, reference, z_min)

GUARD = "    if (u >= width || v >= height)\n        return;\n"
INDEX_U = "int u = blockIdx.x * blockDim.x + threadIdx.x;"
INDEX_V = "int v = blockIdx.y * blockDim.y + threadIdx.y;"
FILTER = "if (depth[i] == 0 || z < z_min || z > z_max) {"
X = "    xyz[i] = (u - cx) * z / fx;\n"
Y = "    xyz[n + i] = (v - cy) * z / fy;\n"
Z = "    xyz[2 * n + i] = z;\n"
DEPTH = "float z = depth[i] * depth_scale;"

# name: (replacements in the solution, a piece of the expected verdict, or a list of pieces)
WRONG = {
    "no_bounds_guard": ([(GUARD, "")], "Hint: no bounds guard"),
    "guard_off_by_one": ([("u >= width || v >= height", "u > width || v > height")],
                         "the bounds guard is off by one"),
    "rows_as_long_as_the_height": ([("int i = v * width + u;", "int i = v * height + u;")],
                                   "a row was taken as height = 37 pixels long"),
    "no_return_after_the_nan": ([('= nanf("");\n        return;', '= nanf("");')],
                                "NaN was stored, then the coordinates over it"),
    # blind audit E47: the NaN stores and the return under an if without braces
    "if_without_braces": ([(FILTER + "\n" + NAN + "        return;\n    }\n",
                            FILTER[:-2] + "\n" + NAN + "        return;\n")],
                          "the return after the NaN stores ran for every pixel"),
    # blind audit TOA-backproject_range-1: X without the depth (was '815 values differ from
    # NumPy's ... Hint: X = (u - cx) * z / fx and Y = ...', the missing * z not named)
    "x_without_the_depth": ([("xyz[i] = (u - cx) * z / fx;", "xyz[i] = (u - cx) / fx;")],
                            "X was not multiplied by the depth z: X of pixel u = 0, v = 0 is "
                            "(u - cx) / fx = -0.417308"),
    # blind audit E46: X from the flat index i, not the column u
    "x_from_the_flat_index": ([("(u - cx) * z / fx", "(i - cx) * z / fx")],
                              "X was computed from i, the pixel's place in memory"),
    "guard_with_and": ([("u >= width || v >= height", "u >= width && v >= height")],
                       "the guard stops only the threads outside in both u and v (&&)"),
    "guard_sides_swapped": ([("u >= width || v >= height", "u >= height || v >= width")],
                            "the guard compares u with height and v with width"),
    "only_block_0": ([(INDEX_U, "int u = threadIdx.x;"), (INDEX_V, "int v = threadIdx.y;")],
                     "only block 0's pixels were written"),
    "threads_u_v_swapped": ([(INDEX_U, "int u = blockIdx.y * blockDim.y + threadIdx.y;"),
                             (INDEX_V, "int v = blockIdx.x * blockDim.x + threadIdx.x;")],
                            "a kernel with u and v swapped reaches"),
    "formula_u_v_swapped": ([("(u - cx)", "(v - cx)"), ("(v - cy)", "(u - cy)")],
                            "u and v are swapped"),
    "principal_point_after_division": ([("(u - cx) * z / fx", "(u / fx - cx) * z"),
                                        ("(v - cy) * z / fy", "(v / fy - cy) * z")],
                                       "intrinsics are applied in the wrong order"),
    "principal_point_from_the_result": ([("(u - cx) * z / fx", "u * z / fx - cx"),
                                         ("(v - cy) * z / fy", "v * z / fy - cy")],
                                        "intrinsics are applied in the wrong order"),
    # blind audit N4 (was '1632 values differ from NumPy's (the first: X of pixel u = 0, v = 0:
    # got -1.20112, expected -1.18474) ... Hint: X = (u - cx) * z / fx and ...')
    "image_centre_for_principal_point": ([("(u - cx)", "(u - width / 2)"),
                                          ("(v - cy)", "(v - height / 2)")],
                                         "measured from the image's centre, (width / 2, height / "
                                         "2) = (22, 18), not from the principal point"),
    "image_centre_in_floats": ([("(u - cx)", "(u - width / 2.0f)"),
                                ("(v - cy)", "(v - height / 2.0f)")],
                               "(width / 2, height / 2) = (22.5, 18.5), not from the principal"),
    "fx_fy_swapped": ([("z / fx", "z / fy"), ("z / fy;\n    xyz[2", "z / fx;\n    xyz[2")],
                      "fx and fy are swapped"),
    "cx_cy_swapped": ([("(u - cx)", "(u - cy)"), ("(v - cy)", "(v - cx)")],
                      "cx and cy are swapped"),
    "divided_by_depth": ([("(u - cx) * z / fx", "(u - cx) / fx / z"),
                          ("(v - cy) * z / fy", "(v - cy) / fy / z")], "divided by the depth"),
    "planes_swapped": ([(X + Y, "    xyz[n + i] = (u - cx) * z / fx;\n"
                                "    xyz[i] = (v - cy) * z / fy;\n")],
                       "the X and Y planes are swapped"),
    "millimetres": ([(X + Y + Z, "    xyz[i] = (u - cx) * depth[i] / fx;\n"
                                 "    xyz[n + i] = (v - cy) * depth[i] / fy;\n"
                                 "    xyz[2 * n + i] = depth[i];\n")],
                    "in millimetres"),
    # blind audit V4 (was 'every element of X is 1000 times the right value: a factor is off ...
    # Hint: check each number the formula multiplies or divides by ...'): X from the raw depth
    "x_from_the_raw_depth": ([(X, X.replace("* z /", "* depth[i] /"))],
                             "X used the raw depth[i] (millimetres) where z = depth[i] * "
                             "depth_scale (metres) belongs: it is 1000 (1 / depth_scale) times too "
                             "large (width = 45, height = 37, block = (16, 16, 1), grid = (3, 3), "
                             "fx = 52.0, fy = 47.5, cx = 21.7, cy = 19.4). Hint: use z = depth[i] "
                             "* depth_scale (metres), not depth[i]: X = (u - cx) * z / fx"),
    "y_from_the_raw_depth": ([(Y, Y.replace("* z /", "* depth[i] /"))],
                             "Y used the raw depth[i] (millimetres)"),
    # blind audit TLA-backproject_range-1 (was 'every element of Z is 1000 times the right value:
    # a factor is off ... Hint: ... an int divided by an int drops the fraction ...'): Z stored
    # as the raw depth
    "z_stored_as_the_raw_depth": ([(Z, "    xyz[2 * n + i] = depth[i];\n")],
                                  "Z was stored as the raw depth[i] (millimetres) where z = "
                                  "depth[i] * depth_scale (metres) belongs: it is 1000 (1 / "
                                  "depth_scale) times too large, while X and Y are right (width "
                                  "= 45, height = 37, block = (16, 16, 1), grid = (3, 3), fx = "
                                  "52.0, fy = 47.5, cx = 21.7, cy = 19.4). Hint: store z, the "
                                  "depth in metres: xyz[2 * n + i] = z"),
    "x_and_y_from_the_raw_depth": ([(X + Y, (X + Y).replace("* z /", "* depth[i] /"))],
                                   "X and Y used the raw depth[i] (millimetres) where z = depth[i] "
                                   "* depth_scale (metres) belongs: they are 1000 (1 / depth_scale)"
                                   " times too large, while Z is right"),
    # blind audit J4 (it passed: only z_min = 0.5 m was tried, where z < z_min drops a hole's Z = 0)
    "hole_test_left_out": ([(FILTER, "if (z < z_min || z > z_max) {")],
                           "holes (depth 0) were kept as points at the camera's centre (X = Y = Z "
                           "= 0): the depth == 0 test is missing"),
    "invalid_pixels_kept": ([(FILTER, "if (depth[i] != 0 && (z < z_min || z > z_max)) {")],
                            "pixels with no measurement (depth 0) were kept"),
    # blind audit Z8 (was 'points outside [z_min, z_max] were kept: the range filter is missing
    # ...', which is there): the hole and range tests joined with &&
    "hole_and_range_joined_with_and": ([(FILTER, "if (depth[i] == 0 && (z < z_min || z > z_max)) {")],
                                       "and with z_min = 0 the holes (depth 0) too: only a pixel "
                                       "that is a hole AND out of range was dropped"),
    # blind audit Z7 (was 'every element of X is 2704 times the right value: a factor is off ...
    # Hint: ... an int divided by an int drops the fraction ...'): X projected, not back-projected
    "x_multiplied_by_fx": ([("(u - cx) * z / fx", "(u - cx) * z * fx")],
                           "X was multiplied by the focal length fx where it is divided by it, so "
                           "it is fx^2 = 2704 times too large"),
    # blind audit TMA-backproject_range-1: the range's two tests joined with && (was 'points
    # outside [z_min, z_max] were kept: the range filter is missing', which is there)
    "range_tests_joined_with_and": ([("z < z_min || z > z_max", "z < z_min && z > z_max")],
                                    ["as a kernel without the range filter keeps them",
                                     "z < z_min && z > z_max", "never true",
                                     "Hint: join the two ends with ||"]),
    # blind audit AD (was '246 of 1665 pixels were never written ... Hint: every pixel needs a
    # thread: u = ...; and the guard ...', the index and guard being right): the holes skipped
    # as in depth_range, if (depth[i] == 0) return; with no NaN written
    "holes_returned_without_nan": ([(FILTER, "if (depth[i] == 0)\n        return;\n"
                                             "    if (z < z_min || z > z_max) {")],
                                   ["the 246 holes (depth 0, the first u = 4, v = 0) were never "
                                    "written, in any plane",
                                    'Hint: a hole is no point either: write nanf("") into all '
                                    "three planes before returning"]),
    "range_filter_missing": ([(FILTER, "if (depth[i] == 0) {")], "the range filter is missing"),
    # blind audit AIC-backproject_range-2 (was 'points outside [z_min, z_max] were kept: the
    # range filter is missing', which is there): the range test's branch writes the NaNs but has
    # no return, so X, Y and Z are stored over them
    "range_branch_without_return": ([(FILTER, "if (depth[i] == 0) {\n" + NAN + "        return;\n"
                                              "    }\n    if (z < z_min || z > z_max) {"),
                                     ('= nanf("");\n        return;\n    }\n    xyz[i]',
                                      '= nanf("");\n    }\n    xyz[i]')],
                                    ["their NaNs were written, then X, Y and Z over them",
                                     "Hint: return after writing the NaNs"]),
    "far_end_missing": ([(FILTER, "if (depth[i] == 0 || z < z_min) {")],
                        "points farther than z_max were kept"),
    # blind audit G8 (was '816 pixels with a depth inside [z_min, z_max] came out NaN')
    # blind audit TDA-backproject_range-1: the depth divided by the scale (was 'every pixel came
    # out NaN ...: the range test drops every depth (with its bounds swapped, ...)')
    "depth_divided_by_the_scale": ([(DEPTH, "float z = depth[i] / depth_scale;")],
                                   "every pixel came out NaN: z = depth[i] / depth_scale is "
                                   "1e+06 times the depth in metres (depth 2839 mm gave Z = "
                                   "2.839e+06 m"),
    "range_bounds_swapped": ([("z < z_min || z > z_max", "z < z_max || z > z_min")],
                             "the range test drops every depth"),
    "ends_excluded": ([("z < z_min || z > z_max", "z <= z_min || z >= z_max")],
                      "points exactly at z_min or z_max were dropped"),
    # blind audit AJ (was 'points exactly at z_min or z_max were dropped'): z >= z_max alone
    "far_end_excluded": ([("z > z_max", "z >= z_max")], ["exactly at z_max were dropped (those "
                         "at z_min were kept)", "Hint: drop only z > z_max, strictly"]),
    "only_z_is_nan": ([(NAN, '        xyz[i] = xyz[n + i] = 0.0f;\n'
                             '        xyz[2 * n + i] = nanf("");\n')],
                      "only some of X, Y and Z are NaN"),
    # blind audit AB (was 'at some pixels only some of X, Y and Z are NaN ... Hint: ... write
    # nanf("") into xyz[i], xyz[n + i] and xyz[2 * n + i], then return', the plane not named):
    # X and Y NaN in an if/else, the stub's store of Z after it, for every pixel
    "z_stored_after_the_if_else": ([(NAN + "        return;\n    }\n" + X + Y + Z,
                                     '        xyz[i] = xyz[n + i] = nanf("");\n    } else {\n'
                                     "    " + X + "    " + Y + "    }\n" + Z)],
                                   ["X and Y are NaN, Z not: Z holds the pixel's depth z",
                                    "Hint: write nanf(\"\") into the Z plane there too"]),
    **MARKS,
    **POINTS,
    "y_plane_forgotten": ([(Y, ""), (NAN, '        xyz[i] = xyz[2 * n + i] = nanf("");\n')],
                          "the Y plane of xyz was never written"),
    "nothing_written": ([(NAN, ""), (X + Y + Z, "")], "nothing was written"),
    # the most specific model first: these were "never written", "came out NaN", "test both ends"
    "only_z_set_to_nan": ([(NAN, '        xyz[2 * n + i] = nanf("");\n')],
                          "only Z got NaN: X and Y were never written there"),
    "millimetres_for_metres": ([(DEPTH, "float z = depth[i];")], "Z is in millimetres"),
    "range_tested_in_millimetres": ([("z < z_min || z > z_max",
                                      "depth[i] < z_min || depth[i] > z_max")],
                                    "the range was tested in two units"),
    # blind audit L4: the limits scaled as if they were millimetres, the same test (was 'the
    # depth was compared with z_min and z_max in millimetres ... Hint: turn the depth into metres
    # first, z = depth[i] * depth_scale, and compare z', what the learner had written)
    "range_limits_scaled": ([("z < z_min || z > z_max",
                              "z < z_min * depth_scale || z > z_max * depth_scale")],
                            "Hint: z_min and z_max are metres already, like z = depth[i] * "
                            "depth_scale: compare z with them exactly as passed in, z < z_min || "
                            "z > z_max, with no depth_scale on the limits"),
    "depth_divided_as_integers": ([(DEPTH, "float z = depth[i] / 1000;")],
                                  "(2839 mm gave 2 m): depth[i] / 1000 divides two integers"),
    # blind audit TFA-backproject_range-1: z declared int (was 'Z came out in whole metres (1999 mm
    # gave 1 m): depth[i] / 1000 divides two integers ... Hint: multiply by the float depth_scale:
    # z = depth[i] * depth_scale', which the learner had written)
    "z_declared_int": ([(DEPTH, "int z = depth[i] * depth_scale;")],
                       "z is declared int, so depth[i] * depth_scale (2.839 m for 2839 mm) is cut "
                       "to a whole number of metres (2 m) when stored in it, and X, Y and Z come "
                       "from the cut z (width = 45, height = 37, block = (16, 16, 1), grid = (3, "
                       "3), fx = 52.0, fy = 47.5, cx = 21.7, cy = 19.4). Hint: declare z a float, "
                       "as depth_scale is: float z = depth[i] * depth_scale"),
    "index_down_the_columns": ([("int i = v * width + u;", "int i = u * height + v;")],
                               "the pixel's index ran down the columns, i = u * height + v"),
    "y_sign_flipped": ([("(v - cy)", "(cy - v)")], "Y has the wrong sign"),
    "x_sign_flipped": ([("(u - cx) * z", "(cx - u) * z")], "X has the wrong sign"),
    "depth_left_out_of_x_and_y": ([("(u - cx) * z / fx", "(u - cx) / fx"), ("(v - cy) * z / fy", "(v - cy) / fy")],
                                  "X and Y were not multiplied by the depth"),
    "planes_width_apart": ([("n + i", "width + i")],
                           "Y and Z were stored width and 2 * width elements after X"),
    # blind audit TIA-backproject_range-1: n taken as xyz's length, three planes (was 'the kernel
    # wrote past the end of xyz (as far as pixel 8324; xyz has 1665) ... Hint: the grid is rounded
    # up to whole blocks ...: return at once if (u >= width || v >= height)', which is there)
    "n_as_the_length_of_xyz": ([("int n = width * height;", "int n = width * height * 3;")],
                               "n is 3 times too large: Y and Z were stored 3 * 1665 and 6 * 1665 "
                               "elements after X (xyz[3 * 1665 + i], xyz[6 * 1665 + i]), past the "
                               "end of xyz's 3 * 1665 floats, and its Y and Z planes were never "
                               "written (width = 45, height = 37, block = (16, 16, 1), grid = (3, "
                               "3), fx = 52.0, fy = 47.5, cx = 21.7, cy = 19.4). Hint: n = width * "
                               "height, the pixels of one plane"),
    # blind audit AE (was 'the kernel wrote past the end of xyz ...'): n the threads launched
    "n_as_the_threads_launched": ([("width * height;", "gridDim.x * blockDim.x * gridDim.y * blockDim.y;")], [
        "Y and Z were stored 2304 and 2 * 2304 elements after X", "not n = width * height = 1665 apart",
        "n = 2304 is the number of threads launched", "Hint: n = width * height"]),
    "block_sides_swapped": ([("blockIdx.x * blockDim.x", "blockIdx.x * blockDim.y"),
                             ("blockIdx.y * blockDim.y", "blockIdx.y * blockDim.x")],
                            "blockDim.x and blockDim.y are swapped"),
    # blind audit AG (was 'only rows 0 to 7 were written: every block did the work of the first
    # one ... Hint: blockIdx.y is missing from v'): v steps by blockDim.x, the block's width
    "v_steps_by_the_block_width": ([(INDEX_V, "int v = blockIdx.y * blockDim.x + threadIdx.y;")],
                                   "v steps by blockDim.x = 32, the block's width, from one block"),
    # every thread does the whole image, as a Python loop would: the right points, each written
    # by every thread (it passed): the race-checked case on the simulator names it
    "every_thread_does_the_image": ([(KERNEL[KERNEL.index("    int u ="):], """\
    int n = width * height;
    for (int v = 0; v < height; v++)
        for (int u = 0; u < width; u++) {
            int i = v * width + u;
            float z = depth[i] * depth_scale;
            if (depth[i] == 0 || z < z_min || z > z_max) {
                xyz[i] = xyz[n + i] = xyz[2 * n + i] = nanf("");
                continue;
            }
            xyz[i] = (u - cx) * z / fx;
            xyz[n + i] = (v - cy) * z / fy;
            xyz[2 * n + i] = z;
        }
}
""")], "two threads wrote xyz["),
    # audit 3: one slip in the formula each
    "x_without_parentheses": ([(X, "    xyz[i] = u - cx * z / fx;\n")], "so only cx was scaled"),
    "pixel_centre": ([("(u - cx)", "(u + 0.5f - cx)"), ("(v - cy)", "(v + 0.5f - cy)")],
                     "computed from the pixel's centre, u + 0.5 and v + 0.5"),
    "y_from_the_column": ([(Y, "    xyz[n + i] = (u - cy) * z / fy;\n")],
                          "Y was computed from the column u, not the row v"),
    # audit 2 (near misses, helpers.exercises.near): Y divided by fx; X and Y kept in ints
    # named since blind audit I4 (was 'every element of Y is 0.9135 times the right value')
    "y_over_fx": ([("(v - cy) * z / fy", "(v - cy) * z / fx")],
                  "Y was divided by fx, the focal length across the image, where fy belongs"),
    # blind audit TJA-backproject_range-1 (was '816 values differ from NumPy's (the first: Y of
    # pixel u = 0, v = 0: got -1.29697, expected -1.15951) ... Hint: X = (u - cx) * z / fx and
    # Y = (v - cy) * z / fy ...', silent on which term): cx where cy belongs
    "y_from_cx": ([("(v - cy) * z / fy", "(v - cx) * z / fy")],
                  "Y subtracted cx = 21.7, the principal point's column, where cy = 19.4, its "
                  "row, belongs: Y = (v - cx) * z / fy, not (v - cy) * z / fy"),
    "x_from_cy": ([("(u - cx) * z / fx", "(u - cy) * z / fx")],
                  "X subtracted cy = 19.4, the principal point's row, where cx = 21.7, its "
                  "column, belongs: X = (u - cy) * z / fx, not (u - cx) * z / fx"),
    # blind audit TXA-backproject_range-1 (was '816 values differ from NumPy's (the first: X of
    # pixel u = 0, v = 0: got -397.464, expected -1.18474) ... Hint: X = (u - cx) * z / fx and
    # Y = ...', silent on which part): u = fx * X / Z + cx inverted wrongly, X only
    "x_divided_by_z_times_fx": ([("xyz[i] = (u - cx) * z / fx;", "xyz[i] = (u - cx) / z * fx;")],
                                ["X was computed as (u - cx) / z * fx: divided by the depth and "
                                 "multiplied by fx, the other way round", "got -397.464, expected "
                                 "-1.18474", "Hint: going back from u = fx * X / Z + cx "
                                 "multiplies by the depth and divides by fx: X = (u - cx) * z / fx"]),
    "x_over_fy": ([("(u - cx) * z / fx", "(u - cx) * z / fy")],
                  "X was divided by fy, the focal length down the image, where fx belongs"),
    "x_and_y_in_ints": ([("    xyz[i] = (u - cx) * z / fx;\n    xyz[n + i] = (v - cy) * z / fy;",
                          "    int x = (u - cx) * z / fx;\n    int y = (v - cy) * z / fy;\n"
                          "    xyz[i] = x;\n    xyz[n + i] = y;")],
                        "every element of X is the right value cut to a whole number"),
    # blind audit AL (was '1632 values differ from NumPy's ... Hint: X = (u - cx) * z / fx
    # and ...'): the offsets from the principal point kept in ints, int du = u - cx
    "offsets_in_ints": ([("    xyz[i] = (u - cx) * z / fx;\n    xyz[n + i] = (v - cy) * z / fy;",
                          "    int du = u - cx, dv = v - cy;\n    xyz[i] = du * z / fx;\n"
                          "    xyz[n + i] = dv * z / fy;")],
                        ["X and Y were computed from the offsets u - cx and v - cy cut to whole numbers", "Hint: keep the offsets "
                         "in floats"]),
    # blind audit TYA-backproject_range-1 (was '816 pixels with a depth inside [z_min, z_max]
    # came out NaN ...', silent on z): millimetres turned into metres twice, a / 1000 too many
    "metres_divided_by_1000_again": ([(DEPTH, "float z = depth[i] * depth_scale / 1000;")],
                                     ["every pixel came out NaN: Z is 1000 times too small",
                                      "depth 2839 mm gave Z = 0.002839 m, where depth[i] * "
                                      "depth_scale is 2.839 m", "divided by 1000 after depth_scale",
                                      "Hint: depth_scale is metres per millimetre already: z = "
                                      "depth[i] * depth_scale, with no / 1000"]),
    "depth_scale_applied_twice": ([(DEPTH, "float z = depth[i] * depth_scale * depth_scale;")],
                                  ["every pixel came out NaN: Z is 1000 times too small",
                                   "depth_scale was applied twice",
                                   "Hint: depth_scale is metres per millimetre already: z = "
                                   "depth[i] * depth_scale, once"]),
    # blind audit AH (was 'PASS: every point matches NumPy's back-projection ...'): the scale
    # written in from the notebook's 0.001 m per unit, the depth_scale argument ignored
    "depth_scale_written_in": ([(DEPTH, "float z = depth[i] * 0.001f;")],
                               ["Z came out depth * 0.001 whatever depth_scale is", "the kernel "
                                "ignores its depth_scale argument", "Hint: the scale is the "
                                "camera's, passed in: z = depth[i] * depth_scale"]),
    # blind audit TA-backproject_range-1 (was '... 0 <= i < n is (0 <= i) < n ... Hint: compare
    # i with n alone: if (i < n)'): Python's chained comparison as the range test
    "range_test_chained": ([("z < z_min || z > z_max", "!(z_min <= z <= z_max)")],
                           "it is (z_min <= z) <= z_max, and z_min <= z is 0 or 1, never above "
                           "z_max = 4 m, so the test holds for every depth: all 603 measured "
                           "pixels outside [z_min, z_max] were kept"),
    # blind audit AC (was 'PASS: every point matches NumPy's back-projection ...'): the depth
    # read above the bounds guard, so the threads outside the image read past depth's end
    "depth_read_before_the_guard": ([(GUARD + "    int i = v * width + u;\n    int n = width * height;\n"
                                      "    " + DEPTH + "\n",
                                      "    int i = v * width + u;\n    int n = width * height;\n"
                                      "    " + DEPTH + "\n" + GUARD)],
                                    ["the kernel reads depth[i] (line", "before its bounds guard, "
                                     "if (u >= width || v >= height) (line",
                                     "as far as depth[2162] (depth holds 1665 pixels",
                                     "Hint: the guard must come before any access to memory: move "
                                     "if (u >= width || v >= height) return; up"]),
}
SIMULATOR_ONLY = {"nan_as_an_interleaved_point": "a NaN at xyz[3 * i + c] that is a point's place "
                                                  "races with that point's store on a GPU",
                  "nan_planes_without_i": "every dropped pixel's NaN at xyz[n] and xyz[2 * n] races "
                                          "with pixel 0's own stores there on a GPU"}
@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("backproject_range", {
        "solution": KERNEL, **{name: variant(KERNEL, *r) for name, (r, _) in WRONG.items()},
        **{name: variant(KERNEL, *r) for name, r in RIGHT.items()}})


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_otherwise_passes(name, kernels, capsys):
    assert check_backproject_range_kernel(*kernels[name]).passed is True, capsys.readouterr().out


def test_stub_fails(capsys):
    assert not check_backproject_range("exercises/backproject_range.cu")
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    assert "pixels with no measurement (depth 0) were kept" in out


def test_solution_passes(kernels, capsys):
    assert check_backproject_range_kernel(*kernels["solution"]).passed is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_wrong_kernel_fails_with_its_hint(name, kernels, capsys):
    expected = WRONG[name][1]
    assert check_backproject_range_kernel(*kernels[name]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    for words in [expected] if isinstance(expected, str) else expected:  # a piece or pieces
        assert words in out, out


def test_a_changed_parameter_type_is_named(capsys):
    path = stable_file("backproject_range_double_fx.cu", variant(KERNEL, ("float fx", "double fx")))
    verdict = check_backproject_range(path)
    assert not verdict, capsys.readouterr().out
    assert "parameter 5 of backproject_range, fx, is declared 'double'" in verdict.problem


def test_the_cases_reach_both_ends_of_the_range_and_every_kind_of_pixel():
    # Without pixels exactly at z_min and z_max the "<" for "<=" mistake could not show; without
    # a case at z_min = 0, a kernel without the hole test (z < z_min drops Z = 0) could not.
    assert min(map(z_min, CASES)) == 0
    for case in CASES:
        depth, low = depth_image(case), z_min(case)
        z = depth.astype(np.float32) * np.float32(0.001)
        _, kept = reference(depth, case["fx"], case["fy"], case["cx"], case["cy"], low=low)
        assert (z == Z_MAX).any() and kept[z == Z_MAX].all()
        assert (depth == 0).any() and (z > Z_MAX).any() and kept.any()
        if low > 0:
            assert (z == low).any() and kept[z == low].all() and (z < low).any()
