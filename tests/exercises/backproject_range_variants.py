"""The back-projection exercise's right kernels written otherwise, for
tests/exercises/test_backproject_range.py: the solution (KERNEL) and RIGHT (name -> the
replacements in the solution), each of which must pass; and MARKS, wrong kernels that mark the
pixels that are not points in the wrong places or with the wrong values (name -> (replacements, a
piece of the expected verdict, or a list of pieces)), and POINTS, wrong kernels whose points are
stored in the wrong places or computed otherwise than NumPy's float32 (the same shape), parts of the
test's WRONG."""

from kernel_sources import solution

KERNEL = solution("backproject_range.cu")

# Right, written otherwise: each must pass.
RIGHT = {
    # a grid-stride loop over both sides, and a select for the NaN instead of a return
    "grid_stride_loops": [(KERNEL[KERNEL.index("    int u ="):], """    int n = width * height;
    for (int v = blockIdx.y * blockDim.y + threadIdx.y; v < height; v += blockDim.y * gridDim.y)
        for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < width; u += blockDim.x * gridDim.x) {
            int i = v * width + u;
            float z = depth[i] * depth_scale;
            bool point = depth[i] != 0 && z >= z_min && z <= z_max;
            xyz[i] = point ? (u - cx) * z / fx : nanf("");
            xyz[n + i] = point ? (v - cy) * z / fy : nanf("");
            xyz[2 * n + i] = point ? z : nanf("");
        }
}
""")],
    "nan_from_a_division": [('nanf("")', "0.0f / 0.0f")],
}

NAN = '        xyz[i] = xyz[n + i] = xyz[2 * n + i] = nanf("");\n'

# Wrong: the marks of the pixels that are not points misplaced or not NaN.
MARKS = {
    # blind audit R4 (was '731 of 1665 pixels were never written ... Hint: every pixel needs a
    # thread: u = ...'): the NaN stored as an interleaved point
    "nan_as_an_interleaved_point": ([(NAN, '        xyz[3 * i] = xyz[3 * i + 1] = xyz[3 * i + 2] '
                                           '= nanf("");\n')],
                                    "the NaNs of the pixels that are not points went to xyz[3 * "
                                    "i], xyz[3 * i + 1] and xyz[3 * i + 2]"),
    # blind audit TVA-backproject_range-1 (was 'at some pixels only some of X, Y and Z are NaN
    # ... Hint: ... write nanf("") into xyz[i], xyz[n + i] and xyz[2 * n + i]'): every point,
    # its NaNs too, stored side by side at xyz[3 * i + c] (NumPy's (N, 3) layout)
    "points_interleaved": ([('xyz[i] = xyz[n + i] = xyz[2 * n + i] = nanf("");',
                             'xyz[3 * i] = xyz[3 * i + 1] = xyz[3 * i + 2] = nanf("");'),
                            ("xyz[i] = (u - cx) * z / fx;", "xyz[3 * i] = (u - cx) * z / fx;"),
                            ("xyz[n + i] = (v - cy) * z / fy;", "xyz[3 * i + 1] = (v - cy) * z / fy;"),
                            ("xyz[2 * n + i] = z;", "xyz[3 * i + 2] = z;")],
                           ["every pixel's X, Y and Z went side by side to xyz[3 * i], xyz[3 * i + 1] "
                            "and xyz[3 * i + 2]", "three planes of n = width * height floats",
                            "xyz[i] = X, xyz[n + i] = Y, xyz[2 * n + i] = Z"]),
    # blind audit AK (was 'at the pixels that are not points, only X got NaN: Y and Z were never
    # written there'): the Y and Z NaN stores without + i, xyz[n] and xyz[2 * n], pixel 0's
    "nan_planes_without_i": ([(NAN, '        xyz[i] = xyz[n] = xyz[2 * n] = nanf("");\n')],
                             ["the Y and Z NaNs of the pixels that are not points all went to "
                              "xyz[n] and xyz[2 * n], pixel 0's Y and Z",
                              "Hint: add the pixel's index i to each plane's start"]),
    # blind audit X7 (was '246 pixels with no measurement (depth 0) were kept as points (at X = Y
    # = Z = 0, the camera's centre)'): no point marked with INFINITY
    "marked_with_infinity": ([('= nanf("");', "= INFINITY;")],
                             "the 849 pixels that are not points hold infinity (INFINITY), not NaN"),
    # blind audit AF (was '246 pixels with no measurement ... kept as points'): marks 0.0f, not NaN
    "marked_with_zero": ([('= nanf("");', "= 0.0f;")], ["the 849 pixels that are not points hold 0 "
                         "in X, Y and Z, not NaN", 'Hint: mark them NaN, not 0: write nanf("")']),
}

# Wrong: the points stored in the wrong places, or computed otherwise than in NumPy's float32.
POINTS = {
    # blind audit AP (was 'PASS: every point matches NumPy's back-projection ...', where 676
    # values differ from NumPy's float32 in the last bit): z declared double, so X and Y are
    # computed in double and rounded once at the store
    "z_declared_double": ([("float z = depth[i] * depth_scale;",
                            "double z = depth[i] * depth_scale;")],
                          ["z is declared double", "differ from NumPy's float32 X and Y in the last bit",
                           "Hint: declare z a float"]),
    # blind audit AW (was 'points exactly at z_max were dropped ...: a test z >= z_max drops the
    # far end itself', the test being z > z_max): Z computed and compared in double, where depth
    # 4000 mm, whose float Z is z_max, lies above z_max
    "z_computed_in_double": ([("float z = depth[i] * depth_scale;",
                               "double z = depth[i] * (double)depth_scale;")],
                             ["Z was computed and compared with z_min and z_max in double",
                              "depth 4000 mm gives 4.00000019 m in double, above z_max",
                              "Hint: compute Z as a float, float z = depth[i] * depth_scale"]),
    # the same with X and Y in double to the end, as the auditor wrote it
    "z_and_offsets_in_double": ([("float z = depth[i] * depth_scale;",
                                  "double z = (double)depth[i] * depth_scale;"),
                                 ("(u - cx) * z / fx", "(float)((u - (double)cx) * z / fx)"),
                                 ("(v - cy) * z / fy", "(float)((v - (double)cy) * z / fy)"),
                                 ("xyz[2 * n + i] = z;", "xyz[2 * n + i] = (float)z;")],
                                ["compared with z_min and z_max in double", "were dropped"]),
    # X divided by fx before the depth multiplies it: close to NumPy's, not NumPy's to the bit
    "x_divided_before_the_depth": ([("(u - cx) * z / fx", "(u - cx) / fx * z")],
                                   ["differ from NumPy's float32 X in the last bits",
                                    "the points must be NumPy's bit for bit",
                                    "Hint: do NumPy's float32 operations in its order"]),
    # blind audit AP (was '816 of 1665 pixels were never written ... Hint: every pixel needs a
    # thread: u = ...', the index being right): the point's Y and Z stored a row apart, at
    # width + i and 2 * width + i, the NaNs in their planes
    "point_planes_a_row_apart": ([("xyz[n + i] = (v - cy)", "xyz[width + i] = (v - cy)"),
                                  ("xyz[2 * n + i] = z;", "xyz[2 * width + i] = z;")],
                                 ["the points' Y and Z went to xyz[width + i] and xyz[2 * width + i]",
                                  "the NaNs went to their planes",
                                  "Hint: each plane holds n = width * height floats"]),
    # the other branch's half-finished edit: the NaNs' Y and Z a row apart, the points' in place
    "nan_planes_a_row_apart": ([('xyz[n + i] = xyz[2 * n + i] = nanf("")',
                                 'xyz[width + i] = xyz[2 * width + i] = nanf("")')],
                               ["the NaNs' Y and Z went to xyz[width + i] and xyz[2 * width + i]",
                                "store the NaNs' Y and Z there, as the points are"]),
}
